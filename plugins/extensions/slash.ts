/**
 * The extension commands of interactive front ends (the claw TUI, `xdog agent
 * chat`): `/extensions [list|reload ID|unload ID]` and `/ext-ID-NAME ARGS`,
 * with completion. A front end supplies an `ExtensionControl`: the kernel's
 * own host in the chat, gateway methods in the TUI. `/extensions`, an
 * extension command and completing one start the enabled extensions (lazy
 * activation).
 */
import { ErrorCodes, XdogError } from '../../core/errors.js';
import { terminalSafe } from '../../core/terminal-text.js';
import type { ExtensionHost, ExtensionInfo } from './host.js';

export interface ExtensionControl {
  /** The enabled extensions; with `activate`, after starting the inactive ones. */
  list(activate: boolean): Promise<ExtensionInfo[]>;
  reload(id: string): Promise<ExtensionInfo>;
  unload(id: string): Promise<ExtensionInfo>;
  /** Runs `/ext-ID-NAME` with its argument text; the text it shows. */
  run(command: string, args: string): Promise<string>;
  complete(command: string, prefix: string): Promise<string[]>;
}

const SUBCOMMANDS = ['list', 'reload', 'unload'] as const;

/** True for `/extensions …` and `/ext-…`: text a front end hands to `runExtensionSlash`. */
export function isExtensionSlash(text: string): boolean {
  return /^\/ext(ensions(\s|$)|-)/.test(text.trimStart());
}

/** True for the commands that restart or stop an extension (front ends refuse them while a run streams). */
export function changesExtensions(text: string): boolean {
  return /^\/extensions\s+(reload|unload)\b/.test(text.trim());
}

/** Runs one extension slash command; the text to show. */
export async function runExtensionSlash(control: ExtensionControl, text: string): Promise<string> {
  const [word, ...rest] = text.trim().split(/\s+/);
  if (word !== '/extensions') {
    const args = text.trimStart().slice(word!.length).replace(/^[ \t]/, '');
    return (await control.run(word!, args)) || `(${word} showed nothing)`;
  }
  const [sub = 'list', id, ...extra] = rest;
  if (sub === 'list' && !id) return renderExtensions(await control.list(true));
  if ((sub === 'reload' || sub === 'unload') && id && extra.length === 0) return renderExtensions([await control[sub](id)]);
  throw new XdogError(ErrorCodes.USAGE, `usage: /extensions [list|reload ID|unload ID]`, { hint: 'extension commands are /ext-ID-NAME; /extensions lists them' });
}

/** Whole-line completions of an extension slash command being typed (none for other text). */
export async function completeExtensionSlash(control: ExtensionControl, line: string): Promise<string[]> {
  if (!/^\/ext/.test(line)) return [];
  const space = line.indexOf(' ');
  if (space < 0) {
    const names = ['/extensions', ...(await control.list(true)).flatMap((info) => info.commands.map((alias) => `/${alias}`))];
    return names.filter((name) => name.startsWith(line));
  }
  const command = line.slice(0, space);
  const argument = line.slice(space + 1);
  if (command === '/extensions') {
    const words = argument.split(/\s+/);
    if (words.length === 1) return SUBCOMMANDS.filter((sub) => sub.startsWith(words[0]!)).map((sub) => `/extensions ${sub}`);
    if (words.length === 2 && (words[0] === 'reload' || words[0] === 'unload')) {
      return (await control.list(false)).map((info) => info.id).filter((id) => id.startsWith(words[1]!)).map((id) => `/extensions ${words[0]} ${id}`);
    }
    return [];
  }
  return (await control.complete(command, argument)).map((item) => `${command} ${item}`);
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
    run: (command, args) => host.runCommand(command, args),
    complete: (command, prefix) => host.completeCommand(command, prefix),
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
      return terminalSafe(lines.join('\n'));
    })
    .join('\n');
}
