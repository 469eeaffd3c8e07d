/**
 * `/transcript [QUERY]` (Alt+H) and its forms: `fullscreen` opens the
 * browser on the alternate screen, `branch ENTRY` shows the active
 * session's path to ENTRY, `saved SESSION [ENTRY]` another session of the
 * group (to its leaf or ENTRY); all read-only. The source is read from the
 * gateway (chunked, checked) and redacted before it is shown.
 */
import { ErrorCodes, XdogError } from '../../core/errors.js';
import { environmentSecrets, redact } from '../../core/redact.js';
import type { ClawTui } from './app.js';
import { copyText, describeCopy } from './clipboard.js';
import type { PathMessage } from './conversation.js';
import { sourceEntries, writePrivateFile } from './export-formats.js';
import { AltScreen } from './fullscreen.js';
import { TranscriptBrowser } from './transcript-view.js';

/** Reads the messages of a session's path: the active session's leaf unless `leaf` is given. */
export type ReadPath = (sessionId: string | undefined, leaf?: number) => Promise<PathMessage[]>;

const usage = (message: string): XdogError => new XdogError(ErrorCodes.USAGE, message, { hint: '/transcript [QUERY], /transcript fullscreen, /transcript branch ENTRY, /transcript saved SESSION [ENTRY]' });

function entryId(text: string | undefined, what: string): number {
  if (!text || !/^[1-9]\d*$/.test(text)) throw usage(`${what} needs an entry id (a positive whole number; /tree shows them), not "${text ?? ''}"`);
  return Number(text);
}

export class TranscriptCommands {
  constructor(
    private readonly app: ClawTui,
    private readonly readPath: ReadPath,
    /** The unique session whose id starts with the prefix. */
    private readonly sessionByPrefix: (prefix: string) => Promise<{ id: string }>,
  ) {}

  async run(args: string): Promise<void> {
    const [verb, first, second] = args.split(/\s+/);
    if (verb === 'fullscreen' && !first) return this.#open('', { fullscreen: true });
    if (verb === 'branch') {
      const leaf = entryId(first, '/transcript branch');
      return this.#open('', { leaf, title: `entry ${leaf} of this session (read-only)` });
    }
    if (verb === 'saved') {
      if (!first) throw usage('/transcript saved needs a session id (or a unique prefix; /sessions lists them)');
      const session = await this.sessionByPrefix(first);
      const leaf = second === undefined ? undefined : entryId(second, '/transcript saved SESSION');
      return this.#open('', { sessionId: session.id, leaf, title: `session ${session.id.slice(0, 8)}${leaf ? ` at entry ${leaf}` : ''} (read-only)` });
    }
    return this.#open(args);
  }

  async #open(query: string, scope: { sessionId?: string; leaf?: number; title?: string; fullscreen?: boolean } = {}): Promise<void> {
    const secrets = environmentSecrets();
    const read = async () => {
      const messages = await this.readPath(scope.sessionId, scope.leaf);
      if (scope.leaf !== undefined && !messages.some((entry) => entry.entryId === scope.leaf)) {
        throw new XdogError(ErrorCodes.NOT_FOUND, `entry ${scope.leaf} is not a message of that session`, { hint: '/tree shows the entries of the active session' });
      }
      return sourceEntries(messages, secrets);
    };
    const entries = await read();
    const tui = this.app.tui;
    // The alternate screen paints the browser (made just below) at the terminal's full height.
    const screen = new AltScreen(tui, (width) => browser.render(width));
    const toggle = {
      get active() {
        return screen.active;
      },
      toggle: () => (screen.active ? screen.leave() : screen.enter()),
    };
    const browser: TranscriptBrowser & { dispose?(): void } = new TranscriptBrowser(
      `${scope.title ?? 'transcript'} (redacted; reasoning, whole tool arguments and results)`,
      entries,
      () => (screen.active ? tui.terminal.rows : tui.terminal.rows - 2),
      {
        refresh: read,
        copy: async (text, what) => describeCopy(await copyText(redact(text, secrets), (data) => tui.terminal.write(data), what), what),
        write: (file, text) => writePrivateFile(file, text),
        close: () => this.app.closeOverlay(),
        requestRender: () => tui.requestRender(),
      },
      query,
      toggle,
    );
    // Closing (q, Escape, Ctrl+C, quitting) leaves the alternate screen first.
    browser.dispose = () => screen.leave();
    this.app.showOverlay(browser);
    if (scope.fullscreen) screen.enter();
    if (query && browser.matchCount === 0) this.app.notice(`"${query}" is not in the transcript`);
    if (browser.cut) this.app.notice(browser.cut);
  }
}
