/**
 * Chunked payloads over the extension channel. One JSON-RPC frame is capped
 * (LIMITS.extensionFrameBytes), but a context or a compaction preparation with
 * images can be far larger: a payload over one block is sent ahead as
 * numbered 64 KiB blocks, and the call carries a small reference instead
 * (its id, size, block count and SHA-256). The receiver accepts blocks only in
 * order and for a transfer it knows, and hands the payload over only when it
 * is complete and its checksum matches. Both directions use it: the host for
 * callback inputs, the worker for callback answers.
 */
import { createHash, randomUUID } from 'node:crypto';
import { JSONRPCErrorException, type JSONRPCServerAndClient } from 'json-rpc-2.0';
import { z } from 'zod';
import { ErrorCodes, XdogError } from '../../core/errors.js';
import { LIMITS } from '../../core/limits.js';

/** The key of a transfer reference: `{ [TRANSFER_KEY]: { id, bytes, blocks, sha256 } }` stands for the payload. */
export const TRANSFER_KEY = '$xdogTransfer';

/** Blocks sent before the sender waits for the first of them to be acknowledged. */
const WINDOW = 8;

const BLOCK = LIMITS.extensionTransferBlockBytes;
const MAX_BLOCKS = Math.ceil(LIMITS.extensionTransferBytes / BLOCK);

const BlockSchema = z
  .object({
    id: z.string().min(1).max(64),
    index: z.number().int().min(0).max(MAX_BLOCKS - 1),
    blocks: z.number().int().min(1).max(MAX_BLOCKS),
    data: z.string().max(Math.ceil(BLOCK / 3) * 4),
  })
  .strict();

const RefSchema = z
  .object({
    id: z.string().min(1).max(64),
    bytes: z.number().int().min(1).max(LIMITS.extensionTransferBytes),
    blocks: z.number().int().min(1).max(MAX_BLOCKS),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
  })
  .strict();

/**
 * Sends `value` ahead in blocks when its JSON is over one block and answers
 * the reference that stands for it; a smaller value is answered as is. Over
 * LIMITS.extensionTransferBytes it throws LIMIT_EXCEEDED before sending
 * anything; past the whole-transfer deadline it throws TIMEOUT.
 */
export async function packPayload(peer: JSONRPCServerAndClient, value: unknown, what: string): Promise<unknown> {
  const bytes = Buffer.from(JSON.stringify(value ?? null), 'utf8');
  if (bytes.length <= BLOCK) return value;
  if (bytes.length > LIMITS.extensionTransferBytes) {
    throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `${what} is ${bytes.length} bytes of JSON, over the ${LIMITS.extensionTransferBytes}-byte limit of one extension transfer`, {
      hint: 'send less at once (fewer or smaller images, a shorter history)',
    });
  }
  const id = randomUUID();
  const blocks = Math.ceil(bytes.length / BLOCK);
  const deadline = Date.now() + LIMITS.extensionTransferTimeoutMs;
  const inFlight: Array<PromiseLike<unknown>> = [];
  for (let index = 0; index < blocks; index++) {
    if (Date.now() > deadline) throw transferTimeout(what);
    if (inFlight.length >= WINDOW) await inFlight.shift();
    const data = bytes.subarray(index * BLOCK, (index + 1) * BLOCK).toString('base64');
    inFlight.push(peer.request('transferBlock', { id, index, blocks, data } as never, undefined));
  }
  await Promise.all(inFlight);
  if (Date.now() > deadline) throw transferTimeout(what);
  return { [TRANSFER_KEY]: { id, bytes: bytes.length, blocks, sha256: createHash('sha256').update(bytes).digest('hex') } };
}

function transferTimeout(what: string): XdogError {
  return new XdogError(ErrorCodes.UNAVAILABLE, `${what} did not cross the extension channel within ${LIMITS.extensionTransferTimeoutMs} ms`, { hint: 'the machine is overloaded, or the payload is too large' });
}

interface Incoming {
  blocks: number;
  chunks: Buffer[];
  bytes: number;
  timer: NodeJS.Timeout;
}

/** The receiving side of one channel: collects blocks (the `transferBlock` method) and resolves references. */
export class TransferInbox {
  readonly #open = new Map<string, Incoming>();

  constructor(peer: JSONRPCServerAndClient) {
    peer.addMethod('transferBlock', (params) => {
      this.#block(params);
      return null;
    });
  }

  /** The payload a reference stands for (checked whole), or `value` itself when it is no reference. */
  unpack(value: unknown): unknown {
    if (typeof value !== 'object' || value === null || !(TRANSFER_KEY in value)) return value;
    const ref = RefSchema.safeParse((value as Record<string, unknown>)[TRANSFER_KEY]);
    if (!ref.success) throw new Error('a transfer reference was malformed');
    const incoming = this.#open.get(ref.data.id);
    if (!incoming) throw new Error(`transfer ${ref.data.id} is unknown (never sent, already used, or past its deadline)`);
    this.#drop(ref.data.id);
    if (incoming.chunks.length !== ref.data.blocks || incoming.blocks !== ref.data.blocks || incoming.bytes !== ref.data.bytes) {
      throw new Error(`transfer ${ref.data.id} is incomplete: ${incoming.chunks.length} of ${ref.data.blocks} blocks, ${incoming.bytes} of ${ref.data.bytes} bytes`);
    }
    const payload = Buffer.concat(incoming.chunks);
    if (createHash('sha256').update(payload).digest('hex') !== ref.data.sha256) throw new Error(`transfer ${ref.data.id} failed its SHA-256 check`);
    return JSON.parse(payload.toString('utf8'));
  }

  /** Forgets every open transfer (the channel closed). */
  close(): void {
    for (const id of [...this.#open.keys()]) this.#drop(id);
  }

  #block(params: unknown): void {
    const parsed = BlockSchema.safeParse(params);
    if (!parsed.success) throw refuse('a transfer block was malformed');
    const { id, index, blocks, data } = parsed.data;
    let incoming = this.#open.get(id);
    if (index === 0) {
      if (incoming) throw refuse(`transfer ${id} was started twice`);
      if (this.#open.size >= LIMITS.extensionTransfersOpen) throw refuse(`more than ${LIMITS.extensionTransfersOpen} transfers at once`);
      const timer = setTimeout(() => this.#drop(id), LIMITS.extensionTransferTimeoutMs);
      timer.unref();
      incoming = { blocks, chunks: [], bytes: 0, timer };
      this.#open.set(id, incoming);
    }
    if (!incoming) throw refuse(`block ${index} of unknown transfer ${id}`);
    // Order and identity fence: the next block, of the same declared size.
    if (index !== incoming.chunks.length || blocks !== incoming.blocks) {
      this.#drop(id);
      throw refuse(`transfer ${id} got block ${index} of ${blocks}, expected ${incoming.chunks.length} of ${incoming.blocks}`);
    }
    const chunk = Buffer.from(data, 'base64');
    const last = index === blocks - 1;
    if (chunk.length === 0 || chunk.length > BLOCK || (!last && chunk.length !== BLOCK)) {
      this.#drop(id);
      throw refuse(`transfer ${id} block ${index} has ${chunk.length} bytes`);
    }
    incoming.chunks.push(chunk);
    incoming.bytes += chunk.length;
  }

  #drop(id: string): void {
    const incoming = this.#open.get(id);
    if (!incoming) return;
    clearTimeout(incoming.timer);
    this.#open.delete(id);
  }
}

function refuse(message: string): JSONRPCErrorException {
  return new JSONRPCErrorException(message, -32000);
}
