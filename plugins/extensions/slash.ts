/**
 * The extension commands of interactive front ends (the claw TUI, `xdog agent
 * chat`): `/extensions [list|reload ID|unload ID]`, `/ext-ID-NAME ARGS` (or a
 * command's public name `/NAME ARGS`), with completion of the token at the
 * cursor, and `/artifact [save] PATH` for rich results. A front end supplies
 * an `ExtensionControl`: the kernel's own host in the chat, gateway methods
 * in the TUI. `/extensions`, an extension command and completing one start
 * the enabled extensions (lazy activation).
 */
import { ErrorCodes, XdogError } from '../../core/errors.js';
import { terminalSafe } from '../../core/terminal-text.js';
import { readArtifact, writeArtifact } from './artifact.js';
import { isCommandResult, renderCommandResult, type ExtensionCommandResult } from './command-result.js';
import type { ExtensionHost, ExtensionInfo } from './host.js';
import type { ArgumentContext } from './protocol.js';

export interface ExtensionControl {
  /** The enabled extensions; with `activate`, after starting the inactive ones. */
  list(activate: boolean): Promise<ExtensionInfo[]>;
  reload(id: string): Promise<ExtensionInfo>;
  unload(id: string): Promise<ExtensionInfo>;
  /** Runs `/ext-ID-NAME` (or `/PUBLIC`) with its argument text: the text it shows, or its rich result. */
  run(command: string, args: string): Promise<string | ExtensionCommandResult>;
  /** Completions of the token at the cursor; `context` only from a caller with the whole draft. */
  complete(command: string, prefix: string, context?: ArgumentContext): Promise<string[]>;
}

/** What a front end keeps between commands: the latest rich result (what `/artifact save` writes). */
export interface ResultShelf {
  last?: ExtensionCommandResult;
}

/** What one extension slash command shows, with its rich result when it had one. */
export interface SlashOutput {
  text: string;
  result?: ExtensionCommandResult;
}

/** One completion: the whole new line, where the cursor goes, and the item as the callback gave it. */
export interface SlashCompletion {
  line: string;
  cursor: number;
  label: string;
}

const SUBCOMMANDS = ['list', 'reload', 'unload'] as const;

/** True for `/extensions …`, `/ext-…` and `/artifact …`: text a front end hands to `runExtensionSlash`. */
export function isExtensionSlash(text: string): boolean {
  return /^\/(ext(ensions(\s|$)|-)|artifact(\s|$))/.test(text.trimStart());
}

/** True for the commands that restart or stop an extension (front ends refuse them while a run streams). */
export function changesExtensions(text: string): boolean {
  return /^\/extensions\s+(reload|unload)\b/.test(text.trim());
}

/**
 * The public command names a front end routes to extensions: those the host
 * granted, minus the front end's own builtins, which are refused (with a
 * reason naming both), never shadowed.
 */
export function publicCommands(infos: readonly ExtensionInfo[], builtins: ReadonlySet<string>): { names: Map<string, string>; refused: string[] } {
  const names = new Map<string, string>();
  const refused: string[] = [];
  for (const info of infos) {
    for (const [name, alias] of Object.entries(info.publicNames ?? {})) {
      if (builtins.has(name)) refused.push(`/${name} of ${alias} is refused: /${name} is this front end's builtin command (run it as /${alias})`);
      else names.set(name, alias);
    }
  }
  return { names, refused };
}

/** Runs one extension slash command; what to show (a rich result also goes on the shelf). */
export async function runExtensionSlash(control: ExtensionControl, text: string, shelf: ResultShelf = {}): Promise<SlashOutput> {
  const [word, ...rest] = text.trim().split(/\s+/);
  if (word === '/artifact') return artifactSlash(text.trim().slice(word.length).trim(), shelf);
  if (word !== '/extensions') {
    const args = text.trimStart().slice(word!.length).replace(/^[ \t]/, '');
    const answer = await control.run(word!, args);
    if (isCommandResult(answer)) {
      shelf.last = answer;
      return { text: renderCommandResult(answer, word), result: answer };
    }
    return { text: answer || `(${word} showed nothing)` };
  }
  const [sub = 'list', id, ...extra] = rest;
  if (sub === 'list' && !id) return { text: renderExtensions(await control.list(true)) };
  if ((sub === 'reload' || sub === 'unload') && id && extra.length === 0) return { text: renderExtensions([await control[sub](id)]) };
  throw new XdogError(ErrorCodes.USAGE, `usage: /extensions [list|reload ID|unload ID]`, { hint: 'extension commands are /ext-ID-NAME; /extensions lists them' });
}

/** `/artifact PATH` shows a saved result (read-only: nothing in it runs); `/artifact save PATH` writes the latest one. */
async function artifactSlash(argument: string, shelf: ResultShelf): Promise<SlashOutput> {
  const save = /^save\s+(\S[\s\S]*)$/.exec(argument);
  if (save) {
    if (!shelf.last) throw new XdogError(ErrorCodes.NOT_FOUND, 'no rich command result to save yet', { hint: 'run an extension command that returns api.result(...) first' });
    const file = writeArtifact(save[1]!, shelf.last);
    return { text: `saved the result of /${shelf.last.publicName ?? shelf.last.command} (extension ${shelf.last.extension}) to ${file} (0600, ${ARTIFACT_NOTE})` };
  }
  if (!argument || argument === 'save') throw new XdogError(ErrorCodes.USAGE, 'usage: /artifact PATH (show a saved result) or /artifact save PATH (save the latest)', { hint: 'artifacts are xdog.extension-command/v1 files' });
  const result = await readArtifact(argument);
  shelf.last = result;
  return { text: renderCommandResult(result, `artifact ${argument}`), result };
}

const ARTIFACT_NOTE = 'xdog.extension-command/v1; it holds the image bytes and JSON unredacted: keep it private';

/**
 * Completions of an extension slash command being typed: command names while
 * the cursor is in the first word, else the token at the cursor through the
 * command's callback. `full` says the line is the whole draft (its text after
 * the cursor included): only then does the callback get an argument context.
 */
export async function completeExtensionSlash(
  control: ExtensionControl,
  line: string,
  options: { cursor?: number; full?: boolean; publicNames?: ReadonlySet<string> } = {},
): Promise<SlashCompletion[]> {
  const cursor = options.cursor ?? line.length;
  const space = line.indexOf(' ');
  const command = space < 0 ? line : line.slice(0, space);
  const isPublic = options.publicNames?.has(command.slice(1)) ?? false;
  if (!/^\/ext/.test(line) && !isPublic) return [];
  if (space < 0 || cursor <= space) {
    const typed = line.slice(0, cursor);
    const names = ['/extensions', ...(await control.list(true)).flatMap((info) => info.commands.map((alias) => `/${alias}`))];
    return names.filter((name) => name.startsWith(typed)).map((name) => ({ line: name + line.slice(command.length), cursor: name.length, label: name }));
  }
  const body = line.slice(space + 1);
  const at = cursor - space - 1;
  const start = body.slice(0, at).search(/\S*$/);
  const after = body.slice(at).search(/\s/);
  const end = after < 0 ? body.length : at + after;
  const prefix = body.slice(start, at);
  const replace = (value: string): SlashCompletion => ({ line: `${command} ${body.slice(0, start)}${value}${body.slice(end)}`, cursor: space + 1 + start + value.length, label: value });
  if (command === '/extensions') {
    const words = body.slice(0, at).split(/\s+/);
    if (words.length === 1) return SUBCOMMANDS.filter((sub) => sub.startsWith(prefix)).map(replace);
    if (words.length === 2 && (words[0] === 'reload' || words[0] === 'unload')) return (await control.list(false)).map((info) => info.id).filter((id) => id.startsWith(prefix)).map(replace);
    return [];
  }
  if (command === '/artifact') return [];
  const points = (text: string): number => [...text].length;
  const context: ArgumentContext | undefined = options.full ? { arguments: body, cursor: points(body.slice(0, at)), start: points(body.slice(0, start)), end: points(body.slice(0, end)) } : undefined;
  return (await control.complete(command, prefix, context)).map(replace);
}

/** The control of a kernel's own host (`xdog agent chat`); `changed` runs after a reload or unload. */
export function localControl(host: ExtensionHost, changed: () => void = () => undefined): ExtensionControl {
  return {
    async list(activate) {
      if (activate) await host.activateAll();
      return host.list();
    },
    async reload(id) {
      const info = await host.reload(id);
      changed();
      return info;
    },
    async unload(id) {
      const info = await host.unload(id);
      changed();
      return info;
    },
    run: (command, args) => host.runCommandResult(command, args),
    complete: (command, prefix, context) => host.completeCommand(command, prefix, context),
  };
}

/** Extension states for people: one line per extension, then what it registered. */
export function renderExtensions(list: readonly ExtensionInfo[]): string {
  if (list.length === 0) return 'no extensions are enabled (list package names under extensions: in the config)';
  return list
    .map((info) => {
      const lines = [`${info.id}${info.version ? ` ${info.version}` : ''}: ${info.state}${info.reason ? ` (${info.reason})` : ''}${info.failClosed ? '; tool calls fail closed' : ''}`];
      for (const [what, names] of [['commands', info.commands.map((name) => `/${name}`)], ['tools', info.tools], ['providers', info.providers]] as const) {
        if (names.length) lines.push(`  ${what}: ${names.join(', ')}`);
      }
      for (const [key, text] of Object.entries(info.status)) lines.push(`  status ${key}: ${text}`);
      for (const [key, command] of Object.entries(info.shortcuts ?? {})) lines.push(`  shortcut ${key}: /${command}`);
      for (const [name, command] of Object.entries(info.publicNames ?? {})) lines.push(`  public name /${name}: /${command}`);
      for (const reason of info.refusedNames ?? []) lines.push(`  refused: ${reason}`);
      return terminalSafe(lines.join('\n'));
    })
    .join('\n');
}
