/** What the `xdog claw agents` commands share: reaching the gateway's children service, and showing child records. */
import { Flags } from '@oclif/core';
import { ErrorCodes, XdogError } from '../../../core/errors.js';
import type { ImageContent, Message } from '../../../core/index.js';
import { LIMITS } from '../../../core/limits.js';
import { readSnapshot } from '../../../core/rpc/index.js';
import { chunksOf } from '../../../plugins/claw-gateway/chunked-client.js';
import { prepareImages, type GatewayConnection } from '../../../plugins/claw-gateway/index.js';
import { parseChildInput, parseChildSource } from '../../../plugins/children/child-source.js';
import type { ChildCompactionArchive, ChildInputRecord, ChildInputSource, ChildSource, DurableChildRecord } from '../../../plugins/children/index.js';
import { withGateway } from './gateway.js';
import { clean, table } from './render.js';

const CHILDREN_CAPABILITY = 'children:1';

/** `--image FILE` (repeatable) of the commands that send a child its task or an input. */
// Non-greedy: the words after `--image FILE` are the message, not more files (repeat --image for each).
export const imageFlag = Flags.string({ description: 'attach a PNG, JPEG or WebP image (repeat for more: up to 4; 10 MiB each; big ones go as chunked uploads)', multiple: true, multipleNonGreedy: true });

/** The files of `--image`, checked as the TUI checks attachments (the type from the bytes, 4 images, 10 MiB each, 100 megapixels). */
export async function readImages(files: readonly string[] | undefined): Promise<ImageContent[]> {
  if (!files?.length) return [];
  // Loaded only when images are given: the checks bring the terminal-image decoder.
  const { Attachments } = await import('../../../plugins/claw-tui/attachments.js');
  const attachments = new Attachments();
  for (const file of files ?? []) attachments.add(file);
  return attachments.take();
}

/**
 * Connects, checks that the gateway runs children, calls `method` with
 * `params`; `images` go as the call's `images`, big ones uploaded first on
 * the same connection (an upload belongs to the connection that made it).
 */
export function callAgents<T>(method: string, params: Record<string, unknown>, options: { timeoutMs?: number; images?: readonly ImageContent[] } = {}): Promise<T> {
  return withAgents(async (gateway) => {
    const images = options.images?.length ? { images: await prepareImages(gateway, options.images) } : {};
    return (await gateway.callService(method, { ...params, ...images }, options.timeoutMs === undefined ? undefined : { timeoutMs: options.timeoutMs })) as T;
  });
}

/** Connects and checks that the gateway runs children. */
export function withAgents<T>(use: (gateway: GatewayConnection) => Promise<T>): Promise<T> {
  return withGateway(async (gateway: GatewayConnection) => {
    if (!gateway.hello.capabilities.includes(CHILDREN_CAPABILITY)) {
      throw new XdogError(ErrorCodes.UNSUPPORTED, 'the running gateway has no children service', { hint: 'restart it with this xdog version (xdog claw gateway stop, then xdog claw gateway start)' });
    }
    return use(gateway);
  });
}

/** A child's stored transcript, read in verified chunks of one snapshot (`agents.source`). */
export function readChildSource(gateway: GatewayConnection, group: string | undefined, id: string): Promise<ChildSource> {
  const options = { what: `the transcript of child ${id}`, maxBytes: LIMITS.childSourceBytes, overHint: 'read its result with `xdog claw agents inspect` (without --transcript)' };
  return readSnapshot(chunksOf(gateway.callService, 'agents.source', { group, id }), options, (body) => parseChildSource(body.bytes()));
}

/** One journaled input with its images, read in verified chunks (`agents.input_source`). */
export function readChildInput(gateway: GatewayConnection, group: string | undefined, id: string, input: number): Promise<ChildInputSource> {
  const options = { what: `input #${input} of child ${id}`, maxBytes: LIMITS.childInputSourceBytes, overHint: 'see its text with `xdog claw agents inspect`' };
  return readSnapshot(chunksOf(gateway.callService, 'agents.input_source', { group, id, input }), options, (body) => parseChildInput(body.bytes()));
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
export function sendChildInput(method: 'agents.steer' | 'agents.follow_up', group: string | undefined, id: string, argv: readonly string[], images: readonly ImageContent[] = []): Promise<ChildInputRecord> {
  // The message is every argument after the id, so it needs no quoting.
  return callAgents<ChildInputRecord>(method, { group, id, text: argv.slice(1).join(' ') }, { images });
}

/** One line per journaled input of a child: `input #N lane status: text`. */
export function renderInputs(inputs: readonly ChildInputRecord[]): string {
  return inputs.map((input) => `  input #${input.id} ${input.lane} ${input.status}${input.images ? ` (${input.images} image${input.images === 1 ? '' : 's'})` : ''}: ${clean(input.text, 200)}`).join('\n');
}

/** An input number as `xdog claw agents inspect` shows it (`#3` or `3`). */
export function inputNumber(raw: string): number {
  const value = Number(raw.replace(/^#/, ''));
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new XdogError(ErrorCodes.USAGE, `"${raw}" is not an input number`, { hint: 'give the N of "input #N" in xdog claw agents inspect' });
  }
  return value;
}

function time(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** A child's compaction archives, one row each (`--generation N` shows one). */
export function renderArchives(id: string, archives: readonly ChildCompactionArchive[]): string {
  if (archives.length === 0) return `child ${id} has no compaction archives (it has not compacted)`;
  const rows = archives.map((archive) => [`#${archive.generation}`, String(archive.messageCount), String(archive.bytes), time(archive.createdAt)]);
  return table(['GENERATION', 'MESSAGES', 'BYTES', 'ARCHIVED'], rows);
}

/** One message per line, `role: text` (tool calls and results named), cleaned and cut for the terminal. */
export function renderMessages(messages: readonly Message[]): string {
  return messages
    .map((message) => {
      const parts = typeof message.content === 'string' ? [message.content] : message.content.map((part) => (part.type === 'text' ? part.text : part.type === 'toolCall' ? `[call ${part.name}]` : `[${part.type}]`));
      const who = message.role === 'toolResult' ? `toolResult ${message.toolName}` : message.role;
      return `${who}: ${clean(parts.join(' '), 200)}`;
    })
    .join('\n');
}
