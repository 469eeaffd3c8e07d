/**
 * Approvals in the TUI: a call that waits for a person (`approval.requested`,
 * or pending when the TUI connects) opens the approval dialog; the answer
 * goes to the gateway (`approvals.*`), where exactly one answer wins, so a
 * refusal (someone answered first) is shown as the gateway words it. An
 * approval answered elsewhere closes its dialog with a notice.
 */
import type { Component } from '@mariozechner/pi-tui';
import type { GatewayConnection } from '../claw-gateway/index.js';
import type { ApprovalRecord } from '../approvals/index.js';
import { ApprovalDialog, type DialogAnswer } from './approval-dialog.js';

/** What the view needs of the app. */
export interface ApprovalHost {
  readonly tui: { terminal: { rows: number } };
  showOverlay(component: Component): void;
  closeOverlay(): void;
  notice(text: string, kind?: 'notice' | 'error'): void;
  error(error: unknown): void;
}

export class TuiApprovals {
  #dialog: ApprovalDialog | undefined;
  readonly #waiting: ApprovalRecord[] = [];
  #connection: GatewayConnection | undefined;

  constructor(private readonly app: ApprovalHost) {}

  /** Follows the connection's approvals (when the gateway has them) and opens the oldest pending one. */
  async attach(connection: GatewayConnection, group: string | undefined): Promise<void> {
    if (!connection.hello.capabilities.includes('approvals:1')) return;
    this.#connection = connection;
    connection.on('approval.requested', (params: { approval: ApprovalRecord }) => this.#add(params.approval));
    connection.on('approval.resolved', (params: { approval: ApprovalRecord }) => this.#resolved(params.approval));
    const listed = (await connection.callService('approvals.list', group ? { group } : {})) as { approvals: ApprovalRecord[] };
    for (const approval of listed.approvals.reverse()) this.#add(approval);
  }

  #add(approval: ApprovalRecord): void {
    if (this.#dialog?.approval.id === approval.id || this.#waiting.some((item) => item.id === approval.id)) return;
    this.#waiting.push(approval);
    if (!this.#dialog) this.#openNext();
  }

  #openNext(): void {
    const next = this.#waiting.shift();
    if (!next) return;
    this.#dialog = new ApprovalDialog(next, () => this.app.tui.terminal.rows - 2, { answer: (approval, answer) => void this.#answer(approval, answer), close: () => this.#close() });
    this.app.showOverlay(this.#dialog);
  }

  #close(): void {
    this.#dialog = undefined;
    this.app.closeOverlay();
  }

  async #answer(approval: ApprovalRecord, answer: DialogAnswer): Promise<void> {
    const connection = this.#connection;
    if (!connection) return;
    const by = 'tui';
    try {
      let rules = 0;
      if (answer.action === 'approve') rules = (((await connection.callService('approvals.approve', { id: approval.id, by, ...(answer.always ? { always: true } : {}) })) as { rules?: unknown[] }).rules ?? []).length;
      else if (answer.action === 'deny') await connection.callService('approvals.deny', { id: approval.id, reason: answer.reason, by });
      else await connection.callService('approvals.edit', { id: approval.id, args: answer.args, by });
      this.#close();
      this.app.notice(`approval ${approval.id}: ${answer.action === 'approve' ? 'approved' : answer.action === 'deny' ? 'denied' : 'runs with the edited arguments'}`);
      if (rules) this.app.notice(`${rules === 1 ? 'a rule was' : `${rules} rules were`} added: the group runs this without asking from now on (xdog claw approvals rules; forget removes one)`);
    } catch (error) {
      this.#close();
      this.app.error(error);
      // A refused "always allow" answered nothing: the call still waits, so its dialog comes back.
      if (answer.action === 'approve' && answer.always) this.#waiting.unshift(approval);
    }
    this.#openNext();
  }

  #resolved(approval: ApprovalRecord): void {
    const index = this.#waiting.findIndex((item) => item.id === approval.id);
    if (index >= 0) this.#waiting.splice(index, 1);
    if (this.#dialog?.approval.id !== approval.id) return;
    this.#close();
    this.app.notice(`approval ${approval.id} was ${approval.status} by ${approval.answeredBy ?? 'someone'}`);
    this.#openNext();
  }
}
