/**
 * The host commands of the interactive `xdog agent chat` (the seed's host-app
 * commands): one registry that the dispatcher, `/help` and Tab completion
 * read. A command that changes state (`changes`) is refused while a run
 * streams; the dispatcher then keeps the typed line. Their output is shown on
 * stderr, never sent to the model.
 */
import os from 'node:os';
import path from 'node:path';
import { ErrorCodes, XdogError, environmentSecrets, type Agent, type ModelRegistry } from '../../../core/index.js';
import { renderConversation, spokenText, type ExportFormat } from '../../../core/conversation-export.js';
import type { DraftFile } from '../../../core/draft-file.js';
import type { MemoryAccessScope } from '../../../plugins/access/index.js';
import type { MemoryChildRuntime } from '../../../plugins/children/index.js';
import { writeAll, writeFileAtomic } from '../../claw/_lib/atomic-file.js';
import { listModels, modelLines } from './model-listing.js';
import type { ChatHeader, SavedChats } from './saved-chats.js';

/** The chat a command works on. */
export interface ChatHost {
  agent: Agent;
  registry: ModelRegistry;
  cwd: string;
  access: MemoryAccessScope;
  /** The chat's children (undefined without the agent tool). */
  children?: MemoryChildRuntime;
  draft: DraftFile;
  /** Set with --session: where the chat is kept, and its header. */
  saved?: { store: SavedChats; header: ChatHeader };
  /** Puts text into the input line (for /draft load). */
  setLine(text: string): void;
  /** Aborts a running /compact (Ctrl+C). */
  compaction?: AbortController;
}

export interface ChatCommand {
  name: string;
  usage: string;
  summary: string;
  /** Words the first argument may be (Tab completes them). */
  words?: readonly string[];
  /** True when this use changes the chat's state (refused while a run streams). */
  changes?(argument: string): boolean;
  /** Runs it; the text returned is shown. Absent for the commands the loop itself handles. */
  run?(host: ChatHost, argument: string): Promise<string> | string;
}

const usage = (message: string, hint: string): XdogError => new XdogError(ErrorCodes.USAGE, message, { hint });

/** Saves a kept chat after a change (persisted before it is shown); a chat without --session is not written. */
export async function saveChat(host: ChatHost, change: (header: ChatHeader) => ChatHeader = (header) => header): Promise<void> {
  if (!host.saved) return;
  host.saved.header = await host.saved.store.save(change(host.saved.header), host.agent);
}

async function readonly(host: ChatHost, argument: string): Promise<string> {
  const verb = argument.trim() || 'status';
  if (verb === 'status') return `read-only scope: ${(await host.access.mode()) === 'read-only' ? 'on (only read, ls, grep, find and current_time run)' : 'off'}`;
  if (verb !== 'on' && verb !== 'off') throw usage(`/readonly takes on, off or status, not "${verb}"`, '/readonly status shows it; /readonly on|off changes it');
  const readOnly = verb === 'on';
  // Persisted before it takes effect: a save that fails leaves the scope as it was.
  await saveChat(host, (header) => ({ ...header, readOnly }));
  host.access.set(readOnly ? 'read-only' : 'full');
  const kept = host.saved ? ` (kept with chat "${host.saved.header.name}")` : ' (this chat only; --session NAME keeps it)';
  return readOnly ? `read-only scope on: only read, ls, grep, find and current_time run${kept}` : `read-only scope off${kept}`;
}

function tools(host: ChatHost, filter: string): string {
  const needle = filter.trim().toLowerCase();
  const active = host.agent.activeTools.filter((tool) => !needle || `${tool.name} ${tool.description}`.toLowerCase().includes(needle));
  const head = `${active.length} active tool(s)${needle ? ` matching "${filter.trim()}"` : ''}`;
  return [head, ...active.map((tool) => `  ${tool.name} — ${tool.description.split('\n')[0]}`)].join('\n');
}

async function model(host: ChatHost, id: string): Promise<string> {
  const current = host.agent.config.model;
  if (!id.trim()) {
    const lines = modelLines(listModels(host.registry), current);
    return [`models the providers serve (current ${current}; /model ID switches):`, ...(lines.length ? lines : ['(none listed)'])].join('\n');
  }
  const resolved = host.registry.resolve(id.trim());
  const before = current;
  host.agent.setModel(resolved.qualified);
  try {
    await saveChat(host);
  } catch (error) {
    host.agent.setModel(before);
    throw error;
  }
  return `model: ${resolved.qualified}`;
}

async function compact(host: ChatHost, focus: string): Promise<string> {
  host.compaction = new AbortController();
  try {
    const result = await host.agent.compact(focus.trim() || undefined, { signal: host.compaction.signal });
    if (!result.compacted) return `nothing compacted: ${result.message}`;
    await saveChat(host);
    return `compacted: ${result.before} → ${result.after} messages, ${result.tokensBefore} → ${result.tokensAfter} tokens`;
  } finally {
    host.compaction = undefined;
  }
}

function agents(host: ChatHost, argument: string): string {
  if (argument.trim() === 'saved') throw new XdogError(ErrorCodes.UNSUPPORTED, "this chat's child agents live in memory and end with it; none are saved", { hint: '/agents lists the live ones' });
  if (argument.trim()) throw usage(`/agents takes no "${argument.trim()}"`, '/agents lists the child agents');
  if (!host.children) return 'no child agents: this chat has no agent tool (it comes with the built-in tools; --no-tools leaves it out)';
  const children = host.children.list();
  if (!children.length) return 'no child agents yet (the model starts them with the agent tool)';
  return children
    .map((child) => {
      const outcome = child.error ? ` error: ${child.error}` : child.result ? ` result: ${child.result.split('\n')[0]}` : '';
      return `${child.id} ${child.status}${child.label ? ` [${child.label}]` : ''} (${child.access}, ${child.modelCalls} model call(s), ${child.tokens} tokens): ${child.task.split('\n')[0]}${outcome}`;
    })
    .join('\n');
}

async function name(host: ChatHost, given: string): Promise<string> {
  const saved = host.saved;
  if (!saved) throw new XdogError(ErrorCodes.INVALID_STATE, 'this chat is not kept, so it has no name', { hint: 'start it with --session NAME to keep (and name) it' });
  if (!given.trim()) return `this chat is "${saved.header.name}" (${saved.header.id})`;
  const checked = saved.store.checkName(given.trim(), saved.header.id);
  await saveChat(host, (header) => ({ ...header, name: checked }));
  return `this chat is now "${checked}"; --session ${checked} resumes it`;
}

function sessions(host: ChatHost): string {
  const store = host.saved?.store;
  if (!store) throw new XdogError(ErrorCodes.INVALID_STATE, 'this chat is not kept: saved chats are listed in a chat started with --session', { hint: 'start one with --session NAME' });
  const { chats, more } = store.list();
  if (!chats.length) return 'no saved chats yet (this one is written at its first answer)';
  const lines = chats.map((chat) => {
    if (!('header' in chat)) return `  (unreadable) ${chat.problem}`;
    const { header } = chat;
    return `${header.id === host.saved?.header.id ? '*' : ' '} ${header.name}  ${header.model}  ${header.messages} message(s)  last used ${header.updatedAt}  (${header.id})`;
  });
  return [`saved chats (${store.dir}), newest first:`, ...lines, ...(more ? [`and ${more} more, not listed`] : [])].join('\n');
}

function formatOf(file: string): { format: ExportFormat; label: string } {
  if (file.endsWith('.md') || file.endsWith('.markdown')) return { format: 'md', label: 'Markdown' };
  if (file.endsWith('.jsonl')) return { format: 'jsonl', label: 'JSON Lines' };
  throw usage(`/export writes Markdown (.md) or JSON Lines (.jsonl), not ${path.basename(file)}`, 'e.g. /export chat.md or /export chat.jsonl --all');
}

async function exportChat(host: ChatHost, argument: string): Promise<string> {
  const words = argument.split(/\s+/).filter(Boolean);
  const all = words.includes('--all');
  const force = words.includes('--force');
  const rest = words.filter((word) => word !== '--all' && word !== '--force');
  if (rest.length !== 1) throw usage('/export needs one PATH', '/export PATH.md|PATH.jsonl [--all] [--force]');
  const given = rest[0]!;
  const file = path.resolve(host.cwd, given === '~' || given.startsWith('~/') ? path.join(os.homedir(), given.slice(1)) : given);
  const { format, label } = formatOf(file);
  const numbered = host.agent.messages.map((message, index) => ({ index: index + 1, message }));
  const messages = all ? numbered : spokenText(numbered);
  if (!messages.length) throw new XdogError(ErrorCodes.NOT_FOUND, 'there is nothing to export yet', { hint: 'send a message first' });
  const data = Buffer.from(renderConversation(messages, format, environmentSecrets(), 'xdog chat'), 'utf8');
  try {
    await writeFileAtomic(file, (fd) => writeAll(fd, data), { overwrite: force });
  } catch (error) {
    if (XdogError.is(error, ErrorCodes.CONFLICT)) throw new XdogError(ErrorCodes.CONFLICT, error.message, { hint: 'add --force to replace it, or choose another file name' });
    throw error;
  }
  return `exported ${messages.length} message(s) to ${file} (${label}, 0600; ${all ? 'with tool calls and results' : 'user and assistant text only; --all adds tools'})`;
}

function draft(host: ChatHost, argument: string): string {
  const [verb = 'show', ...rest] = argument.trim().split(/\s+/).filter(Boolean);
  const text = argument.trim().slice(verb.length).trim();
  if (verb === 'save') {
    if (!text) throw usage('/draft save needs the TEXT to keep', '/draft save TEXT; Ctrl+C with a line typed keeps it too');
    host.draft.save(text);
    return `draft saved to ${host.draft.file}; the next chat puts it back in the input line`;
  }
  if (verb === 'load') {
    const saved = host.draft.read();
    if (saved === undefined) return `there is no saved draft (${host.draft.file})`;
    if (saved.includes('\n')) throw new XdogError(ErrorCodes.INVALID_STATE, `the saved draft in ${host.draft.file} has line breaks; the chat's input line takes one line`, { hint: 'open the file in an editor, or /draft clear' });
    host.draft.clear();
    host.setLine(saved);
    return `restored the saved draft (${saved.length} characters)`;
  }
  if (verb === 'clear') {
    host.draft.clear();
    return 'the saved draft was removed';
  }
  if (verb === 'show' && rest.length === 0) {
    const saved = host.draft.read();
    return saved === undefined ? `no saved draft (${host.draft.file})` : `saved draft (${saved.length} characters) in ${host.draft.file}; /draft load puts it in the input line`;
  }
  throw usage(`unknown /draft ${verb}`, '/draft, /draft save TEXT, /draft load, /draft clear');
}

const always = (): boolean => true;

/** Every command of the interactive chat, in the order /help lists them. */
export const CHAT_COMMANDS: readonly ChatCommand[] = [
  { name: 'help', usage: '', summary: 'list the commands' },
  { name: 'steer', usage: 'TEXT', summary: 'add TEXT to the running turn (at its next step)' },
  { name: 'follow-up', usage: 'TEXT', summary: 'queue TEXT to run right after the running turn' },
  { name: 'readonly', usage: '[on|off|status]', summary: 'the read-only scope: only read, ls, grep, find and current_time run', words: ['on', 'off', 'status'], changes: (argument) => ['on', 'off'].includes(argument.trim()), run: readonly },
  { name: 'tools', usage: '[FILTER]', summary: 'the active tools (those whose name or description contains FILTER)', run: (host, argument) => tools(host, argument) },
  { name: 'model', usage: '[ID]', summary: 'list the models the providers serve, or switch to ID', changes: (argument) => argument.trim() !== '', run: model },
  { name: 'compact', usage: '[FOCUS]', summary: 'summarize older messages to free context (Ctrl+C stops it)', changes: always, run: compact },
  { name: 'agents', usage: '', summary: "this chat's child agents with their status", words: ['saved'], run: (host, argument) => agents(host, argument) },
  { name: 'name', usage: '[NAME]', summary: 'show or set the name of this kept chat (--session)', changes: (argument) => argument.trim() !== '', run: name },
  { name: 'sessions', usage: '', summary: 'the saved chats: name, model, messages, last use', run: (host) => sessions(host) },
  { name: 'export', usage: 'PATH.md|PATH.jsonl [--all] [--force]', summary: 'write the conversation (user and assistant text; --all: with tools) to a new 0600 file', words: ['--all', '--force'], run: exportChat },
  { name: 'draft', usage: '[save TEXT|load|clear]', summary: 'the draft kept on disk between chats (Ctrl+C with a line typed keeps it)', words: ['save', 'load', 'clear'], run: (host, argument) => draft(host, argument) },
  { name: 'extensions', usage: '[list|reload ID|unload ID]', summary: 'the enabled extensions; /ext-ID-NAME ARGS (or its public name /NAME) runs an extension command' },
  { name: 'artifact', usage: '[save] PATH', summary: "save the latest rich extension result to a new 0600 file, or show a saved one (read-only)", words: ['save'] },
  { name: 'quit', usage: '', summary: 'leave the chat (also /exit; Ctrl+C aborts a run, twice exits)' },
];

export function findCommand(name: string): ChatCommand | undefined {
  return CHAT_COMMANDS.find((command) => command.name === name);
}

export function helpText(): string {
  return ['commands:', ...CHAT_COMMANDS.map((command) => `  /${command.name}${command.usage ? ` ${command.usage}` : ''} — ${command.summary}`)].join('\n');
}

/** Completions of the chat's own commands for `line` (names, then argument words, then model ids). */
export function completeCommand(line: string, registry?: ModelRegistry): string[] {
  const typedName = /^\/([a-z-]*)$/i.exec(line);
  if (typedName) return CHAT_COMMANDS.filter((command) => command.name.startsWith(typedName[1]!.toLowerCase())).map((command) => `/${command.name}`);
  const typedArgument = /^\/([a-z-]+) (\S*)$/i.exec(line);
  if (!typedArgument) return [];
  const command = findCommand(typedArgument[1]!.toLowerCase());
  const words = command?.name === 'model' && registry ? registry.models().map((info) => `${info.provider}/${info.id}`) : (command?.words ?? []);
  return words.filter((word) => word.startsWith(typedArgument[2]!)).map((word) => `/${command!.name} ${word}`);
}
