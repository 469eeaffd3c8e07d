/**
 * MCP elicitations in the TUI: a question a group's MCP server asks a person
 * (`mcp.elicitation`, or pending when the TUI connects: `mcp.elicitations`)
 * opens the form dialog, one at a time, oldest first. The answer goes to the
 * gateway (`mcp.answer`), which checks it against the form and sends the
 * first valid one to the server; a refusal is shown in the dialog, which
 * stays. One answered elsewhere, or past its deadline
 * (`mcp.elicitation.ended`), closes with a notice.
 */
import type { GatewayConnection } from '../claw-gateway/index.js';
import type { GroupElicitation } from '../claw-mcp/index.js';
import type { McpElicitationAnswer } from '../mcp/index.js';
import type { ApprovalHost } from './approvals-view.js';
import { redrawEverySecond } from './dialog-parts.js';
import { ElicitationDialog } from './elicitation-dialog.js';

export class TuiElicitations {
  #dialog: ElicitationDialog | undefined;
  readonly #waiting: GroupElicitation[] = [];
  #connection: GatewayConnection | undefined;
  #countdown: NodeJS.Timeout | undefined;
  /** The question this client is answering now: its own `ended` is not someone else's answer. */
  #answering: string | undefined;

  constructor(private readonly app: ApprovalHost & { tui: { requestRender(): void } }) {}

  /** Follows the group's elicitations on a new connection (when the gateway has them) and opens the oldest waiting one. */
  async attach(connection: GatewayConnection, group: string): Promise<void> {
    if (!connection.hello.capabilities.includes('mcp-elicitation:1')) return;
    this.#connection = connection;
    this.#waiting.length = 0;
    this.#close();
    connection.on('mcp.elicitation', (params: { group: string; elicitation: GroupElicitation }) => params.group === group && this.#add(params.elicitation));
    connection.on('mcp.elicitation.ended', (params: { group: string; id: string; action: string }) => params.group === group && this.#ended(params.id, params.action));
    for (const elicitation of (await connection.call('mcp.elicitations' as never, { group } as never)) as GroupElicitation[]) this.#add(elicitation);
  }

  #add(elicitation: GroupElicitation): void {
    if (this.#dialog?.elicitation.id === elicitation.id || this.#waiting.some((item) => item.id === elicitation.id)) return;
    this.#waiting.push(elicitation);
    if (!this.#dialog) this.#openNext();
  }

  #openNext(): void {
    const next = this.#waiting.shift();
    if (!next) return;
    const dialog = new ElicitationDialog(next, () => this.app.tui.terminal.rows - 2, (answer) => void this.#answer(dialog, answer));
    this.#dialog = dialog;
    this.app.showOverlay(dialog);
    this.#countdown = redrawEverySecond(() => this.app.tui.requestRender());
  }

  #close(): void {
    if (this.#countdown) clearInterval(this.#countdown);
    this.#countdown = undefined;
    if (this.#dialog) this.app.closeOverlay();
    this.#dialog = undefined;
  }

  async #answer(dialog: ElicitationDialog, answer: McpElicitationAnswer): Promise<void> {
    const { id, group, server } = dialog.elicitation;
    this.#answering = id;
    try {
      await this.#connection!.call('mcp.answer' as never, { group, id, ...answer } as never);
    } catch (error) {
      // Refused (an answer breaking the form's rules): the question still waits, and its form stays to be fixed.
      if (this.#dialog === dialog) {
        dialog.refused((error as Error).message);
        this.app.tui.requestRender();
      } else this.app.error(error);
      return;
    } finally {
      this.#answering = undefined;
    }
    if (this.#dialog !== dialog) return;
    this.#close();
    this.app.notice(`MCP server ${server}: ${answer.action === 'accept' ? 'your answer was sent' : `the question was ${answer.action === 'decline' ? 'declined' : 'cancelled'}`}`);
    this.#openNext();
  }

  #ended(id: string, action: string): void {
    const index = this.#waiting.findIndex((item) => item.id === id);
    if (index >= 0) this.#waiting.splice(index, 1);
    if (this.#dialog?.elicitation.id !== id || this.#answering === id) return;
    const { server } = this.#dialog.elicitation;
    this.#close();
    this.app.notice(`MCP server ${server}: its question ended (${action}) — answered by another client or past its deadline`);
    this.#openNext();
  }
}
