/**
 * Extension shortcuts: a command may name one key that runs it (with no
 * arguments) in `xdog claw tui`. Only Alt+letter or Alt+digit chords are
 * offered, less the editor's own word keys (Alt+B/F/D/Y); the TUI's own key
 * bindings win over an extension's, and of two extensions naming the same key
 * the first listed keeps it.
 */

export const SHORTCUT_PATTERN = /^alt\+[a-z0-9]$/;
const EDITOR_KEYS = new Set(['alt+b', 'alt+f', 'alt+d', 'alt+y']);

/** Why `key` cannot be a shortcut, or undefined when it can. */
export function shortcutProblem(key: unknown): string | undefined {
  if (typeof key !== 'string' || !SHORTCUT_PATTERN.test(key)) return `shortcut ${JSON.stringify(key)}: use "alt+" and one lower-case letter or digit, such as "alt+k"`;
  if (EDITOR_KEYS.has(key)) return `shortcut "${key}" is the editor's (alt+b, alt+f, alt+d and alt+y move or delete words)`;
  return undefined;
}
