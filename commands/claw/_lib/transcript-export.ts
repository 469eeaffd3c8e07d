/**
 * `sessions export`: reads a session's JSONL transcript from the gateway in
 * bounded chunks, checks every chunk against the previous one and the whole
 * against the SHA-256 the last chunk carries, and only then publishes the
 * file (atomically, 0600, never over an existing file). To stdout the bytes
 * stream as they come; a failed check then still fails the command.
 */
import { ErrorCodes, XdogError } from '../../../core/errors.js';
import { LIMITS } from '../../../core/limits.js';
import { readChunks, type FetchChunk } from '../../../core/rpc/index.js';
import { transcriptDiffers } from '../../../plugins/claw-gateway/chunked-client.js';
import type { TranscriptChunk } from '../../../plugins/claw-gateway/protocol.js';
import { writeAll, writeFileAtomic } from './atomic-file.js';

/** Reads one chunk of the transcript (plugins/claw-gateway/chunked-client.ts `transcriptChunks`). */
export type ChunkReader = FetchChunk<TranscriptChunk>;

export interface ExportResult {
  sessionId: string;
  bytes: number;
  sha256: string;
  /** The file written, or undefined for stdout. */
  output?: string;
}

/** Reads every chunk in order, passing each one's bytes to `sink`; verifies offsets, sizes and the final SHA-256. */
export async function readTranscript(read: ChunkReader, sink: (bytes: Buffer) => Promise<void> | void): Promise<ExportResult> {
  const result = await readChunks(read, sink, { what: 'the transcript', maxBytes: LIMITS.clawTranscriptBytes, overHint: 'the gateway serves no larger transcript', differs: transcriptDiffers });
  return { sessionId: result.first.sessionId, bytes: result.totalBytes, sha256: result.sha256 };
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
