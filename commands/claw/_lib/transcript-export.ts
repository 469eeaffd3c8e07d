/**
 * `sessions export`: reads a session's JSONL transcript from the gateway in
 * bounded chunks, checks every chunk against the previous one and the whole
 * against the SHA-256 the last chunk carries, and only then publishes the
 * file (atomically, 0600, never over an existing file). To stdout the bytes
 * stream as they come; a failed check then still fails the command.
 */
import crypto from 'node:crypto';
import { ErrorCodes, XdogError } from '../../../core/errors.js';
import { LIMITS } from '../../../core/limits.js';
import type { TranscriptChunk } from '../../../plugins/claw-gateway/protocol.js';
import { writeAll, writeFileAtomic } from './atomic-file.js';

/** Reads one chunk: `offset` into the transcript, `untilEntryId` from the first chunk's answer. */
export type ChunkReader = (offset: number, untilEntryId: number | undefined) => Promise<TranscriptChunk>;

export interface ExportResult {
  sessionId: string;
  bytes: number;
  sha256: string;
  /** The file written, or undefined for stdout. */
  output?: string;
}

/** Reads every chunk in order, passing each one's bytes to `sink`; verifies offsets, sizes and the final SHA-256. */
export async function readTranscript(read: ChunkReader, sink: (bytes: Buffer) => Promise<void> | void): Promise<ExportResult> {
  const hash = crypto.createHash('sha256');
  let offset = 0;
  let untilEntryId: number | undefined;
  let totalBytes: number | undefined;
  let sessionId: string | undefined;
  for (;;) {
    const chunk = await read(offset, untilEntryId);
    const bytes = Buffer.from(chunk.data, 'base64');
    const problem =
      chunk.offset !== offset
        ? `it starts at byte ${chunk.offset}, not ${offset}`
        : bytes.length > LIMITS.clawTranscriptChunkBytes
          ? `it holds ${bytes.length} bytes, over the ${LIMITS.clawTranscriptChunkBytes}-byte chunk limit`
          : chunk.nextOffset !== offset + bytes.length
            ? `it holds ${bytes.length} bytes but says the next one starts at ${chunk.nextOffset}`
            : totalBytes !== undefined && (chunk.totalBytes !== totalBytes || chunk.untilEntryId !== untilEntryId || chunk.sessionId !== sessionId)
              ? 'its session, size or end entry differs from the first chunk'
              : chunk.nextOffset > chunk.totalBytes || (chunk.done && chunk.nextOffset !== chunk.totalBytes)
                ? `it ends at ${chunk.nextOffset} of ${chunk.totalBytes} bytes`
                : !chunk.done && bytes.length === 0
                  ? 'it is empty but not the last'
                  : undefined;
    if (problem) throw corrupt(`chunk at byte ${offset} is inconsistent: ${problem}`);
    sessionId = chunk.sessionId;
    untilEntryId = chunk.untilEntryId;
    totalBytes = chunk.totalBytes;
    hash.update(bytes);
    await sink(bytes);
    offset = chunk.nextOffset;
    if (chunk.done) {
      const sha256 = hash.digest('hex');
      if (chunk.sha256 !== sha256) throw corrupt(`the transcript's SHA-256 is ${sha256} but the gateway sent ${chunk.sha256 ?? 'none'}`);
      return { sessionId, bytes: offset, sha256 };
    }
  }
}

/** Exports to `output` (published only when complete and verified) or, without it, to `stdout`. */
export async function exportTranscript(read: ChunkReader, output: string | undefined, stdout: (bytes: Buffer) => Promise<void> | void): Promise<ExportResult> {
  if (output === undefined) {
    return readTranscript(read, stdout).catch((error: unknown) => {
      throw XdogError.is(error) ? amend(error, 'what was printed is incomplete or wrong') : error;
    });
  }
  let result: ExportResult | undefined;
  await writeFileAtomic(
    output,
    async (fd) => {
      result = await readTranscript(read, (bytes) => writeAll(fd, bytes)).catch((error: unknown) => {
        throw XdogError.is(error) && error.code === ErrorCodes.INVALID_STATE ? amend(error, `${output} was not written`) : error;
      });
    },
    { overwrite: false },
  );
  return { ...result!, output };
}

function amend(error: XdogError, consequence: string): XdogError {
  return new XdogError(error.code, `${error.message}; ${consequence}`, { hint: error.hint, cause: error });
}

/** Writes to a stream, waiting for it to drain when its buffer is full (a slow reader never grows memory). */
export async function writeToStream(stream: NodeJS.WritableStream, bytes: Buffer): Promise<void> {
  if (!stream.write(bytes)) await new Promise<void>((resolve) => stream.once('drain', resolve));
}

function corrupt(message: string): XdogError {
  return new XdogError(ErrorCodes.INVALID_STATE, `the transcript read failed: ${message}`, {
    hint: 'try again; if it keeps failing, the gateway log says more',
  });
}
