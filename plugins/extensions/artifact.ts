/**
 * Command artifacts: a rich command result as a file, the versioned
 * `xdog.extension-command/v1` envelope (at most LIMITS.extensionArtifactBytes).
 * Its SHA-256 covers the canonical JSON (keys sorted) of the validated
 * identity, content and metadata; it detects corruption, not authorship, so
 * a read file is untrusted data: every part is validated again, and reading
 * one only displays it (nothing in it is run, sent to a model or activated).
 */
import crypto from 'node:crypto';
import { z } from 'zod';
import { readRegularFile } from '../../core/bounded-read.js';
import { ErrorCodes, XdogError } from '../../core/errors.js';
import { LIMITS } from '../../core/limits.js';
import { writePrivateFile } from '../../core/private-file.js';
import { commandResult, contentProblems, type CommandContent, type ExtensionCommandResult } from './command-result.js';
import { PUBLIC_NAME_PATTERN, RichAnswerSchema } from './protocol.js';

export const ARTIFACT_FORMAT = 'xdog.extension-command/v1';

const IdentitySchema = z
  .object({
    extension: z.string().min(1).max(214),
    command: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,31}$/i, 'a command name'),
    publicName: z.string().regex(PUBLIC_NAME_PATTERN).optional(),
  })
  .strict();
const MetadataSchema = z.object({ createdAt: z.iso.datetime() }).strict();
const EnvelopeSchema = z
  .object({
    format: z.string(),
    sha256: z.string().regex(/^[0-9a-f]{64}$/, 'a SHA-256 in hex'),
    identity: IdentitySchema,
    content: RichAnswerSchema.omit({ kind: true }),
    metadata: MetadataSchema,
  })
  .strict();

/** JSON with object keys sorted at every level: the text the checksum covers. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

function checksum(body: { identity: unknown; content: unknown; metadata: unknown }): string {
  return crypto.createHash('sha256').update(canonical(body)).digest('hex');
}

/** The artifact file of a result (its image bytes, text and JSON kept exactly). */
export function artifactBytes(result: ExtensionCommandResult, now: Date = new Date()): Buffer {
  const identity = { extension: result.extension, command: result.command, ...(result.publicName !== undefined && { publicName: result.publicName }) };
  const body = { identity, content: result.content, metadata: { createdAt: now.toISOString() } };
  const bytes = Buffer.from(`${JSON.stringify({ format: ARTIFACT_FORMAT, sha256: checksum(body), ...body }, null, 2)}\n`);
  if (bytes.length > LIMITS.extensionArtifactBytes) {
    throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `the artifact would be ${bytes.length} bytes, over the ${LIMITS.extensionArtifactBytes}-byte limit`, { hint: 'a result that passed the host fits; this one did not come through the host' });
  }
  return bytes;
}

/** A result back from artifact bytes, every part validated; refuses other versions, tampering and malformed content. */
export function artifactFromBytes(bytes: Uint8Array, shown = 'the artifact'): ExtensionCommandResult {
  const refuse = (problem: string, hint = 'only files written by /artifact save (xdog.extension-command/v1) can be read'): never => {
    throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `${shown} is refused: ${problem}`, { hint });
  };
  if (bytes.length > LIMITS.extensionArtifactBytes) refuse(`it is ${bytes.length} bytes, over ${LIMITS.extensionArtifactBytes}`);
  let data: unknown;
  try {
    data = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch (error) {
    refuse(`it is not JSON (${(error as Error).message})`);
  }
  const format = (data as { format?: unknown } | null)?.format;
  if (format !== ARTIFACT_FORMAT) refuse(`its format is ${JSON.stringify(format)}, not ${ARTIFACT_FORMAT}`, 'this xdog reads only xdog.extension-command/v1 artifacts');
  const parsed = EnvelopeSchema.safeParse(data);
  if (!parsed.success) refuse(parsed.error.issues.map((issue) => `${issue.path.join('.') || 'envelope'}: ${issue.message}`).join('; '));
  const { identity, content, metadata, sha256 } = parsed.data!;
  if (checksum({ identity, content, metadata }) !== sha256) refuse('its SHA-256 does not match its content (the file was changed or damaged)');
  const problems = contentProblems(content as CommandContent);
  if (problems.length) refuse(problems.join('; '));
  return commandResult(identity.extension, identity.command, identity.publicName, content as CommandContent);
}

/** Writes a result's artifact to a new 0600 file (never over an existing one); the absolute path. */
export function writeArtifact(file: string, result: ExtensionCommandResult): string {
  return writePrivateFile(file, artifactBytes(result));
}

/** Reads an artifact file: a regular file of at most LIMITS.extensionArtifactBytes (a FIFO or device is refused unread). */
export async function readArtifact(file: string): Promise<ExtensionCommandResult> {
  let bytes: Buffer;
  try {
    bytes = await readRegularFile(file, { maxBytes: LIMITS.extensionArtifactBytes, what: 'the artifact', code: ErrorCodes.INVALID_ARGUMENT });
  } catch (error) {
    if (XdogError.is(error)) throw error;
    throw new XdogError(ErrorCodes.NOT_FOUND, `cannot read the artifact ${file}: ${(error as Error).message}`, { hint: 'give the path of a file written by /artifact save' });
  }
  return artifactFromBytes(bytes, `the artifact ${file}`);
}
