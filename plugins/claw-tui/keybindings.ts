/**
 * The TUI's named actions and their keys. `keybindings.json` in
 * `$XDG_CONFIG_HOME/xdog/claw/` remaps them: `{ "steer": "alt+t",
 * "newLine": ["shift+enter", "alt+enter"], "tree": "f2", "queue": [] }` (`[]`
 * disables an action), and remaps or unbinds extension shortcuts by their
 * command's full name (`{ "ext-keyed-compose": "alt+x" }`). A file that is
 * not valid JSON, names an unknown action or key, binds a bare printable key
 * (it types text), touches a reserved key (Escape, Ctrl+L), leaves `submit`
 * without a key, or gives one key to two owners is not used at all: the
 * defaults apply and a notice names the file, the action and the key.
 */
import fs from 'node:fs';
import path from 'node:path';
import { TUI_KEYBINDINGS } from '@mariozechner/pi-tui';
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
  keys: { keys: ['f1'], summary: 'list the key bindings (/keys)' },
  tree: { keys: [], summary: "show the active session's entry tree (/tree)" },
  fullscreen: { keys: [], summary: 'open the transcript browser fullscreen, on the alternate screen (/fullscreen)' },
} as const satisfies Record<string, { keys: readonly string[]; summary: string }>;

export type Action = keyof typeof ACTIONS;
export type Bindings = Record<Action, string[]>;

/** The seed's names (and an older one of ours) for our actions: either spelling works, not both in one file. */
export const ACTION_ALIASES: Readonly<Record<string, Action>> = {
  toggleTools: 'details',
  send: 'submit',
  newline: 'newLine',
  external_editor: 'externalEditor',
  follow_up: 'followUp',
  save_draft: 'keepDraft',
};

/** Keys no file can move: Escape always aborts or closes, Ctrl+L always repaints (the ways out of a bad state). */
export const RESERVED: Readonly<Partial<Record<Action, string>>> = { abort: 'escape', repaint: 'ctrl+l' };

/** How an extension command is named in the file: its full lowercase `/ext-ID-NAME` without the slash. */
const EXTENSION_COMMAND = /^ext-[a-z0-9][a-z0-9-]*$/;

const BASE = /^(?:[a-z0-9]|[`\-=[\]\\;',./!@#$%^&*()_+|~{}:<>?]|escape|esc|enter|return|tab|space|backspace|delete|insert|clear|home|end|pageUp|pageDown|up|down|left|right|f(?:[1-9]|1[0-2]))$/;
const MODIFIERS = ['ctrl', 'shift', 'alt', 'super'] as const;
/** pi-tui's other names of a key. */
const SAME_KEY: Readonly<Record<string, string>> = { esc: 'escape', return: 'enter' };

/** The modifiers and the key of a key id, or undefined when it is none. */
function parseKey(key: string): { modifiers: string[]; base: string } | undefined {
  // The plus key is written "+" alone or after a modifier's "+": "ctrl++".
  const plus = key === '+' || key.endsWith('++');
  const parts = plus ? key.slice(0, -1).split('+').slice(0, -1) : key.split('+');
  const base = plus ? '+' : parts.pop()!;
  if (!BASE.test(base) || new Set(parts).size !== parts.length || !parts.every((modifier) => (MODIFIERS as readonly string[]).includes(modifier))) return undefined;
  // pi-tui matches function keys only without modifiers (their modified sequences are never recognised).
  if (/^f\d/.test(base) && parts.length) return undefined;
  return { modifiers: parts, base };
}

/** True for a key id pi-tui understands: modifiers (each once) then one key, e.g. `ctrl+shift+p`. */
export function isKeyId(key: string): boolean {
  return parseKey(key) !== undefined;
}

/** One spelling per key (modifiers in a fixed order, `esc` as `escape`), to compare keys; the id must be valid. */
export function canonicalKey(key: string): string {
  const { modifiers, base } = parseKey(key)!;
  return [...MODIFIERS.filter((modifier) => modifiers.includes(modifier)), SAME_KEY[base] ?? base].join('+');
}

/** A letter, digit, symbol or space alone or with Shift only: pressing it types text, so it cannot be a shortcut. */
export function isPrintable(key: string): boolean {
  const { modifiers, base } = parseKey(key)!;
  return (base.length === 1 || base === 'space') && modifiers.every((modifier) => modifier === 'shift');
}

/** How a key is written for people: `ctrl+alt+s` as Ctrl+Alt+S, `f1` as F1. */
export function keyLabel(key: string): string {
  const parsed = parseKey(key);
  if (!parsed) return key;
  const word = (part: string): string => (part.length === 1 ? part.toUpperCase() : part[0]!.toUpperCase() + part.slice(1));
  return [...parsed.modifiers, parsed.base].map(word).join('+');
}

/** The keys of an action for a hint ("Alt+S", "Shift+Enter or Alt+Enter"), or undefined when it is disabled. */
export function actionKeyLabel(bindings: Bindings, action: Action): string | undefined {
  const keys = bindings[action];
  return keys.length ? keys.map(keyLabel).join(' or ') : undefined;
}

/**
 * The keys pi-tui's editor acts on itself (cursor, delete, yank, undo): an
 * extension shortcut may not take them, so typing and editing always work.
 */
const EDITOR_KEYS: ReadonlySet<string> = new Set(
  Object.entries(TUI_KEYBINDINGS)
    .filter(([id]) => id.startsWith('tui.editor.'))
    .flatMap(([, { defaultKeys }]) => (Array.isArray(defaultKeys) ? defaultKeys : [defaultKeys]) as string[])
    .filter(isKeyId)
    .map(canonicalKey),
);
/** Ctrl+D ends dialogs and input; extensions never get it (Ctrl+C, Ctrl+Z and Ctrl+L are actions already). */
const NOT_FOR_EXTENSIONS: ReadonlySet<string> = new Set(['ctrl+d']);

const KeyList = z.union([z.string(), z.array(z.string())]).transform((keys) => (Array.isArray(keys) ? keys : [keys]));
const FileSchema = z.record(z.string(), KeyList);

export function defaultBindings(): Bindings {
  return Object.fromEntries(Object.entries(ACTIONS).map(([action, { keys }]) => [action, [...keys]])) as Bindings;
}

export interface LoadedBindings {
  bindings: Bindings;
  /** Extension command (`ext-ID-NAME`) to the keys the file gives it; `[]` unbinds its shortcut. */
  extensionKeys: Record<string, string[]>;
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
  const defaults: LoadedBindings = { bindings: defaultBindings(), extensionKeys: {} };
  const fallback = (problem: string): LoadedBindings => ({ ...defaults, notice: `${file}: ${problem}; the default key bindings are used` });
  const stat = fs.statSync(file, { throwIfNoEntry: false });
  if (!stat) return defaults;
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
    return fallback(`key "${issue.path.join('.') || '(file)'}": ${issue.message} (expected {"action": "key", ["key", ...] or []})`);
  }
  const problem = checkFile(parsed.data);
  return typeof problem === 'string' ? fallback(problem) : problem;
}

/** The bindings of a parsed file, or the first problem with it (naming the action and the key). */
function checkFile(file: Record<string, string[]>): LoadedBindings | string {
  const bindings = defaultBindings();
  const extensionKeys: Record<string, string[]> = {};
  /** The name each action was given by in this file (to catch "send" and "submit" together). */
  const spelled = new Map<Action, string>();
  for (const [named, keys] of Object.entries(file)) {
    const action = (ACTION_ALIASES[named] ?? named) as Action;
    const isAction = action in ACTIONS;
    if (!isAction && !EXTENSION_COMMAND.test(named)) {
      return `key "${named}" is not an action (actions: ${Object.keys(ACTIONS).join(', ')}; also ${Object.keys(ACTION_ALIASES).join(', ')}; an extension command as "ext-ID-NAME")`;
    }
    const bad = keys.find((key) => !isKeyId(key));
    if (bad !== undefined) return `key "${named}": "${bad}" is not a key (e.g. "ctrl+g", "alt+enter", "f2"; function keys take no modifier)`;
    const printable = keys.find(isPrintable);
    if (printable !== undefined) return `key "${named}": "${printable}" is a bare printable key, which types text; add a modifier such as "alt+${printable.split('+').pop()}"`;
    if (!isAction) {
      extensionKeys[named] = keys;
      continue;
    }
    const twice = spelled.get(action);
    if (twice !== undefined) return `key "${named}": the action "${action}" is named twice (as "${twice}" and "${named}"); keep one of them`;
    spelled.set(action, named);
    const reserved = RESERVED[action];
    if (reserved !== undefined && (keys.length !== 1 || canonicalKey(keys[0]!) !== reserved)) return `key "${named}": "${action}" is reserved to "${reserved}" and cannot be remapped or disabled; remove it from the file`;
    if (action === 'submit' && !keys.length) return `key "${named}": "submit" needs a key, or no draft could be sent; give it one such as "enter"`;
    bindings[action] = keys;
  }
  const owner = new Map<string, string>();
  const take = (name: string, key: string): string | undefined => {
    const id = canonicalKey(key);
    const reserved = Object.entries(RESERVED).find(([action, reservedKey]) => reservedKey === id && action !== name);
    if (reserved) return `key "${name}": "${key}" is reserved to "${reserved[0]}"; choose another key`;
    const other = owner.get(id);
    if (other) return `key "${name}": "${key}" is bound to "${other}" too`;
    owner.set(id, name);
    return undefined;
  };
  for (const [action, keys] of Object.entries(bindings)) {
    for (const key of keys) {
      const problem = take(action, key);
      if (problem) return problem;
    }
  }
  for (const [command, keys] of Object.entries(extensionKeys)) {
    for (const key of keys) {
      const id = canonicalKey(key);
      if (EDITOR_KEYS.has(id) || NOT_FOR_EXTENSIONS.has(id)) return `key "${command}": "${key}" is the editor's, which an extension shortcut cannot take; choose another key such as "alt+x"`;
      const problem = take(command, key);
      if (problem) return problem;
    }
  }
  return { bindings, extensionKeys };
}
