/**
 * Extension dialogs in the gateway: an extension's `select`, `input` or
 * `confirm` during a group's work is published to the group's clients as an
 * `extension.dialog` notification; the first client to answer
 * (`extensions.answer`) decides it, and `extension.dialog.closed` tells the
 * others to close theirs. Unanswered, it gets the no-answer (`undefined`,
 * `false`) at its own timeout. At most `LIMITS.extensionDialogsPending` wait
 * per group; one more gets the no-answer at once.
 */
import type { z } from 'zod';
import { ErrorCodes, XdogError } from '../../core/errors.js';
import { LIMITS } from '../../core/limits.js';
import type { DialogSchema } from './protocol.js';

export const DialogNotifications = { asked: 'extension.dialog', closed: 'extension.dialog.closed' } as const;

type DialogRequest = z.infer<typeof DialogSchema>;
type Answer = string | boolean | undefined;

/** What `extension.dialog` carries (and `extensions.dialogs` lists). */
export interface DialogView extends DialogRequest {
  group: string;
  dialogId: string;
  extensionId: string;
  /** Epoch milliseconds when it gets the no-answer. */
  expiresAt: number;
}

interface Pending {
  view: DialogView;
  resolve(answer: Answer): void;
  timer: NodeJS.Timeout;
}

export class DialogRelay {
  readonly #pending = new Map<string, Pending>();
  #next = 1;

  constructor(
    private readonly publish: (group: string, method: string, params: unknown) => void,
    private readonly now: () => number = Date.now,
  ) {}

  ask(group: string, extensionId: string, request: DialogRequest): Promise<Answer> {
    if (this.pendingIn(group).length >= LIMITS.extensionDialogsPending) return Promise.resolve(undefined);
    const dialogId = `d${this.#next++}`;
    const view: DialogView = { group, dialogId, extensionId, ...request, expiresAt: this.now() + request.timeoutSeconds * 1000 };
    return new Promise<Answer>((resolve) => {
      const timer = setTimeout(() => this.#close(dialogId, undefined, 'timed out'), request.timeoutSeconds * 1000);
      timer.unref();
      this.#pending.set(dialogId, { view, resolve, timer });
      this.publish(group, DialogNotifications.asked, view);
    });
  }

  pendingIn(group: string): DialogView[] {
    return [...this.#pending.values()].filter((pending) => pending.view.group === group).map((pending) => pending.view);
  }

  /** A client's answer: `null` cancels (the no-answer); a select's answer must be one of its options, a confirm's a boolean. */
  answer(group: string, dialogId: string, answer: string | boolean | null): void {
    const pending = this.#pending.get(dialogId);
    if (!pending || pending.view.group !== group) throw new XdogError(ErrorCodes.NOT_FOUND, `no extension dialog ${dialogId} is waiting in group ${group}`, { hint: 'it was answered elsewhere or timed out' });
    const { kind, options } = pending.view;
    if (answer !== null) {
      if (kind === 'confirm' && typeof answer !== 'boolean') throw new XdogError(ErrorCodes.INVALID_ARGUMENT, 'a confirm dialog is answered with true or false');
      if (kind !== 'confirm' && typeof answer !== 'string') throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `a ${kind} dialog is answered with text`);
      if (kind === 'select' && !(options ?? []).includes(answer as string)) throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `${JSON.stringify(answer)} is not one of the dialog's options`);
    }
    this.#close(dialogId, answer === null ? undefined : answer, 'answered');
  }

  #close(dialogId: string, answer: Answer, reason: 'answered' | 'timed out'): void {
    const pending = this.#pending.get(dialogId);
    if (!pending) return;
    this.#pending.delete(dialogId);
    clearTimeout(pending.timer);
    pending.resolve(answer);
    this.publish(pending.view.group, DialogNotifications.closed, { group: pending.view.group, dialogId, reason });
  }
}
