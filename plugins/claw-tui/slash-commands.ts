/**
 * The TUI's slash commands: one registry that the dispatcher, `/help` and
 * the docs read, and a parser. A command that needs a gateway method the
 * gateway did not list in `hello` is "unsupported by this gateway": it is not
 * sent and the draft stays in the editor.
 */
import { ErrorCodes, XdogError } from '../../core/errors.js';

export interface SlashCommand {
  name: string;
  /** Argument synopsis, e.g. `[N]` or `PATH [text|md|json]`. */
  usage: string;
  summary: string;
  /** Gateway methods it calls; when one is missing from `hello`, the command is unsupported. */
  needs: readonly string[];
  /** A shortcut action (see keybindings.ts) that runs it too: /help names its keys from the current map. */
  action?: string;
}

const command = (name: string, usage: string, summary: string, needs: readonly string[] = [], action?: string): SlashCommand => ({ name, usage, summary, needs, ...(action ? { action } : {}) });

/** Every command, in the order /help lists them. */
export const SLASH_COMMANDS: readonly SlashCommand[] = [
  command('help', '[QUERY]', 'list the commands (those matching QUERY)'),
  command('keys', '', 'list the key bindings, and the extension shortcuts', [], 'keys'),
  command('editor', '', 'edit the draft in $VISUAL, $EDITOR or vi; the result replaces the draft and is not sent', [], 'externalEditor'),
  command('steer', 'TEXT', 'steer the running turn: TEXT reaches the model at its next step', ['steer'], 'steer'),
  command('follow-up', 'TEXT', 'queue TEXT on the gateway to run right after the current turn', ['follow_up'], 'followUp'),
  command('queue', '[edit ID TEXT|remove ID|move ID up|down|resume]', "list the gateway's (iN) and the client's (qN) queued inputs, or change the client's", [], 'queue'),
  command('sessions', '[QUERY]', 'browse the sessions: / search, Enter activate, n new, v view, r refresh, → its tree', ['session.list', 'session.search', 'session.resume'], 'sessions'),
  command('tree', '', "show the active session's entry tree", ['session.tree'], 'tree'),
  command('new', '[NAME]', 'start a new session and make it active', ['session.new']),
  command('resume', 'ID', 'make session ID (or a unique prefix) active', ['session.resume', 'session.list']),
  command('fork', '[N]', 'a new session holding the first N messages (default: all)', ['session.fork', 'session.show']),
  command('branch', 'ENTRY', 'move the leaf to entry ENTRY (see /tree)', ['session.branch']),
  command('goto', 'N', 'move the leaf back to message N (see /status)', ['session.goto']),
  command('name', '[NAME|-]', 'show, set or (with -) clear the session name', ['session.name']),
  command('model', '[ID]', 'pick a model the gateway serves, or change to ID (its key cycles)', ['session.model', 'models.list'], 'cycleModel'),
  command('thinking', '[LEVEL|off]', "pick the model's thinking level, or set LEVEL (its key cycles)", ['session.thinking', 'models.list'], 'cycleThinking'),
  command('compact', '[FOCUS|cancel]', 'summarize older messages to free context (cancel: stop a running one)', ['session.compact']),
  command('status', '', 'group, session, model, queue and the numbered messages', ['group.status', 'session.show']),
  command('reset', '', 'start a fresh session (refused while a turn runs)', ['session.new']),
  command('clear', '', 'a fresh session and an empty chat below what the terminal keeps in its scrollback (refused while a turn runs)', ['session.new']),
  command('transcript', '[QUERY|fullscreen|branch ENTRY|saved SESSION [ENTRY]]', 'the transcript browser: the whole redacted source (reasoning, tool arguments and results); / and n/N search, v range, a message, y copy, e export, f fullscreen', ['transcript.read'], 'transcript'),
  command('fullscreen', '', 'the transcript browser straight in its fullscreen mode, on the alternate screen (as /transcript fullscreen)', ['transcript.read'], 'fullscreen'),
  command('copy', '[response|entry|selection|all|cancel]', 'copy the last response (default), last entry, a picked message or the conversation', ['transcript.read'], 'copy'),
  command('export', 'PATH [text|md|json|html] [full] [N-M]|cancel', 'review, then write the conversation (user and assistant text; full: with reasoning and tools) to a new 0600 file', ['transcript.read']),
  command('share', 'PATH [full] [N-M]|cancel', 'review, then write the conversation as a standalone HTML page (secrets redacted)', ['transcript.read']),
  command('attach', 'PATH', 'attach a PNG, JPEG or WebP image to the draft'),
  command('paste', '', "attach the clipboard's image, or put its text in the draft (wl-paste or xclip)", [], 'paste'),
  command('attachments', '[remove ID|clear]', "list or drop the draft's images"),
  command('goal', '[set TEXT|pause|resume|done|abandon]', "show the group's goal, or set or change it", ['goal.get']),
  command('extensions', '[list|reload ID|unload ID]', 'start and list the enabled extensions, or reload/unload one (idle); /ext-ID-NAME ARGS (or its public name /NAME) runs an extension command (Tab completes)', ['extensions.list']),
  command('artifact', '[save] PATH', 'save the latest rich extension command result to a new 0600 file (xdog.extension-command/v1), or show a saved one (read-only)'),
  command('mcp', 'ACTION ...', "the group's MCP servers: list, connect/disconnect/refresh SERVER, tools, resources, prompts, read/prompt previews, insert (into the draft, labelled untrusted)", ['mcp.list']),
  command('plan', '[start OBJECTIVE|execute [REV]|revise [REV]|stop [REV]]', 'the plan inspector (steps, revision; e execute, r revise, s stop), or change plan mode', ['plan.show']),
  command('skills', '[load NAME... [--turn]|unload NAME...|all]', "the group's skills: Enter loads or unloads one for the session, t for the next turn", ['skills.list']),
  command('agents', '[start [--inherit] TASK|inspect|steer|follow-up|cancel|wait|close ID [TEXT]|edit-input|remove-input|move-input ID N [TEXT|up|down]|drafts|draft start TASK|draft steer|follow-up ID TEXT]', 'the child agents: a live roster (s steer, f follow-up with the draft, S/F save it as a draft, d drafts, c cancel, w wait, Enter transcript)', ['agents.list']),
  command('tools', '[QUERY]', 'the tools the agent gets, searchable; Enter shows one with its parameters', ['tools.list']),
  command('readonly', '[on|off]', "show or change the group's read-only scope (on denies tools that write)", ['readonly.status']),
  command('diff', '', "the git changes of the group's workspace (r refreshes)", ['workspace.diff'], 'diff'),
  command('draft', '[save TEXT|restore|clear|saved [list|ID]]', 'the draft kept on disk between runs (saved when you quit, restored at start); saved: the snapshots the keepDraft key keeps (/keys)'),
  command('quit', '', 'leave the TUI (the gateway keeps running)'),
];

export interface ParsedCommand {
  command: SlashCommand;
  /** Everything after the name, with the one separating space removed. */
  rest: string;
}

/** True when the draft is a command (starts with `/` and a letter); `//text` is sent as `/text`. */
export function isCommand(text: string): boolean {
  return /^\/[a-z]/i.test(text);
}

export function parseCommand(text: string): ParsedCommand {
  const match = /^\/([a-z][a-z-]*)(?:[ \t]+([\s\S]*))?$/i.exec(text.trimEnd());
  const name = match?.[1]?.toLowerCase();
  const found = SLASH_COMMANDS.find((entry) => entry.name === name);
  if (!match || !found) {
    const word = /^\/(\S*)/.exec(text)?.[1] ?? '';
    throw new XdogError(ErrorCodes.USAGE, `unknown command /${word}`, { hint: '/help lists the commands; start with // to send a message that begins with /' });
  }
  return { command: found, rest: match[2] ?? '' };
}

/** The commands a gateway that offers `methods` cannot serve. */
export function missingMethods(entry: SlashCommand, methods: ReadonlySet<string>): string[] {
  return entry.needs.filter((method) => !methods.has(method));
}

export function unsupported(entry: SlashCommand, methods: ReadonlySet<string>): XdogError | undefined {
  const missing = missingMethods(entry, methods);
  if (missing.length === 0) return undefined;
  return new XdogError(ErrorCodes.UNSUPPORTED, `/${entry.name} is unsupported by this gateway (it lacks ${missing.join(', ')})`, { hint: 'run a gateway of the same xdog version as this client' });
}

/** Commands whose name, usage or summary contain `query` (all without one). */
export function searchCommands(query: string): SlashCommand[] {
  const needle = query.trim().toLowerCase();
  return SLASH_COMMANDS.filter((entry) => !needle || `${entry.name} ${entry.usage} ${entry.summary}`.toLowerCase().includes(needle));
}
