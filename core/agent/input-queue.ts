/**
 * Queued steers and follow-ups, plain (steer()/followUp()) or identified
 * (queueInput()). An entry is `queued` until a checkpoint selects it, then
 * leaves the queue only when it is admitted, handled or (plain only)
 * rejected. Identified rejected entries stay, marked, until drained, so the
 * caller can recover them; they are never selected again.
 */
import { z } from 'zod';
import { ErrorCodes, XdogError } from '../errors.js';
import { LIMITS, utf8Bytes } from '../limits.js';
import { ImageContentSchema, type ImageContent } from './messages.js';
import type { InputChange, InputLane, QueuedInput, QueuedInputState } from './types.js';

/** One queued input; mutable inside the queue only. */
export interface QueueEntry {
  id?: string;
  text: string;
  images: ImageContent[];
  lane: InputLane;
  state: QueuedInputState;
  rejectReason?: string;
}

function view(entry: QueueEntry): QueuedInput {
  return Object.freeze({
    id: entry.id!,
    text: entry.text,
    images: Object.freeze([...entry.images]),
    lane: entry.lane,
    state: entry.state,
    ...(entry.rejectReason === undefined ? {} : { rejectReason: entry.rejectReason }),
  });
}

/** How many inputs a queue holds and how long one may be; a host may set its own (claw allows 50 of 64 KiB). */
export interface InputLimits {
  count: number;
  bytes: number;
}

export const DEFAULT_INPUT_LIMITS: Readonly<InputLimits> = Object.freeze({ count: LIMITS.queuedInputs, bytes: LIMITS.queuedInputBytes });

function checkText(text: string, limit: number): void {
  if (typeof text !== 'string') throw new XdogError(ErrorCodes.INVALID_ARGUMENT, 'queued input text must be a string');
  const bytes = utf8Bytes(text);
  if (bytes > limit) {
    throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `a queued input is ${bytes} bytes, over the limit of ${limit}`, {
      hint: 'send long text with prompt() instead of queueing it',
    });
  }
}

const ImagesSchema = z.array(ImageContentSchema);

/** Queued images are validated like a prompt's: a malformed part would otherwise reach history unchecked. */
function checkImages(images: unknown): ImageContent[] {
  const parsed = ImagesSchema.safeParse(images);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `queued input images are invalid: ${issue?.path.join('.') || '(list)'}: ${issue?.message ?? 'bad shape'}`, {
      hint: 'pass a list of { type: "image", mimeType, data } parts (data in base64)',
    });
  }
  return parsed.data;
}

export class InputQueue {
  readonly #lanes: Record<InputLane, QueueEntry[]> = { steer: [], followUp: [] };
  readonly limits: Readonly<InputLimits>;

  constructor(limits: InputLimits = DEFAULT_INPUT_LIMITS) {
    for (const [name, value] of Object.entries(limits)) {
      if (!Number.isSafeInteger(value) || value < 1) throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `input limit ${name} must be a positive integer, got ${String(value)}`);
    }
    this.limits = Object.freeze({ ...limits });
  }

  get size(): number {
    return this.#lanes.steer.length + this.#lanes.followUp.length;
  }

  /** Queues one input; enforces the count and size limits and unique ids. */
  add(entry: Omit<QueueEntry, 'state' | 'images'> & { images: readonly ImageContent[] }): QueueEntry {
    if (entry.lane !== 'steer' && entry.lane !== 'followUp') {
      throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `unknown input lane ${JSON.stringify(entry.lane)}`, { hint: 'use "steer" or "followUp"' });
    }
    checkText(entry.text, this.limits.bytes);
    const images = checkImages(entry.images);
    if (this.size >= this.limits.count) {
      throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `${this.size} inputs are already queued, the limit is ${this.limits.count}`, {
        hint: 'wait for the agent to consume some, or drainInputs() the ones you no longer need',
      });
    }
    if (entry.id !== undefined) {
      if (typeof entry.id !== 'string' || entry.id.length === 0) throw new XdogError(ErrorCodes.INVALID_ARGUMENT, 'a queued input id must be a non-empty string');
      if (this.#find(entry.id)) {
        throw new XdogError(ErrorCodes.CONFLICT, `an input with id "${entry.id}" is already queued`, { hint: 'use a fresh id, or changeInput() to edit it' });
      }
    }
    const queued: QueueEntry = { ...entry, images, state: 'queued' };
    this.#lanes[entry.lane].push(queued);
    return queued;
  }

  /** The identified inputs of both lanes, steer lane first, in order. */
  pending(): QueuedInput[] {
    return [...this.#lanes.steer, ...this.#lanes.followUp].filter((entry) => entry.id !== undefined).map(view);
  }

  /** Edits, removes or moves (by -1/+1 within its lane) an identified input that no checkpoint has selected yet. */
  change(id: string, change: InputChange, argument?: string | number): QueuedInput | undefined {
    const entry = this.#find(id);
    if (!entry) throw new XdogError(ErrorCodes.NOT_FOUND, `no queued input with id "${id}"`, { hint: 'it may already have been consumed; see pendingInputs()' });
    if (entry.state !== 'queued') {
      throw new XdogError(ErrorCodes.INVALID_STATE, `input "${id}" is ${entry.state} and can no longer be changed`, {
        hint: entry.state === 'rejected' ? 'recover it with drainInputs()' : 'wait for the checkpoint to admit or refuse it',
      });
    }
    const lane = this.#lanes[entry.lane];
    const index = lane.indexOf(entry);
    switch (change) {
      case 'edit':
        if (typeof argument !== 'string') throw new XdogError(ErrorCodes.INVALID_ARGUMENT, 'edit needs the new text');
        checkText(argument, this.limits.bytes);
        entry.text = argument;
        return view(entry);
      case 'remove':
        lane.splice(index, 1);
        return undefined;
      case 'move': {
        if (argument !== -1 && argument !== 1) throw new XdogError(ErrorCodes.INVALID_ARGUMENT, 'move takes -1 or +1', { hint: 'move one place at a time within its lane' });
        const target = index + argument;
        if (target < 0 || target >= lane.length) {
          throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `input "${id}" is already at the ${argument < 0 ? 'front' : 'back'} of its lane`);
        }
        if (lane[target]!.state !== 'queued') throw new XdogError(ErrorCodes.INVALID_STATE, `cannot move input "${id}" past a selected or rejected input`);
        [lane[index], lane[target]] = [lane[target]!, lane[index]!];
        return view(entry);
      }
      default:
        throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `unknown change ${JSON.stringify(change)}`, { hint: 'use "edit", "remove" or "move"' });
    }
  }

  /** True when `lane` holds an input a checkpoint could select. */
  hasQueued(lane: InputLane): boolean {
    return this.#lanes[lane].some((entry) => entry.state === 'queued');
  }

  /** Selects the first queued input of `lane`. */
  select(lane: InputLane): QueueEntry | undefined {
    const entry = this.#lanes[lane].find((candidate) => candidate.state === 'queued');
    if (entry) entry.state = 'selected';
    return entry;
  }

  /** The entry was admitted or handled: it leaves the queue. */
  remove(entry: QueueEntry): void {
    const lane = this.#lanes[entry.lane];
    const index = lane.indexOf(entry);
    if (index >= 0) lane.splice(index, 1);
  }

  /** A transform refused the entry: identified inputs stay (recoverable), plain ones leave. */
  reject(entry: QueueEntry, reason: string): void {
    if (entry.id === undefined) this.remove(entry);
    else {
      entry.state = 'rejected';
      entry.rejectReason = reason;
    }
  }

  /** Returns selected-but-unadmitted entries to the queue (the run stopped before admitting them). */
  releaseSelected(): void {
    for (const entry of [...this.#lanes.steer, ...this.#lanes.followUp]) if (entry.state === 'selected') entry.state = 'queued';
  }

  /** Removes and returns the unconsumed identified inputs whose id starts with `prefix`. Plain inputs stay. */
  drain(prefix: string): QueuedInput[] {
    const drained: QueuedInput[] = [];
    for (const lane of Object.values(this.#lanes)) {
      for (let index = 0; index < lane.length; ) {
        const entry = lane[index]!;
        if (entry.id !== undefined && entry.id.startsWith(prefix)) {
          drained.push(view(entry));
          lane.splice(index, 1);
        } else index++;
      }
    }
    return drained;
  }

  #find(id: string): QueueEntry | undefined {
    return this.#lanes.steer.find((entry) => entry.id === id) ?? this.#lanes.followUp.find((entry) => entry.id === id);
  }
}
