/**
 * `xdog agent chat` asks on its TTY: an ApprovalBroker that shows the asked
 * call (tool, reason, the full arguments) on stderr and takes one line:
 * `a` approves, `d [REASON]` denies (the model sees the reason), `e JSON`
 * runs the call with the edited arguments. In the interactive chat the
 * chat's own line reader hands its next line here (`answer`); a one-shot chat
 * on a TTY reads the line itself. Without a TTY no broker is made, so an
 * ask is a denial naming the reason (the agent's default).
 */
import readline from 'node:readline';
import type { ApprovalAnswer, ApprovalBroker, ApprovalRequest } from '../../../core/index.js';
import type { Output } from './render.js';

const CHOICES = 'a = approve, d [reason] = deny, e {json} = run with these arguments instead';

/** What a typed answer means, or why it means nothing. */
export function parseApprovalLine(line: string): ApprovalAnswer | { problem: string } {
  const text = line.trim();
  const [word = '', ...rest] = text.split(/\s+/);
  const tail = text.slice(word.length).trim();
  if (['a', 'approve', 'y', 'yes'].includes(word.toLowerCase()) && rest.length === 0) return { action: 'approve' };
  if (['d', 'deny', 'n', 'no'].includes(word.toLowerCase())) return { action: 'deny', reason: tail || 'the user denied it at the terminal' };
  if (['e', 'edit'].includes(word.toLowerCase())) {
    let args: unknown;
    try {
      args = JSON.parse(tail);
    } catch {
      return { problem: 'e needs the new arguments as one JSON object, e.g. e {"command":"ls"}' };
    }
    if (typeof args !== 'object' || args === null || Array.isArray(args)) return { problem: 'the edited arguments must be a JSON object' };
    return { action: 'edit', args: args as Record<string, unknown> };
  }
  return { problem: `answer with ${CHOICES}` };
}

interface Waiting {
  resolve(answer: ApprovalAnswer): void;
}

export class TtyApprovals implements ApprovalBroker {
  #waiting?: Waiting;

  constructor(
    private readonly output: Output,
    /** Set when the interactive chat routes its lines here; otherwise each question reads stdin itself. */
    private readonly routed: boolean,
    private readonly input: NodeJS.ReadableStream = process.stdin,
  ) {}

  /** True while a question waits for its line. */
  get pending(): boolean {
    return this.#waiting !== undefined;
  }

  /** Gives a typed line to the waiting question; false when it means nothing (the question is shown again). */
  answer(line: string): boolean {
    const parsed = parseApprovalLine(line);
    if ('problem' in parsed) {
      this.output.stderr(`${parsed.problem}\napprove? `);
      return false;
    }
    const waiting = this.#waiting;
    this.#waiting = undefined;
    waiting?.resolve(parsed);
    return true;
  }

  request(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
    // The whole arguments, pretty-printed; the chat's terminal output escapes control characters.
    const args = JSON.stringify(request.args, null, 2);
    this.output.stderr(`\n── approval needed: ${request.toolCall.name} ──\n${request.reason}\narguments:\n${args}\n${CHOICES}\napprove? `);
    return new Promise<ApprovalAnswer>((resolve, reject) => {
      if (signal.aborted) return reject(new Error('the run was aborted'));
      const rl = this.routed ? undefined : readline.createInterface({ input: this.input, output: process.stderr, terminal: false });
      const finish = (): void => {
        signal.removeEventListener('abort', onAbort);
        rl?.close();
      };
      const onAbort = (): void => {
        this.#waiting = undefined;
        finish();
        reject(new Error('the run was aborted'));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.#waiting = {
        resolve: (answer) => {
          finish();
          resolve(answer);
        },
      };
      if (!rl) return;
      rl.on('line', (line) => void this.answer(line));
      rl.on('close', () => {
        if (!this.#waiting) return;
        this.#waiting = undefined;
        signal.removeEventListener('abort', onAbort);
        resolve({ action: 'deny', reason: 'the terminal closed before anyone answered' });
      });
    });
  }
}
