/** What the `xdog claw agents` commands share: reaching the gateway's children service, and showing child records. */
import { ErrorCodes, XdogError } from '../../../core/errors.js';
import type { GatewayConnection } from '../../../plugins/claw-gateway/index.js';
import type { ChildInputRecord, DurableChildRecord } from '../../../plugins/children/index.js';
import { withGateway } from './gateway.js';
import { clean } from './render.js';

const CHILDREN_CAPABILITY = 'children:1';

/** Connects, checks that the gateway runs children, calls `method` with `params`. */
export function callAgents<T>(method: string, params: Record<string, unknown>, timeoutMs?: number): Promise<T> {
  return withGateway(async (gateway: GatewayConnection) => {
    if (!gateway.hello.capabilities.includes(CHILDREN_CAPABILITY)) {
      throw new XdogError(ErrorCodes.UNSUPPORTED, 'the running gateway has no children service', { hint: 'restart it with this xdog version (xdog claw gateway stop, then xdog claw gateway start)' });
    }
    return (await gateway.callService(method, params, timeoutMs === undefined ? undefined : { timeoutMs })) as T;
  });
}

/** One line per child: id, status, label, task, then its result or error (control characters cleaned). */
export function renderChildren(children: readonly DurableChildRecord[]): string {
  if (children.length === 0) return '(no children)';
  return children
    .map((child) => {
      const head = `${child.id} ${child.status}${child.label ? ` [${child.label}]` : ''} ${child.access}: ${clean(child.task, 80)}`;
      const tail = child.error ? `\n  error: ${clean(child.error, 500)}` : child.result ? `\n  result: ${clean(child.result, 2000)}` : '';
      return head + tail;
    })
    .join('\n');
}

/** Sends a steer or follow-up to a running child; answered only once the gateway journaled it. */
export function sendChildInput(method: 'agents.steer' | 'agents.follow_up', group: string | undefined, id: string, argv: readonly string[]): Promise<ChildInputRecord> {
  // The message is every argument after the id, so it needs no quoting.
  return callAgents<ChildInputRecord>(method, { group, id, text: argv.slice(1).join(' ') });
}

/** One line per journaled input of a child: `input #N lane status: text`. */
export function renderInputs(inputs: readonly ChildInputRecord[]): string {
  return inputs.map((input) => `  input #${input.id} ${input.lane} ${input.status}: ${clean(input.text, 200)}`).join('\n');
}

/** An input number as `xdog claw agents inspect` shows it (`#3` or `3`). */
export function inputNumber(raw: string): number {
  const value = Number(raw.replace(/^#/, ''));
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new XdogError(ErrorCodes.USAGE, `"${raw}" is not an input number`, { hint: 'give the N of "input #N" in xdog claw agents inspect' });
  }
  return value;
}
