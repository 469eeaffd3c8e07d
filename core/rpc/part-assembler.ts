/**
 * The client's side of notifications sent in parts (docs/protocol.md, "Large
 * notifications"): joins the `notification.part` frames of one notification,
 * which arrive in order and back to back, into its JSON bytes. Bounded by
 * LIMITS.clawNotificationBytes; parts out of order are a broken connection.
 */
import { ErrorCodes, XdogError } from '../errors.js';
import { LIMITS } from '../limits.js';
import type { NotificationPart } from './frames.js';

function broken(problem: string): XdogError {
  return new XdogError(ErrorCodes.UNAVAILABLE, `the gateway sent a notification part that does not fit: ${problem}`, { hint: 'the gateway and this client may be different versions' });
}

function isPart(value: unknown): value is NotificationPart {
  const part = value as Partial<NotificationPart> | null;
  return (
    typeof part === 'object' &&
    part !== null &&
    Number.isSafeInteger(part.id) &&
    Number.isSafeInteger(part.offset) &&
    Number.isSafeInteger(part.totalBytes) &&
    typeof part.data === 'string' &&
    typeof part.last === 'boolean'
  );
}

export class PartAssembler {
  #id: number | undefined;
  #total = 0;
  #received = 0;
  #chunks: Buffer[] = [];

  /** Takes one part's params: the whole notification's JSON bytes after its last part, else undefined. Throws UNAVAILABLE for a part that does not fit. */
  add(params: unknown): Buffer | undefined {
    if (!isPart(params)) throw broken('its params are not {id, offset, totalBytes, data, last}');
    if (params.offset === 0) {
      if (this.#id !== undefined) throw broken(`notification ${params.id} started before notification ${this.#id} ended`);
      if (params.totalBytes > LIMITS.clawNotificationBytes) throw broken(`it announces ${params.totalBytes} bytes, over the ${LIMITS.clawNotificationBytes}-byte limit of one notification`);
      this.#id = params.id;
      this.#total = params.totalBytes;
    } else if (params.id !== this.#id || params.offset !== this.#received || params.totalBytes !== this.#total) {
      throw broken(`part at ${params.offset} of notification ${params.id} does not follow ${this.#received} bytes of notification ${String(this.#id)}`);
    }
    const bytes = Buffer.from(params.data, 'base64');
    this.#received += bytes.length;
    if (this.#received > this.#total || params.last !== (this.#received === this.#total)) throw broken(`notification ${params.id} does not end at its ${this.#total} bytes`);
    this.#chunks.push(bytes);
    if (!params.last) return undefined;
    const whole = Buffer.concat(this.#chunks);
    this.#id = undefined;
    this.#chunks = [];
    this.#received = 0;
    return whole;
  }
}
