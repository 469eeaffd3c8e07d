/**
 * `xdog claw tui`: a terminal client of the gateway. Everything it does goes
 * through the gateway protocol (another client could do the same): it
 * subscribes to one group, shows the active session, sends what is typed,
 * and follows the runs as events. It never resends: a send whose answer was
 * lost goes back to the editor and the user is told; after a reconnect the
 * client reads the state from the gateway and holds its own queue until the
 * user resumes it.
 */
import crypto from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Editor, KeybindingsManager, matchesKey, ProcessTerminal, setKeybindings, Text, TUI, TUI_KEYBINDINGS, type Component, type KeyId, type OverlayHandle, type Terminal } from '@mariozechner/pi-tui';
import { ErrorCodes, XdogError } from '../../core/errors.js';
import type { ImageContent, Message } from '../../core/index.js';
import { LIMITS } from '../../core/limits.js';
import { terminalSafe } from '../../core/terminal-text.js';
import { CommandJobs } from './command-jobs.js';
import { prepareImages, type GatewayConnection, type GroupStatus, type PromptReceipt } from '../claw-gateway/index.js';
import type { TodoView } from '../todos/index.js';
import type { GoalView } from '../claw-goals/index.js';
import { goalLine } from './goal-commands.js';
import { renderKeysAtOnce } from './key-render.js';
import { Attachments, attachedNotice, attachmentPreview } from './attachments.js';
import { readClipboard } from './clipboard.js';
import { ChatView, StreamingReply, style } from './chat-view.js';
import { pathMessages, readTranscriptEntries } from './conversation.js';
import { SessionCommands } from './session-commands.js';
import { InputQueue, checkInputText, type QueuedTurn } from './input-queue.js';
import { ACTIONS, actionKeyLabel, loadKeybindings, type Action, type Bindings } from './keybindings.js';
import { editDraft } from './external-editor.js';
import { Pager } from './overlays.js';
import { DetailsViewer } from './details-view.js';
import { FrameBatch } from './frame-batch.js';
import { TuiApprovals } from './approvals-view.js';
import { TuiElicitations } from './elicitations-view.js';
import { isCommand, parseCommand, unsupported } from './slash-commands.js';
import { TuiExtensions } from './extension-commands.js';
import { installFastLayout } from './fast-editor.js';
import { tuiCompletion } from './completion.js';
import { repaintViewport, suspend } from './repaint.js';
import { queuedNotice, queuePreview, restoredDraft, resumeRefusal } from './queue-view.js';

export interface ClawTuiOptions {
  /** The group to attach to (default: the gateway's default group). */
  group?: string;
  /** Opens a connection (called again to reconnect). */
  connect(): Promise<GatewayConnection>;
  keybindingsFile: string;
  /** Defaults to the process's terminal. */
  terminal?: Terminal;
  /** Pause between reconnect attempts. */
  reconnectDelayMs?: number;
}

/** Actions of keybindings.ts the claw features handle (claw-inspectors.ts, model-commands.ts, the slash commands). */
const FEATURE_ACTIONS = ['cycleModel', 'cycleThinking', 'diff', 'sessions', 'transcript', 'copy', 'paste', 'agents', 'keepDraft', 'keys', 'tree', 'fullscreen'] as const satisfies readonly Action[];

/** Errors of the transport, not answers of the gateway: the request may or may not have been received. */
const UNCERTAIN: readonly string[] = [ErrorCodes.UNAVAILABLE, ErrorCodes.CLOSED];

interface SessionInfo {
  id: string;
  name: string | null;
  leafEntryId: number | null;
  messageCount: number;
}

export class ClawTui {
  readonly tui: TUI;
  readonly chat = new ChatView();
  readonly editor: Editor;
  readonly queue = new InputQueue();
  readonly attachments: Attachments;
  readonly #status = new Text('', 1, 0);
  /** The model's todo list in one line ("todos 2/5 done · now: …"); empty without one. */
  readonly #todos = new Text('', 1, 0);
  readonly #footer = new Text('', 1, 0);
  /** The client's queued turns in one compact line (their full text stays in the queue). */
  readonly #queueLine = new Text('', 1, 0);
  /** The draft's images in one line (what goes with the next message). */
  readonly #attachLine = new Text('', 1, 0);
  readonly #bindings: Bindings;
  readonly #commands: SessionCommands;
  readonly #extensions: TuiExtensions;
  /** Commands the person waits for; Escape cancels the newest. */
  readonly #jobs = new CommandJobs();
  readonly #approvals = new TuiApprovals(this);
  readonly #elicitations = new TuiElicitations(this);

  connection: GatewayConnection | undefined;
  methods = new Set<string>();
  group: GroupStatus | undefined;
  session: SessionInfo | undefined;
  model = '';
  thinking: string | null = null;
  contextTokens: number | undefined;

  #reply: StreamingReply | undefined;
  #sending = false;
  /** Set after a reconnect: the client's queue waits for `/queue resume`. */
  #queueHeld = false;
  #quitArmed = false;
  /** The external editor is open (or opening). */
  #editing = false;
  #quitArmTimer: NodeJS.Timeout | undefined;
  /** Ends every wait of the client (reconnect pauses) when it quits. */
  readonly #lifetime = new AbortController();
  /** The prompt this client sent for the running turn: restored to the editor when the person aborts it. */
  #running: { inputId: string; text: string; images: ImageContent[] } | undefined;
  /** The person pressed Escape: the run's end puts its prompt and the client queue back in the editor. */
  #abortAsked = false;
  /** Messages of the active session's path the chat shows (a reconnect appends only what came after). */
  #shownMessages = 0;
  /** What the last Ctrl+C cleared from the editor (saved as the draft if the next one quits). */
  #clearedDraft = '';
  #done: (() => void) | undefined;
  #quitting = false;
  #ticker: NodeJS.Timeout | undefined;
  #overlay: OverlayHandle | undefined;
  #overlayComponent: Component | undefined;
  /** Streaming updates wait here for the next frame (see frame-batch.ts). */
  readonly #batch = new FrameBatch<() => void>(
    (apply) => {
      try {
        apply();
      } catch (error) {
        this.error(error);
      }
    },
    () => this.tui.requestRender(),
  );
  /** Shown once the first session is on screen (loading it replaces the chat). */
  #startupNotice: string | undefined;

  constructor(private readonly options: ClawTuiOptions) {
    const loaded = loadKeybindings(options.keybindingsFile);
    this.#bindings = loaded.bindings;
    this.chat.detailsKey = actionKeyLabel(this.#bindings, 'details');
    setKeybindings(new KeybindingsManager(TUI_KEYBINDINGS, { 'tui.input.newLine': this.#bindings.newLine as KeyId[], 'tui.input.submit': this.#bindings.submit as KeyId[] }));
    // The terminal's own cursor shows at the draft position; with a view or dialog focused there is no draft cursor, so it is hidden.
    this.tui = new TUI(options.terminal ?? new ProcessTerminal(), true);
    renderKeysAtOnce(this.tui);
    this.editor = new Editor(this.tui, { borderColor: style.dim, selectList: { selectedPrefix: style.bold, selectedText: style.bold, description: style.dim, scrollInfo: style.dim, noMatch: style.dim } });
    installFastLayout(this.editor);
    this.attachments = new Attachments(() => this.queue.list().reduce((sum, turn) => sum + turn.images.reduce((bytes, image) => bytes + Buffer.byteLength(image.data, 'base64'), 0), 0));
    this.#commands = new SessionCommands(this);
    this.#extensions = new TuiExtensions(this, loaded.extensionKeys);
    this.editor.setAutocompleteProvider(tuiCompletion(() => this.group?.workspace, this.#extensions.autocomplete(), (text) => this.#extensions.owns(text)));
    // Enter while a completion list shows: the editor applies the item, then submits here.
    this.editor.onSubmit = (text) => {
      if (!text.trim()) return;
      this.editor.addToHistory(text);
      void this.submit(text);
    };
    this.tui.addChild(this.chat);
    this.tui.addChild(this.#todos);
    this.tui.addChild(this.#extensions.statusLine);
    this.tui.addChild(this.#status);
    this.tui.addChild(this.#queueLine);
    this.tui.addChild(this.#attachLine);
    this.tui.addChild(this.editor);
    this.tui.addChild(this.#footer);
    this.tui.setFocus(this.editor);
    this.tui.addInputListener((data) => (this.#onKey(data) ? { consume: true } : undefined));
    this.#startupNotice = loaded.notice;
  }

  /** Runs until /quit or Ctrl+C twice. */
  async run(): Promise<void> {
    this.tui.start();
    this.#renderFooter();
    const finished = new Promise<void>((resolve) => (this.#done = resolve));
    this.#watchTerminal();
    void this.#connectLoop();
    await finished;
  }

  // ---- output -------------------------------------------------------------------------------

  notice(text: string, kind: 'notice' | 'error' = 'notice'): void {
    this.chat.notice(text, kind);
    this.#renderFooter();
  }

  error(error: unknown): void {
    const hint = XdogError.is(error) && error.hint ? ` (${error.hint})` : '';
    this.notice(`${(error as Error).message}${hint}`, 'error');
  }

  /** Shows a read-only text view over the chat. */
  page(title: string, text: string, query = ''): Pager {
    const pager = new Pager(title, text, () => this.tui.terminal.rows - 2, () => this.closeOverlay(), query);
    this.showOverlay(pager);
    return pager;
  }

  showOverlay(component: Component): void {
    this.closeOverlay();
    this.#overlayComponent = component;
    this.#overlay = this.tui.showOverlay(component, { width: '100%', anchor: 'top-left', maxHeight: '100%' });
    this.tui.requestRender();
  }

  closeOverlay(): void {
    // A view that took the terminal (the transcript's fullscreen) gives it back first.
    (this.#overlayComponent as { dispose?(): void } | undefined)?.dispose?.();
    this.#overlayComponent = undefined;
    this.#overlay?.hide();
    this.#overlay = undefined;
    this.tui.setFocus(this.editor);
    this.tui.requestRender();
  }

  #renderFooter(): void {
    const group = this.group;
    const parts = [
      group?.name ?? this.options.group ?? '(group)',
      this.session ? (this.session.name ?? this.session.id.slice(0, 8)) : 'no session',
      this.model || group?.model || '(model)',
      `thinking ${this.thinking ?? 'off'}`,
      this.contextTokens === undefined ? 'context –' : `context ${this.contextTokens} tok`,
    ];
    if (!this.connection) parts.push('state unknown');
    else if (group?.busy) parts.push(`running ${group.runStartedAt ? Math.max(0, Math.round((Date.now() - group.runStartedAt) / 1000)) : 0}s · Esc aborts`);
    else parts.push('idle');
    if (this.queue.size) parts.push(`queue ${this.queue.size}${this.#queueHeld ? ' (held: /queue resume)' : ''}`);
    if (this.attachments.list().length) parts.push(`${this.attachments.list().length} image(s) attached`);
    parts.push(this.connection ? 'online' : 'offline');
    this.#footer.setText(style.dim(parts.join(' · ')));
    const job = this.#jobs.newest;
    this.#status.setText(this.#quitArmed ? style.notice(`press ${this.keyLabel('quit') ?? 'Ctrl+C'} again to quit`) : job ? style.dim(`${terminalSafe(job)} working · Esc cancels it`) : '');
    this.#queueLine.setText(this.queue.size ? style.dim(terminalSafe(queuePreview(this.queue.list(), this.#queueHeld))) : '');
    this.#attachLine.setText(this.attachments.list().length ? style.dim(terminalSafe(attachmentPreview(this.attachments.list()))) : '');
    this.tui.requestRender();
  }

  // ---- connection ---------------------------------------------------------------------------

  async #connectLoop(): Promise<void> {
    let reported = false;
    while (!this.#quitting && !this.connection) {
      try {
        await this.#attach(await this.options.connect());
        return;
      } catch (error) {
        if (!reported) this.error(error);
        reported = true;
        this.#renderFooter();
        // Quitting ends the pause at once.
        await sleep(this.options.reconnectDelayMs ?? 1000, undefined, { signal: this.#lifetime.signal }).catch(() => undefined);
      }
    }
  }

  async #attach(connection: GatewayConnection): Promise<void> {
    const wasConnected = this.group !== undefined;
    const shownSession = wasConnected ? this.group?.activeSessionId : undefined;
    this.methods = new Set(connection.hello.methods);
    // The run's notifications keep their order through one bounded batch, applied once per frame.
    connection.on('event', (params) => this.#batch.push(() => this.#onEvent(params)));
    connection.on('run.end', (params) => this.#batch.push(() => this.#onRunEnd(params)));
    connection.on('group.changed', (params) => this.#batch.push(() => this.#onGroupChanged(params)));
    connection.on('todos.changed', (params: TodoView) => this.#showTodos(params));
    connection.on('mcp.authorized', (params: { group: string; status: string; message: string }) => params.group === this.group?.name && this.notice(`MCP: ${params.message}`, params.status === 'failed' ? 'error' : 'notice'));
    connection.on('goal.changed', (params: GoalView) => params.group === this.group?.name && this.notice(goalLine(params)));
    connection.on('notice', (params: { group: string; message: string }) => params.group === this.group?.name && this.notice(terminalSafe(params.message), 'error'));
    this.#commands.inspectors.attach(connection);
    const subscribed = (await connection.call('subscribe', { group: this.options.group })) as { group: GroupStatus };
    this.connection = connection;
    this.group = subscribed.group;
    this.#extensions.attach(connection, subscribed.group.name);
    connection.onClose(() => this.#onClose(connection));
    if (wasConnected && this.queue.size) this.#queueHeld = true;
    // Same session as before the drop: the chat keeps what it showed (notices too) and gets only what came after.
    if (shownSession && shownSession === this.group.activeSessionId) await this.reload({ redraw: false, catchUp: true });
    else await this.reload();
    // Calls waiting for a person open their dialog (pending ones from before, too).
    void this.#approvals.attach(connection, this.group.name).catch((error: unknown) => this.error(error));
    // So do an MCP server's questions for a person.
    void this.#elicitations.attach(connection, this.group.name).catch((error: unknown) => this.error(error));
    if (this.#startupNotice) this.notice(this.#startupNotice, 'error');
    this.#startupNotice = undefined;
    if (!wasConnected) this.#restoreDraft();
    if (wasConnected) this.notice(`reconnected; nothing was resent${this.queue.size ? `; ${this.queue.size} queued turn(s) are held: /queue resume sends them` : ''}`);
    this.#startTicker();
    this.#drain();
  }

  #onClose(connection: GatewayConnection): void {
    if (this.connection !== connection) return;
    // What the old connection delivered is applied before the cut is handled.
    this.#batch.flush();
    this.connection = undefined;
    // A reply cut mid-stream is not kept half: its whole message comes with the catch-up after the reconnect.
    if (this.#reply) this.chat.removeChild(this.#reply);
    this.#reply = undefined;
    this.#running = undefined;
    if (this.#quitting) return;
    this.notice('the connection to the gateway was lost; reconnecting (nothing will be resent; your draft stays in the editor)', 'error');
    this.#renderFooter();
    void this.#connectLoop();
  }

  /**
   * Reads the group and its active session from the gateway. With `redraw`
   * (a session switch, a reconnect) the chat is rebuilt from the transcript;
   * without it (after a run, whose events the chat already shows) only the
   * session record and state are read again, which stays cheap on long sessions.
   */
  async reload({ redraw = true, catchUp = false } = {}): Promise<void> {
    const connection = this.need();
    this.group = (await connection.call('group.status', { group: this.group?.name })) as GroupStatus;
    const sessionId = this.group.activeSessionId;
    await this.#loadTodos();
    if (!sessionId) {
      this.session = undefined;
      this.model = this.group.model;
      if (redraw) this.chat.load([]);
      if (redraw) this.#shownMessages = 0;
      this.#renderFooter();
      return;
    }
    const shown = (await connection.call('session.show', { group: this.group.name, sessionId })) as { session: SessionInfo; state: { model: string; thinking: string | null } };
    this.session = shown.session;
    this.model = shown.state.model;
    this.thinking = shown.state.thinking;
    if (redraw) {
      const messages = pathMessages(await readTranscriptEntries(connection.callService, this.group.name, sessionId), shown.session.leafEntryId);
      const usage = (messages.findLast((entry) => entry.message.role === 'assistant')?.message as { usage?: { input: number; output: number } } | undefined)?.usage;
      this.contextTokens = usage ? usage.input + usage.output : undefined;
      // System inputs (a schedule's, a goal's) are not a person's words: the replies are drawn, not the inputs.
      this.chat.load(messages.filter((entry) => !entry.system));
      this.#shownMessages = messages.length;
    } else if (catchUp && shown.session.messageCount > this.#shownMessages) {
      const messages = pathMessages(await readTranscriptEntries(connection.callService, this.group.name, sessionId), shown.session.leafEntryId);
      const missed = messages.slice(this.#shownMessages);
      if (missed.length) this.notice(`${missed.length} message(s) arrived while the TUI was offline:`);
      for (const entry of missed) if (!entry.system) this.chat.addMessage(entry.message, entry.index);
      this.#shownMessages = messages.length;
    }
    this.#renderFooter();
  }

  async #loadTodos(): Promise<void> {
    if (!this.methods.has('todos.get') || !this.group) return this.#showTodos(undefined);
    this.#showTodos((await this.need().callService('todos.get', { group: this.group.name })) as TodoView);
  }

  #showTodos(view: TodoView | undefined): void {
    if (view && view.group !== this.group?.name) return;
    if (view && view.sessionId !== null && this.group?.activeSessionId && view.sessionId !== this.group.activeSessionId) return;
    this.#todos.setText(view?.summary ? style.dim(terminalSafe(view.summary)) : '');
    this.tui.requestRender();
  }

  /** The live connection, or OFFLINE-style UNAVAILABLE. */
  need(): GatewayConnection {
    if (!this.connection) throw new XdogError(ErrorCodes.UNAVAILABLE, 'not connected to the gateway; nothing was sent', { hint: 'the client reconnects by itself; your draft stays in the editor' });
    return this.connection;
  }

  /** Calls a gateway method after checking the gateway offers it (else "unsupported by this gateway"). */
  async call(method: string, params: Record<string, unknown>): Promise<any> {
    const connection = this.need();
    if (!this.methods.has(method)) throw new XdogError(ErrorCodes.UNSUPPORTED, `${method} is unsupported by this gateway`, { hint: 'run a gateway of the same xdog version as this client' });
    // Inside a command the person waits for, the call is part of its job: Escape cancels it.
    const signal = this.#jobs.signal;
    return (connection.call as (m: string, p: unknown, o: { signal?: AbortSignal }) => Promise<unknown>)(method, { group: this.group?.name, ...params }, signal ? { signal } : {});
  }

  #startTicker(): void {
    if (this.#ticker) return;
    this.#ticker = setInterval(() => {
      if (this.group?.busy) this.#renderFooter();
    }, 1000);
    this.#ticker.unref();
  }

  // ---- gateway notifications ----------------------------------------------------------------

  #onEvent(params: { group: string; event: any; system?: boolean }): void {
    if (params.group !== this.group?.name) return;
    const event = params.event;
    if (event.type === 'message_end') this.#shownMessages++;
    if (params.system && event.type === 'message_end' && event.message?.role === 'user') return;
    switch (event.type) {
      case 'message_start':
        if (event.message?.role === 'assistant') {
          this.#reply = new StreamingReply();
          this.chat.addChild(this.#reply);
        }
        break;
      case 'message_update':
        if (event.delta.type === 'text_delta') this.#reply?.append('text', event.delta.delta);
        else if (event.delta.type === 'thinking_delta') this.#reply?.append('thinking', event.delta.delta);
        break;
      case 'message_end': {
        const message = event.message as Message;
        if (message.role === 'assistant') {
          this.chat.commitReply(this.#reply, message);
          this.#reply = undefined;
          if (message.usage) this.contextTokens = message.usage.input + message.usage.output;
        } else this.chat.addMessage(message);
        break;
      }
      case 'tool_start':
        this.chat.toolStart(event.toolCallId, event.toolName, event.args);
        break;
      case 'tool_end':
        this.chat.toolEnd(event.toolCallId, resultText(event.result), event.isError);
        break;
      case 'model_retry':
        this.notice(`the model request is retried (attempt ${event.attempt}): ${event.reason}`);
        break;
      default:
        break;
    }
    this.tui.requestRender();
  }

  #onRunEnd(params: { group: string; inputId?: string; status: string; errorMessage?: string }): void {
    if (params.group !== this.group?.name) return;
    if (this.#reply) {
      this.chat.removeChild(this.#reply);
      this.#reply = undefined;
    }
    const running = this.#running && this.#running.inputId === params.inputId ? this.#running : undefined;
    if (running) this.#running = undefined;
    if (params.status === 'aborted' && this.#abortAsked) {
      this.#abortAsked = false;
      this.#restoreAfterAbort(running);
    } else if (params.status === 'aborted') this.notice('the turn was aborted');
    else if (params.status !== 'completed') this.notice(`the turn ended: ${params.status}${params.errorMessage ? `: ${params.errorMessage}` : ''}`, 'error');
    if (params.status !== 'aborted') this.#abortAsked = false;
    this.#drain();
  }

  #onGroupChanged(params: { group: string; activeSessionId: string | null; busy: boolean; queued: number; revision: number }): void {
    if (!this.group || params.group !== this.group.name) return;
    const switched = params.activeSessionId !== this.group.activeSessionId;
    // The first prompt of a group creates its session: the chat already shows that run, so it is not redrawn.
    const created = switched && this.group.activeSessionId === null;
    const started = params.busy && !this.group.busy;
    this.group = { ...this.group, activeSessionId: params.activeSessionId, busy: params.busy, queued: params.queued, revision: params.revision, runStartedAt: started ? Date.now() : this.group.runStartedAt };
    if (switched) this.reload({ redraw: !created }).catch((error: unknown) => this.error(error));
    // After a run: the session record (name, model, thinking) may have changed; the chat already shows the run.
    else if (!params.busy) this.reload({ redraw: false }).catch((error: unknown) => this.error(error));
    this.#renderFooter();
    if (!params.busy) this.#drain();
  }

  // ---- input --------------------------------------------------------------------------------

  #matches(data: string, action: Action): boolean {
    return this.#bindings[action].some((key) => matchesKey(data, key as KeyId));
  }

  /** Global keys; returns true when the key was taken. Overlays get every key but quit. */
  #onKey(data: string): boolean {
    const quit = this.#matches(data, 'quit');
    if (!quit && this.#quitArmed) this.#disarmQuit();
    if (quit) {
      if (this.#quitArmed) void this.quit();
      else {
        this.#quitArmed = true;
        // The hint goes when it no longer applies: after any other key, or after a while.
        this.#quitArmTimer = setTimeout(() => this.#disarmQuit(), QUIT_ARM_MS);
        this.#quitArmTimer.unref();
        if (this.#overlay) this.closeOverlay();
        else {
          // Kept for the draft file in case this press is followed by the quitting one.
          this.#clearedDraft = this.editor.getExpandedText() || this.#clearedDraft;
          this.editor.setText('');
        }
        this.#renderFooter();
      }
      return true;
    }
    if (this.#overlay) return false;
    if (this.#matches(data, 'suspend')) {
      if (!suspend(this.tui, () => this.#renderFooter())) this.notice('suspending is not supported on this platform', 'error');
      return true;
    }
    // Escape closes the completion list first (the editor takes it); only then does it abort a run.
    if (this.#matches(data, 'abort') && this.editor.isShowingAutocomplete()) return false;
    if (this.#matches(data, 'submit') && this.editor.isShowingAutocomplete()) {
      // Enter never picks a suggestion (Tab does): the list closes and exactly what was typed is sent.
      (this.editor as unknown as { cancelAutocomplete(): void }).cancelAutocomplete();
    }
    if (this.#matches(data, 'submit')) {
      const text = this.editor.getExpandedText();
      this.editor.setText('');
      if (text.trim() || this.attachments.list().length) {
        this.editor.addToHistory(text);
        void this.submit(text);
      }
      return true;
    }
    const feature = FEATURE_ACTIONS.find((name) => this.#matches(data, name));
    if (feature) {
      this.#runFeature(feature);
      return true;
    }
    const action = (['abort', 'repaint', 'details', 'steer', 'followUp', 'externalEditor', 'queue'] as const).find((name) => this.#matches(data, name));
    // An extension's shortcut only where no TUI binding took the key.
    if (!action) return this.#extensions.runShortcut(data);
    if (action === 'abort') {
      // The most specific wait goes first: a command the person is waiting for, then the run.
      // Its call fails ABORTED at once, and submit() says so and puts the command back in the editor.
      if (this.#jobs.cancelNewest()) {
        this.#renderFooter();
        return true;
      }
      if (!this.group?.busy) return false;
      this.#abortAsked = true;
      this.call('abort', {}).then(
        () => this.notice('aborting the turn…'),
        (error: unknown) => {
          this.#abortAsked = false;
          this.error(error);
        },
      );
    } else if (action === 'repaint') repaintViewport(this.tui);
    else if (action === 'queue') void this.submit('/queue', '');
    else if (action === 'details') this.#openDetails();
    else if (action === 'externalEditor') this.editExternally().catch((error: unknown) => this.error(error));
    else {
      const text = this.editor.getExpandedText();
      this.editor.setText('');
      void this.submit(`/${action === 'steer' ? 'steer' : 'follow-up'} ${text}`, text);
    }
    return true;
  }

  /** `/paste`, Ctrl+V: the clipboard's image becomes an attachment, its text goes into the draft at the cursor. */
  async pasteClipboard(): Promise<void> {
    const pasted = await readClipboard();
    if (pasted.kind === 'image') this.notice(attachedNotice(this.attachments.addBytes('clipboard', pasted.data)));
    else if (!pasted.text) this.notice('the clipboard holds no text or image; nothing was pasted');
    else if (Buffer.byteLength(this.editor.getExpandedText()) + Buffer.byteLength(pasted.text) > LIMITS.tuiDraftBytes) {
      throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `the draft and the clipboard's text are over the ${LIMITS.tuiDraftBytes}-byte draft limit together; nothing was pasted`);
    } else this.editor.insertTextAtCursor(pasted.text);
  }

  /** Ctrl+O: the viewer over the chat, on the newest entry. */
  #openDetails(): void {
    const entries = this.chat.details.list();
    if (!entries.length) return this.notice('no tool calls or reasoning to show yet');
    this.showOverlay(new DetailsViewer(entries, () => this.tui.terminal.rows - 2, () => this.closeOverlay()));
  }

  /** The keys of the claw features: a cycle, or the slash command they stand for. */
  #runFeature(action: (typeof FEATURE_ACTIONS)[number]): void {
    const done = (promise: Promise<void>): void => {
      promise.catch((error: unknown) => this.error(error)).finally(() => this.#renderFooter());
    };
    if (action === 'cycleModel') done(this.#commands.models.cycleModel());
    else if (action === 'cycleThinking') done(this.#commands.models.cycleThinking());
    else if (action === 'keepDraft') done(this.#commands.drafts.saved.keepParent());
    else void this.submit(`/${action}`, '');
  }

  #restoreDraft(): void {
    try {
      this.#commands.drafts.restore();
    } catch (error) {
      this.error(error);
    }
  }

  /**
   * Runs a command or sends a message. On any refusal the draft goes back to
   * the editor (`draft`, when given, is what was typed there).
   */
  async submit(text: string, draft = text): Promise<void> {
    try {
      if (this.#extensions.owns(text) || (await this.#extensions.claims(text))) await this.#asJob(text, () => this.#extensions.run(text));
      else if (isCommand(text)) {
        const parsed = parseCommand(text);
        const refusal = unsupported(parsed.command, this.methods);
        if (refusal) throw refusal;
        await this.#asJob(text, () => this.#commands.run(parsed.command.name, parsed.rest));
      } else await this.#sendOrQueue(text.startsWith('//') ? text.slice(1) : text);
    } catch (error) {
      this.error(error);
      if (!this.editor.getText()) this.editor.setText(draft);
    }
    this.#renderFooter();
  }

  /** A command as a job: the footer names it while it waits, and Escape cancels it. */
  async #asJob(text: string, work: () => Promise<void>): Promise<void> {
    const label = text.split(/\s/, 1)[0]!;
    const shown = setTimeout(() => this.#renderFooter(), JOB_SHOWN_AFTER_MS);
    try {
      await this.#jobs.run(label, work);
    } finally {
      clearTimeout(shown);
    }
  }

  async #sendOrQueue(text: string): Promise<void> {
    if (!this.connection) this.need();
    const images = this.attachments.take();
    if (this.group?.busy || this.#sending || this.queue.size) {
      try {
        const turn = this.queue.add(text, images);
        this.notice(queuedNotice(turn, this.queue.size, this.#queueHeld));
      } catch (error) {
        this.attachments.restore(images);
        throw error;
      }
      return;
    }
    await this.#send({ id: '', text, images }, 'editor');
  }

  /** Sends one prompt. `from` says where it goes back when it is refused or its receipt is lost. */
  async #send(turn: QueuedTurn, from: 'editor' | 'queue'): Promise<void> {
    try {
      checkInputText(turn.text);
      // Offline: refused before anything is sent.
      this.need();
    } catch (error) {
      this.#giveBack(turn, from);
      throw error;
    }
    this.#sending = true;
    try {
      // Images over one chunk go first, as uploads (upload:1); the prompt names them.
      const images = await prepareImages(this.need(), turn.images);
      const receipt = (await this.call('prompt', { text: turn.text, ...(images.length ? { images } : {}), idempotencyKey: crypto.randomUUID(), ...(this.group?.activeSessionId ? { expectedSessionId: this.group.activeSessionId } : {}) })) as PromptReceipt;
      // Busy or idle comes from the gateway's group.changed, which may arrive before or after this receipt.
      if (receipt.status === 'duplicate') this.notice('the gateway had this message already; it was not run again');
      else if (receipt.inputId) this.#running = { inputId: receipt.inputId, text: turn.text, images: turn.images };
    } catch (error) {
      if (!(XdogError.is(error) && UNCERTAIN.includes(error.code))) {
        this.#giveBack(turn, from);
        throw error;
      }
      // The gateway may have it: it goes to the person, never back into the queue that would send it again.
      this.#putBack(turn);
      throw new XdogError(ErrorCodes.UNAVAILABLE, 'the connection was lost before the gateway answered: the message may or may not have been received, and it was not resent', {
        hint: 'it is back in the editor; check the conversation after the reconnect before sending it again',
      });
    } finally {
      this.#sending = false;
      this.#renderFooter();
    }
  }

  /** A refused turn goes back where it came from: the front of the queue (held) or the editor. */
  #giveBack(turn: QueuedTurn, from: 'editor' | 'queue'): void {
    if (from === 'editor') return this.#putBack(turn);
    this.queue.restore(turn);
    this.#queueHeld = true;
  }

  /** Into the editor (before whatever is being typed there), with its images. */
  #putBack(turn: QueuedTurn): void {
    const current = this.editor.getText();
    this.editor.setText(current ? `${turn.text}\n${current}` : turn.text);
    this.attachments.restore(turn.images);
  }

  /** Sends the next client-queued turn when the group is idle. */
  #drain(): void {
    // After an abort the queue waits for the run's end, which puts it back in the editor.
    if (this.#sending || this.#queueHeld || this.#abortAsked || !this.connection || this.group?.busy || !this.queue.size) return;
    const turn = this.queue.shift()!;
    this.notice(`sending queued ${turn.id}`);
    this.#send(turn, 'queue').catch((error: unknown) => this.error(error));
  }

  resumeQueue(): void {
    const refusal = resumeRefusal(this.queue.size, this.#queueHeld);
    if (refusal) return this.notice(refusal);
    this.#queueHeld = false;
    this.notice(`resuming the queue: ${this.queue.size} turn(s) are sent one by one`);
    this.#drain();
  }

  /** Whether the client queue waits for `/queue resume`. */
  get queueHeld(): boolean {
    return this.#queueHeld;
  }

  #disarmQuit(): void {
    if (this.#quitArmTimer) clearTimeout(this.#quitArmTimer);
    this.#quitArmTimer = undefined;
    if (!this.#quitArmed) return;
    this.#quitArmed = false;
    this.#renderFooter();
  }

  /**
   * After the person aborted a run: its prompt (when this client sent it) and
   * every turn of the client queue go back into the editor, oldest first,
   * ahead of what is typed there now; nothing more is sent by itself.
   */
  #restoreAfterAbort(running: { text: string; images: ImageContent[] } | undefined): void {
    const queued = this.queue.clear();
    const texts = [...(running ? [running.text] : []), ...queued.map((turn) => turn.text)];
    this.editor.setText(restoredDraft(texts, this.editor.getText()));
    for (const turn of [...(running ? [running] : []), ...queued]) this.attachments.restore(turn.images);
    this.#queueHeld = false;
    const what = [running ? 'its prompt' : '', queued.length ? `${queued.length} queued turn(s) (${queued.map((turn) => turn.id).join(', ')})` : ''].filter(Boolean).join(' and ');
    this.notice(`the turn was aborted${what ? `; ${what} are back in the editor, ahead of your draft; nothing was resent` : ''}`);
    this.#renderFooter();
  }

  /** EOF on stdin and errors of the terminal's streams end the TUI and its socket work (reconnect waits too). */
  #watchTerminal(): void {
    if (this.options.terminal) return;
    const end = (): void => void this.quit();
    process.stdin.once('end', end);
    for (const stream of [process.stdin, process.stdout]) stream.once('error', end);
  }

  /** Steer or follow-up: straight to the gateway's lanes of the running turn. */
  async sendLane(method: 'steer' | 'follow_up', text: string): Promise<void> {
    if (!text.trim()) throw new XdogError(ErrorCodes.USAGE, `/${method === 'steer' ? 'steer' : 'follow-up'} needs a message`, { hint: `type it after the command${this.keyHint(method === 'steer' ? 'steer' : 'followUp', ', or type it and press')}` });
    checkInputText(text, `the ${method === 'steer' ? 'steer' : 'follow-up'}`);
    const images: ImageContent[] = this.attachments.take();
    try {
      const sent = await prepareImages(this.need(), images);
      const { inputId } = (await this.call(method, { text, ...(sent.length ? { images: sent } : {}), ...(this.group?.activeSessionId ? { expectedSessionId: this.group.activeSessionId } : {}) })) as { inputId: string };
      this.notice(`${method === 'steer' ? 'steer' : 'follow-up'} ${inputId} accepted`);
    } catch (error) {
      this.attachments.restore(images);
      if (XdogError.is(error, ErrorCodes.INVALID_STATE)) throw new XdogError(ErrorCodes.INVALID_STATE, `nothing is running, so there is nothing to ${method === 'steer' ? 'steer' : 'follow up'}; the text stays in the editor`, { hint: 'press Enter to send it as a message' });
      throw error;
    }
  }

  /**
   * Ctrl+G and `/editor`: the draft in $VISUAL / $EDITOR / vi (external-editor.ts).
   * The edited text only replaces the draft, never sends it; on any failure the
   * draft and its cursor stay as they were.
   */
  async editExternally(): Promise<void> {
    // One editor at a time: a second Ctrl+G while the first loads its parser is refused.
    if (this.#editing) throw new XdogError(ErrorCodes.BUSY, 'the external editor is already opening', { hint: 'wait for it, then edit there' });
    this.#editing = true;
    try {
      const text = await editDraft({
        text: this.editor.getExpandedText(),
        ...(this.group?.workspace && { workspace: this.group.workspace }),
        release: () => this.tui.stop(),
        restore: () => {
          this.tui.start();
          this.tui.requestRender(true);
        },
      });
      this.editor.setText(text);
    } finally {
      this.#editing = false;
    }
  }

  /** How the keys of `action` are written in hints ("Alt+S"), or undefined when the file disabled it. */
  keyLabel(action: Action): string | undefined {
    return actionKeyLabel(this.#bindings, action);
  }

  /** `prefix` and the action's keys for a hint ("…, or press Alt+S"); empty when the action has no key. */
  keyHint(action: Action, prefix: string): string {
    const label = this.keyLabel(action);
    return label ? `${prefix} ${label}` : '';
  }

  /** What `/keys` and F1 list: every action with its keys (or "disabled"), then the extension shortcuts. */
  keyHelp(): string {
    const actions = (Object.keys(ACTIONS) as Action[]).map((action) => `${action.padEnd(15)} ${(this.#bindings[action].join(', ') || '(disabled)').padEnd(24)} ${ACTIONS[action].summary}`);
    const extensions = this.#extensions.keyLines();
    return [...actions, ...(extensions.length ? ['', 'extension shortcuts:', ...extensions] : [])].join('\n');
  }

  async quit(): Promise<void> {
    if (this.#quitting) return;
    this.#quitting = true;
    this.#lifetime.abort();
    this.#batch.stop();
    if (this.#ticker) clearInterval(this.#ticker);
    if (this.#quitArmTimer) clearTimeout(this.#quitArmTimer);
    const kept = this.#commands.drafts.saveOnQuit(this.editor.getExpandedText() || this.#clearedDraft);
    this.closeOverlay();
    this.tui.stop();
    if (kept) process.stderr.write(`xdog: ${kept}\n`);
    const connection = this.connection;
    this.connection = undefined;
    await connection?.close().catch(() => undefined);
    this.#done?.();
  }
}

/** How long "press Ctrl+C again to quit" stays armed. */
const QUIT_ARM_MS = 3000;
/** A command that takes longer than this is named in the footer (quick ones never flash there). */
const JOB_SHOWN_AFTER_MS = 300;

function resultText(result: { content?: Array<{ type: string; text?: string }> } | undefined): string {
  return (result?.content ?? []).filter((part) => part.type === 'text').map((part) => part.text ?? '').join('\n');
}
