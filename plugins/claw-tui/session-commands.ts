/**
 * What each slash command does (the registry in slash-commands.ts says
 * which exist and what they need). Each one is a few gateway calls; controls
 * that change the session carry the session id the TUI shows
 * (`expectedSessionId`), so a change made meanwhile by another client is
 * refused (STALE) instead of applied to a session the user did not see.
 */
import os from 'node:os';
import path from 'node:path';
import { ErrorCodes, XdogError } from '../../core/errors.js';
import type { ClawTui } from './app.js';
import { attachedNotice } from './attachments.js';
import type { Message } from '../../core/index.js';
import { messageText, pathMessages, readTranscriptEntries, toolCallLine, toolCallsOf, type PathMessage } from './conversation.js';
import { renderConversation } from './export-formats.js';
import { BackPager, Pager, SessionBrowser, type SessionRow } from './overlays.js';
import { copyText, describeCopy } from './clipboard.js';
import { Picker } from './picker.js';
import { ModelCommands } from './model-commands.js';
import { ClawInspectors } from './claw-inspectors.js';
import { DraftCommands } from './draft-commands.js';
import { ExportCommands } from './export-commands.js';
import { environmentSecrets, redact } from '../../core/redact.js';
import { queueListing, type GatewayQueued } from './queue-view.js';
import { runGoalCommand } from './goal-commands.js';
import { missingMethods, searchCommands } from './slash-commands.js';
import type { Action } from './keybindings.js';
import { runMcpCommand } from './mcp-commands.js';
import { TranscriptCommands } from './transcript-commands.js';

const usage = (message: string, hint?: string): XdogError => new XdogError(ErrorCodes.USAGE, message, hint ? { hint } : {});

function positiveInt(text: string, what: string): number {
  if (!/^[1-9]\d*$/.test(text.trim())) throw usage(`${what} must be a positive whole number, not "${text.trim()}"`);
  return Number(text.trim());
}

interface SessionRecord {
  id: string;
  name: string | null;
  summary: string | null;
  messageCount: number;
  updatedAt: number;
}

export class SessionCommands {
  readonly models: ModelCommands;
  readonly inspectors: ClawInspectors;
  readonly drafts: DraftCommands;

  constructor(private readonly app: ClawTui) {
    this.models = new ModelCommands(app);
    this.drafts = new DraftCommands(app);
    this.inspectors = new ClawInspectors(app, this.drafts.saved);
    this.#exports = new ExportCommands(app, () => this.#conversation(), () => this.#title());
    this.#transcripts = new TranscriptCommands(app, (sessionId, leaf) => this.#conversation(sessionId ?? this.#expected, leaf), (prefix) => this.#sessionByPrefix(prefix));
  }

  readonly #exports: ExportCommands;
  readonly #transcripts: TranscriptCommands;

  async run(name: string, rest: string): Promise<void> {
    const handler: ((args: string, raw: string) => Promise<void> | void) | undefined = this.inspectors.handlers[name] ?? this.#handlers[name];
    if (!handler) throw usage(`/${name} is not available`);
    await handler(rest.trim(), rest);
  }

  /** The session id the TUI shows: what controls send as expectedSessionId. */
  get #expected(): string | null {
    return this.app.group?.activeSessionId ?? null;
  }

  #idle(what: string): void {
    if (this.app.group?.busy) throw new XdogError(ErrorCodes.BUSY, `${what} is blocked while a turn runs`, { hint: 'wait for it to end, or press Esc to abort it' });
  }

  async #switched(session: { id: string; name: string | null }, what: string): Promise<void> {
    await this.app.reload();
    this.app.notice(`${what}: ${session.name ?? session.id}`);
  }

  /** The messages on a session's path to its leaf (or to `leaf`, an entry of it). */
  async #conversation(sessionId = this.#expected, leaf?: number): Promise<PathMessage[]> {
    if (!sessionId) throw new XdogError(ErrorCodes.NOT_FOUND, 'there is no session yet', { hint: 'send a message first' });
    const leafEntryId = leaf ?? ((await this.app.call('session.show', { sessionId })) as { session: { leafEntryId: number | null } }).session.leafEntryId;
    // Through the TUI's call: inside a command job (/transcript, /export) Escape cancels the read.
    return pathMessages(await readTranscriptEntries((method, params) => this.app.call(method, params), this.app.group?.name, sessionId), leafEntryId);
  }

  /** The one session (archived ones too) whose id starts with `prefix`. */
  async #sessionByPrefix(prefix: string): Promise<SessionRecord> {
    const sessions = (await this.app.call('session.list', { limit: 200, includeArchived: true })) as SessionRecord[];
    const matches = sessions.filter((session) => session.id.startsWith(prefix));
    if (matches.length !== 1) throw usage(matches.length ? `"${prefix}" matches ${matches.length} sessions` : `no session starts with "${prefix}"`, 'give more of the id; /sessions lists them');
    return matches[0]!;
  }

  readonly #handlers: Record<string, (args: string, raw: string) => Promise<void> | void> = {
    goal: (args) => runGoalCommand(this.app, args),
    help: (query) => {
      const found = searchCommands(query);
      if (!found.length) throw usage(`no command matches "${query}"`, '/help lists them all');
      const lines = found.map((entry) => {
        const missing = missingMethods(entry, this.app.methods);
        // The key of its action as keybindings.json left it (or that the file disabled it).
        const key = entry.action ? ` (key: ${this.app.keyLabel(entry.action as Action) ?? `none, ${entry.action} disabled`})` : '';
        return `/${entry.name}${entry.usage ? ` ${entry.usage}` : ''}\n    ${entry.summary}${key}${missing.length ? ' (unsupported by this gateway)' : ''}`;
      });
      this.app.page(`commands${query ? ` matching "${query}"` : ''}`, `${lines.join('\n')}\n\nKeys: /keys${this.app.keyHint('keys', ' or')}. Start a message with // to send text that begins with /.`);
    },
    keys: () => {
      const newLine = this.app.keyLabel('newLine');
      this.app.page('keys', `${this.app.keyHelp()}\n\nreserved: Escape (abort, close) and Ctrl+L (repaint) cannot be remapped\nin the editor: ${newLine ? `${newLine} newline, ` : ''}↑↓ history, Ctrl+- undo`);
    },
    editor: () => this.app.editExternally(),
    fullscreen: () => this.#transcripts.run('fullscreen'),
    steer: (_, raw) => this.app.sendLane('steer', raw),
    'follow-up': (_, raw) => this.app.sendLane('follow_up', raw),
    queue: (args) => this.#queue(args),
    sessions: (query) => this.#sessions(query),
    tree: async () => {
      this.app.page('session tree (* on the active path; /branch ENTRY moves there)', await this.#treeText());
    },
    new: async (name) => {
      this.#idle('/new');
      const session = await this.app.call('session.new', { expectedSessionId: this.#expected, ...(name ? { name } : {}) });
      await this.#switched(session, 'new session');
    },
    clear: async () => {
      this.#idle('/clear');
      const session = await this.app.call('session.new', { expectedSessionId: this.#expected });
      await this.#switched(session, 'cleared: a fresh session');
    },
    reset: async () => {
      this.#idle('/reset');
      const session = await this.app.call('session.new', { expectedSessionId: this.#expected });
      await this.#switched(session, 'reset: a fresh session');
    },
    resume: async (id) => {
      if (!id) throw usage('/resume needs a session id (or a unique prefix)', '/sessions lists them');
      this.#idle('/resume');
      const session = await this.app.call('session.resume', { sessionId: (await this.#sessionByPrefix(id)).id, expectedSessionId: this.#expected });
      await this.#switched(session, 'resumed');
    },
    fork: async (n) => {
      this.#idle('/fork');
      const index = n ? positiveInt(n, 'N') : (await this.#conversation()).length;
      if (index === 0) throw usage('there is nothing to fork yet');
      const session = await this.app.call('session.fork', { index, expectedSessionId: this.#expected });
      await this.#switched(session, `forked at message ${index}`);
    },
    goto: async (n) => {
      if (!n) throw usage('/goto needs a message number', '/status lists them');
      this.#idle('/goto');
      const session = await this.app.call('session.goto', { index: positiveInt(n, 'N'), expectedSessionId: this.#expected });
      await this.#switched(session, `moved back to message ${n}`);
    },
    branch: async (entry) => {
      if (!entry) throw usage('/branch needs an entry id', '/tree shows them');
      this.#idle('/branch');
      const session = await this.app.call('session.branch', { entryId: positiveInt(entry, 'ENTRY'), expectedSessionId: this.#expected });
      await this.#switched(session, `moved to entry ${entry}`);
    },
    name: async (name) => {
      if (!name) {
        this.app.notice(`session name: ${this.app.session?.name ?? '(none)'}`);
        return;
      }
      const session = await this.app.call('session.name', { name: name === '-' ? null : name, expectedSessionId: this.#expected });
      if (this.app.session) this.app.session.name = session.name;
      this.app.notice(session.name ? `the session is now named "${session.name}"` : 'the session name was cleared');
    },
    model: (id) => this.models.model(id),
    thinking: (level) => this.models.thinking(level),
    draft: (args) => this.drafts.run(args),
    compact: async (focus) => {
      if (focus === 'cancel') {
        const { cancelled } = (await this.app.call('compact.cancel', {})) as { cancelled: boolean };
        this.app.notice(cancelled ? 'the compaction was cancelled; nothing was written' : 'no compaction is running');
        return;
      }
      this.#idle('/compact');
      const receipt = (await this.app.call('session.compact', { expectedSessionId: this.#expected, ...(focus ? { focus } : {}) })) as { status: 'compacted'; recoveryLabel: string } | { status: 'skipped'; reason: string };
      if (receipt.status === 'skipped') {
        this.app.notice(`nothing to compact (${receipt.reason}); the session is unchanged`);
        return;
      }
      await this.app.reload();
      this.app.notice(`the session was compacted; the full history stays on the branch "${receipt.recoveryLabel}" (see /tree)`);
    },
    status: async () => {
      const group = this.app.group;
      const messages = this.#expected ? await this.#conversation() : [];
      const head = [
        `group ${group?.name} · ${group?.busy ? 'running' : 'idle'} · gateway queue ${group?.queued ?? 0} · client queue ${this.app.queue.size}`,
        `session ${this.app.session?.id ?? '(none)'}${this.app.session?.name ? ` "${this.app.session.name}"` : ''}`,
        `model ${this.app.model} · thinking ${this.app.thinking ?? 'off'}`,
        '',
        'messages (N for /fork N and /goto N):',
      ];
      const list = messages.map((entry) => `${String(entry.index).padStart(4)} ${entry.message.role.padEnd(10)} ${statusText(entry.message)}`);
      this.app.page('status', [...head, ...list].join('\n'));
    },
    transcript: (args) => this.#transcripts.run(args),
    copy: (what) => this.#copy(what || 'response'),
    export: (args) => this.#exports.run('export', args),
    share: (args) => this.#exports.run('share', args),
    attach: (file) => {
      if (!file) throw usage('/attach needs a PATH');
      // A relative path names a file of the group's workspace, as the agent sees it (not the TUI's cwd).
      const target = expandHome(file);
      const attachment = this.app.attachments.add(path.isAbsolute(target) ? target : path.join(this.app.group?.workspace ?? process.cwd(), target));
      this.app.notice(attachedNotice(attachment));
    },
    paste: () => this.app.pasteClipboard(),
    attachments: (args) => {
      const [verb, id] = args.split(/\s+/);
      if (verb === 'clear') {
        this.app.attachments.clear();
        this.app.notice('the draft has no attachments now');
      } else if (verb === 'remove') {
        if (!id) throw usage('/attachments remove needs an ID');
        this.app.attachments.remove(id);
        this.app.notice(`removed ${id}`);
      } else if (verb) throw usage(`unknown /attachments ${verb}`, 'use /attachments, /attachments remove ID or /attachments clear');
      else {
        const list = this.app.attachments.list();
        this.app.notice(list.length ? list.map((item) => `${item.id} ${item.path} ${item.image.mimeType} ${item.bytes} bytes`).join('\n') : 'no attachments');
      }
    },
    mcp: (args) =>
      runMcpCommand(
        {
          call: (method, params) => this.app.call(method, params),
          notice: (text) => this.app.notice(text),
          draft: () => this.app.editor.getText(),
          setDraft: (text) => this.app.editor.setText(text),
          expectedSessionId: () => this.#expected,
          busy: () => this.app.group?.busy === true,
        },
        args,
      ),
    quit: () => this.app.quit(),
  };

  /** A session's entry tree as indented lines (default: the active session). */
  async #treeText(sessionId?: string): Promise<string> {
    // Loaded at use: the sessions plugin's face brings the store's modules, which the chat never needs otherwise.
    const { readWholeTree, treeOutline } = await import('../sessions/index.js');
    const tree = await readWholeTree((next) => this.app.call('session.tree', next ? { sessionId: next.sessionId, cursor: next.cursor } : sessionId ? { sessionId } : {}));
    const lines = treeOutline(tree.entries).map(
      ({ entry, depth }) =>
        `${'  '.repeat(depth)}${entry.onPath ? '*' : ' '} ${entry.id} ${entry.kind}${entry.kind === 'message' ? ` ${entry.payload.message.role}: ${messageText(entry.payload.message).replace(/\s+/g, ' ').slice(0, 80)}` : ''}`,
    );
    return lines.join('\n') || '(empty)';
  }

  #title(): string {
    return `xdog · ${this.app.group?.name ?? ''} · ${this.app.session?.name ?? this.app.session?.id ?? ''}`;
  }

  async #queue(args: string): Promise<void> {
    const match = /^(\S+)?\s*(\S+)?\s*([\s\S]*)$/.exec(args)!;
    const [, verb, id, text] = match;
    const queue = this.app.queue;
    if (!verb) {
      const gateway = this.app.methods.has('queue.list') ? ((await this.app.call('queue.list', {})) as GatewayQueued[]) : undefined;
      this.app.notice(queueListing(queue.list(), gateway, this.app.queueHeld));
      return;
    }
    if (verb === 'resume') {
      this.app.resumeQueue();
      return;
    }
    if (!id) throw usage(`/queue ${verb} needs an ID`, '/queue lists them');
    if (verb === 'edit') {
      if (!text) throw usage('/queue edit needs ID and the new TEXT');
      queue.edit(id, text);
    } else if (verb === 'remove') queue.remove(id);
    else if (verb === 'move') {
      if (text !== 'up' && text !== 'down') throw usage('/queue move needs ID and up or down');
      queue.move(id, text);
    } else throw usage(`unknown /queue ${verb}`, 'use /queue, /queue edit ID TEXT, /queue remove ID, /queue move ID up|down, /queue resume');
    this.app.notice(`queue: ${queue.list().map((turn) => turn.id).join(', ') || 'empty'}`);
  }

  async #sessions(query: string): Promise<void> {
    const toRows = (sessions: SessionRecord[]): SessionRow[] => sessions.map((session) => ({ ...session, active: session.id === this.#expected }));
    const search = async (text: string): Promise<SessionRow[]> => toRows((await this.app.call(text ? 'session.search' : 'session.list', text ? { query: text } : { limit: 200 })) as SessionRecord[]);
    const browser = new SessionBrowser(await search(query), () => this.app.tui.terminal.rows - 2, {
      search,
      activate: (row) => {
        this.app.closeOverlay();
        if (row.active) return;
        void this.app.submit(`/resume ${row.id}`, '');
      },
      view: (row) => {
        this.#conversation(row.id).then(
          (messages) => this.app.page(`session ${row.id} (read-only)`, renderConversation(messages, 'text', environmentSecrets())),
          (error: unknown) => this.app.error(error),
        );
      },
      create: () => {
        this.app.closeOverlay();
        void this.app.submit('/new', '');
      },
      close: () => this.app.closeOverlay(),
      tree: (row) => {
        this.#treeText(row.id).then(
          (text) => {
            // ← (or q, Escape) goes back to the browser, where it was.
            const back = (): void => this.app.showOverlay(browser);
            this.app.showOverlay(new BackPager(new Pager(`tree of session ${row.id.slice(0, 8)} (* its path) · ← back`, text, () => this.app.tui.terminal.rows - 2, back), back));
          },
          (error: unknown) => this.app.error(error),
        );
      },
    }, () => this.app.tui.requestRender());
    this.app.showOverlay(browser);
  }

  async #copy(what: string): Promise<void> {
    if (what === 'cancel') {
      if (!this.#copyPicker) throw usage('there is no copy to cancel', '/copy selection opens one');
      this.#copyPicker = undefined;
      this.app.closeOverlay();
      this.app.notice('copy cancelled; nothing was copied');
      return;
    }
    const messages = await this.#conversation();
    const lastText = (role?: string) => messages.findLast((entry) => (!role || entry.message.role === role) && messageText(entry.message));
    let text: string;
    if (what === 'response') text = lastText('assistant') ? messageText(lastText('assistant')!.message) : '';
    else if (what === 'entry') text = messages.at(-1) ? messageText(messages.at(-1)!.message) : '';
    else if (what === 'conversation' || what === 'all') text = renderConversation(messages, 'text', []);
    else if (what === 'selection') return this.#copySelection(messages);
    else throw usage(`/copy takes response, entry, selection, all (conversation) or cancel, not "${what}"`);
    if (!text) throw new XdogError(ErrorCodes.NOT_FOUND, `there is no ${what} to copy yet`);
    await this.#copyOut(text, what);
  }

  async #copyOut(text: string, what: string): Promise<void> {
    const outcome = await copyText(redact(text, environmentSecrets()), (data) => this.app.tui.terminal.write(data), what);
    this.app.notice(describeCopy(outcome, what));
  }

  #copyPicker: Picker | undefined;

  /** `/copy selection`: pick one message (newest first); Esc or `/copy cancel` copies nothing. */
  #copySelection(messages: PathMessage[]): void {
    const shown = messages.filter((entry) => messageText(entry.message)).reverse();
    if (!shown.length) throw new XdogError(ErrorCodes.NOT_FOUND, 'there is no message to copy yet');
    const close = (): void => {
      this.#copyPicker = undefined;
      this.app.closeOverlay();
    };
    this.#copyPicker = new Picker({
      title: 'copy which message? (Esc cancels)',
      items: shown.map((entry) => ({ value: String(entry.index), label: `#${entry.index} ${entry.message.role}`, detail: messageText(entry.message).replace(/\s+/g, ' ').slice(0, 120) })),
      height: () => this.app.tui.terminal.rows - 2,
      close: () => {
        close();
        this.app.notice('copy cancelled; nothing was copied');
      },
      pick: (item) => {
        close();
        const entry = shown.find((candidate) => String(candidate.index) === item.value)!;
        this.#copyOut(messageText(entry.message), `message #${entry.index}`).catch((error: unknown) => this.app.error(error));
      },
    });
    this.app.showOverlay(this.#copyPicker);
  }
}

function expandHome(file: string): string {
  return file === '~' || file.startsWith('~/') ? path.join(os.homedir(), file.slice(1)) : file;
}

/** A message in one line of /status: its text, else (a reply that only calls tools) its calls. */
export function statusText(message: Message): string {
  const text = messageText(message).replace(/\s+/g, ' ').trim();
  const calls = toolCallsOf(message).map((call) => `→ ${toolCallLine(call.name, call.arguments, 60)}`);
  return [text.slice(0, 100), ...calls].filter(Boolean).join(' ') || '(empty)';
}
