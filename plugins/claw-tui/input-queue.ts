/**
 * The TUI's own FIFO of turns typed while the group is busy. They stay on the
 * client until the running turn ends, so the user can still edit, reorder or
 * drop them; the next one is sent only when the group is idle. Bounded by the
 * gateway's limits (50 items, 64 KiB of text each): one more is refused, never
 * dropped or cut.
 */
import { ErrorCodes, XdogError } from '../../core/errors.js';
import type { ImageContent } from '../../core/index.js';
import { LIMITS, utf8Bytes } from '../../core/limits.js';

/** One turn waiting on the client. */
export interface QueuedTurn {
  /** Short and stable while it waits (`q1`, `q2`, ...), for `/queue edit q2 ...`. */
  id: string;
  text: string;
  images: ImageContent[];
}

export function checkInputText(text: string, what = 'the message'): void {
  const bytes = utf8Bytes(text);
  if (bytes > LIMITS.clawInputBytes) {
    throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `${what} is ${bytes} bytes, over the ${LIMITS.clawInputBytes}-byte limit of one input; it was not sent`, {
      hint: 'shorten it, or attach the content as a file in the workspace and refer to it',
    });
  }
}

export class InputQueue {
  readonly #items: QueuedTurn[] = [];
  #next = 1;

  get size(): number {
    return this.#items.length;
  }

  list(): readonly QueuedTurn[] {
    return this.#items;
  }

  /** Appends a turn; refuses one over the count or size limit (the queue is then unchanged). */
  add(text: string, images: ImageContent[] = []): QueuedTurn {
    checkInputText(text);
    if (this.#items.length >= LIMITS.clawQueuedInputs) {
      throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `the queue already holds ${LIMITS.clawQueuedInputs} turns; this one was not queued`, {
        hint: 'wait for the running turn, or drop some with /queue remove ID',
      });
    }
    const turn = { id: `q${this.#next++}`, text, images };
    this.#items.push(turn);
    return turn;
  }

  edit(id: string, text: string): void {
    checkInputText(text);
    this.#find(id).text = text;
  }

  remove(id: string): QueuedTurn {
    const index = this.#indexOf(id);
    return this.#items.splice(index, 1)[0]!;
  }

  move(id: string, direction: 'up' | 'down'): void {
    const index = this.#indexOf(id);
    const to = direction === 'up' ? index - 1 : index + 1;
    if (to < 0 || to >= this.#items.length) {
      throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `${id} is already at the ${direction === 'up' ? 'front' : 'end'} of the queue`);
    }
    [this.#items[index], this.#items[to]] = [this.#items[to]!, this.#items[index]!];
  }

  /** Takes the oldest turn out (to send it). */
  shift(): QueuedTurn | undefined {
    return this.#items.shift();
  }

  /** Puts a turn that could not be sent back at the front, under its old id. */
  restore(turn: QueuedTurn): void {
    this.#items.unshift(turn);
  }

  clear(): QueuedTurn[] {
    return this.#items.splice(0);
  }

  #indexOf(id: string): number {
    const index = this.#items.findIndex((item) => item.id === id);
    if (index < 0) {
      throw new XdogError(ErrorCodes.NOT_FOUND, `no queued turn ${id}`, { hint: this.#items.length ? `queued: ${this.#items.map((item) => item.id).join(', ')}` : 'the queue is empty' });
    }
    return index;
  }

  #find(id: string): QueuedTurn {
    return this.#items[this.#indexOf(id)]!;
  }
}
