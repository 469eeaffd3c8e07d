/**
 * The TUI's named actions and their keys. `keybindings.json` in
 * `$XDG_CONFIG_HOME/xdog/claw/` remaps them: `{ "steer": "alt+t",
 * "newLine": ["shift+enter", "alt+enter"] }`. A file that is not valid JSON,
 * names an unknown action or key, or gives one key to two actions is not
 * used at all: the defaults apply and a notice names the file and the key.
 */
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { LIMITS } from '../../core/limits.js';
import { configDir } from '../../core/paths.js';

export const ACTIONS = {
  submit: { keys: ['enter'], summary: 'send the draft (or run the /command)' },
  newLine: { keys: ['shift+enter', 'alt+enter'], summary: 'insert a line break' },
  abort: { keys: ['escape'], summary: 'abort the running turn' },
  quit: { keys: ['ctrl+c'], summary: 'clear the draft; twice in a row quits' },
  repaint: { keys: ['ctrl+l'], summary: 'repaint the screen' },
  details: { keys: ['ctrl+o'], summary: 'the details viewer: recent tool calls (whole arguments, results) and reasoning' },
  steer: { keys: ['alt+s'], summary: 'send the draft as /steer' },
  followUp: { keys: ['alt+f'], summary: 'send the draft as /follow-up' },
  externalEditor: { keys: ['ctrl+g'], summary: 'edit the draft in $VISUAL / $EDITOR' },
  suspend: { keys: ['ctrl+z'], summary: 'suspend the TUI to the shell (fg brings it back)' },
  queue: { keys: ['ctrl+q'], summary: "list the client's and the gateway's queued inputs (/queue)" },
  cycleModel: { keys: ['ctrl+p'], summary: 'switch to the next model the gateway lists' },
  cycleThinking: { keys: ['shift+tab'], summary: "switch to the model's next thinking level" },
  diff: { keys: ['alt+d'], summary: "show the workspace's git changes (/diff)" },
  sessions: { keys: ['alt+r'], summary: 'open the session browser (/sessions)' },
  transcript: { keys: ['alt+h'], summary: 'open the transcript (/transcript)' },
  copy: { keys: ['alt+c'], summary: 'copy the last response (/copy)' },
  paste: { keys: ['ctrl+v'], summary: "attach the clipboard's image or insert its text (/paste)" },
  agents: { keys: ['alt+a'], summary: "open the child agents' roster (/agents); the draft stays in the editor for s/f/S/F" },
  keepDraft: { keys: ['ctrl+alt+s'], summary: 'save the draft as a private snapshot (/draft saved); the editor keeps it' },
} as const satisfies Record<string, { keys: readonly string[]; summary: string }>;

export type Action = keyof typeof ACTIONS;
export type Bindings = Record<Action, string[]>;

const BASE = /^(?:[a-z0-9]|[`\-=[\]\\;',./!@#$%^&*()_+|~{}:<>?]|escape|esc|enter|return|tab|space|backspace|delete|insert|clear|home|end|pageUp|pageDown|up|down|left|right|f(?:[1-9]|1[0-2]))$/;

/** True for a key id pi-tui understands: modifiers (each once) then one key, e.g. `ctrl+shift+p`. */
export function isKeyId(key: string): boolean {
  // The plus key is written "+" alone or after a modifier's "+": "ctrl++".
  const plus = key === '+' || key.endsWith('++');
  const parts = plus ? key.slice(0, -1).split('+').slice(0, -1) : key.split('+');
  const base = plus ? '+' : parts.pop()!;
  return BASE.test(base) && new Set(parts).size === parts.length && parts.every((modifier) => ['ctrl', 'alt', 'shift', 'super'].includes(modifier));
}

const KeyList = z.union([z.string(), z.array(z.string()).min(1)]).transform((keys) => (Array.isArray(keys) ? keys : [keys]));
const FileSchema = z.record(z.string(), KeyList);

export function defaultBindings(): Bindings {
  return Object.fromEntries(Object.entries(ACTIONS).map(([action, { keys }]) => [action, [...keys]])) as Bindings;
}

export interface LoadedBindings {
  bindings: Bindings;
  /** Set when the file was not used: why, naming the file and the key. */
  notice?: string;
}

/** `$CLAW_DIR/keybindings.json` when CLAW_DIR is set (the seed's claw directory), else `<config dir>/claw/keybindings.json`. */
export function keybindingsFile(env: NodeJS.ProcessEnv = process.env): string {
  const clawDir = env.CLAW_DIR;
  return clawDir ? path.resolve(clawDir, 'keybindings.json') : path.join(configDir(), 'claw', 'keybindings.json');
}

/** Reads and checks `file`; a missing file means the defaults, a bad one the defaults and a notice. */
export function loadKeybindings(file: string): LoadedBindings {
  const defaults = defaultBindings();
  const fallback = (problem: string): LoadedBindings => ({ bindings: defaults, notice: `${file}: ${problem}; the default key bindings are used` });
  const stat = fs.statSync(file, { throwIfNoEntry: false });
  if (!stat) return { bindings: defaults };
  if (!stat.isFile()) return fallback('not a regular file');
  if (stat.size > LIMITS.tuiKeybindingsFileBytes) return fallback(`${stat.size} bytes, over the ${LIMITS.tuiKeybindingsFileBytes}-byte limit`);
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    return fallback(`not valid JSON (${(error as Error).message})`);
  }
  const parsed = FileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return fallback(`key "${issue.path.join('.') || '(file)'}": ${issue.message} (expected {"action": "key" or ["key", ...]})`);
  }
  const bindings = { ...defaults };
  for (const [named, keys] of Object.entries(parsed.data)) {
    // The action's name before the details viewer replaced the inline toggle.
    const action = named === 'toggleTools' ? 'details' : named;
    if (!(action in ACTIONS)) return fallback(`key "${action}" is not an action (actions: ${Object.keys(ACTIONS).join(', ')})`);
    const bad = keys.find((key) => !isKeyId(key));
    if (bad !== undefined) return fallback(`key "${action}": "${bad}" is not a key (e.g. "ctrl+g", "alt+enter", "f2")`);
    bindings[action as Action] = keys;
  }
  const owner = new Map<string, Action>();
  for (const [action, keys] of Object.entries(bindings) as Array<[Action, string[]]>) {
    for (const key of keys) {
      const other = owner.get(key);
      if (other) return fallback(`key "${action}": "${key}" is bound to "${other}" too`);
      owner.set(key, action);
    }
  }
  return { bindings };
}
