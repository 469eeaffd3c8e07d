/**
 * Clients' side of the gateway's chunked reads (docs/protocol.md, "Chunked
 * reads"): how to ask for a chunk of `transcript.read` or of a service's
 * chunked method (`agents.source`, `mcp.read`, `mcp.prompt`), for the reader
 * in core/rpc/chunked-read.ts that checks them. Used by the TUI and the CLI.
 */
import type { FetchChunk, SnapshotChunk } from '../../core/rpc/index.js';
import type { CallOptions } from './transport/index.js';
import type { TranscriptChunk } from './protocol.js';

/** Any way of calling a method with options: a GatewayConnection's `callService`, or a host that adds its own. */
export type ChunkCall = (method: string, params: Record<string, unknown>, options: CallOptions) => Promise<unknown>;

/** The chunks of `method` called with `params`: later ones name the first one's snapshot. */
export function chunksOf<C extends SnapshotChunk>(call: ChunkCall, method: string, params: Record<string, unknown>): FetchChunk<C> {
  return async ({ offset, snapshot, signal, timeoutMs }) => (await call(method, { ...params, offset, ...(snapshot === undefined ? {} : { snapshot }) }, { signal, timeoutMs })) as C;
}

/** The chunks of a session's transcript (its snapshot id is the end entry id, `untilEntryId`). */
export function transcriptChunks(call: ChunkCall, group: string | undefined, sessionId: string | undefined): FetchChunk<TranscriptChunk> {
  return async ({ offset, snapshot, signal, timeoutMs }) =>
    (await call('transcript.read', { group, sessionId, offset, ...(snapshot === undefined ? {} : { untilEntryId: Number(snapshot) }) }, { signal, timeoutMs })) as TranscriptChunk;
}

/** What every chunk of one transcript read repeats besides the snapshot and size. */
export function transcriptDiffers(first: TranscriptChunk, chunk: TranscriptChunk): string | undefined {
  return chunk.sessionId !== first.sessionId || chunk.untilEntryId !== first.untilEntryId ? 'its session or end entry differs from the first chunk' : undefined;
}
