/**
 * Rich extension command results: text, an image, structured JSON and
 * details. The worker sends the content an author built with `api.result`;
 * the host validates it here (image type by its magic bytes, every part
 * bounded) and gives front ends an `ExtensionCommandResult`: the content
 * plus the extension/command identity and a safe text summary. A result is
 * data shown to a person: front ends never run its text as a command, send
 * it to the model or store it in the history.
 */
import crypto from 'node:crypto';
import { LIMITS } from '../../core/limits.js';
import { terminalSafe } from '../../core/terminal-text.js';
import { sniffImage } from '../images/index.js';
import type { Json } from './api.js';
import { CommandAnswerSchema, contentOf } from './protocol.js';

export interface CommandImage {
  /** Base64 of the image bytes. */
  data: string;
  mimeType: string;
}

/** What a command showed; each part is optional, but one is there. `structured` and `details` may be any JSON, false, 0 and null included. */
export interface CommandContent {
  text?: string;
  image?: CommandImage;
  structured?: Json;
  details?: Json;
}

/** A validated rich result with the identity of the command that made it. */
export interface ExtensionCommandResult {
  type: 'extension-command-result';
  extension: string;
  /** The command's name as registered (its identity); it is typed as `/ext-ID-NAME`, or `/PUBLIC` with a public name. */
  command: string;
  publicName?: string;
  content: CommandContent;
  /** Plain text for a client that cannot show the parts (no image bytes). */
  summary: string;
}

/** The problems of rich content, in words (empty when it is valid). */
export function contentProblems(content: CommandContent): string[] {
  const problems: string[] = [];
  const parts = (['text', 'image', 'structured', 'details'] as const).filter((part) => part in content);
  if (parts.length === 0) problems.push('a rich result has at least one of text, image, structured or details');
  if (content.text !== undefined && Buffer.byteLength(content.text) > LIMITS.extensionCommandTextBytes) problems.push(`text: at most ${LIMITS.extensionCommandTextBytes} bytes`);
  if (content.image !== undefined) problems.push(...imageProblems(content.image));
  for (const part of ['structured', 'details'] as const) {
    if (!(part in content)) continue;
    const problem = jsonProblem(content[part]);
    if (problem) problems.push(`${part}: ${problem}`);
  }
  const bytes = Buffer.byteLength(JSON.stringify(content));
  if (problems.length === 0 && bytes > LIMITS.extensionCommandResultBytes) problems.push(`the whole result is ${bytes} bytes of JSON, over ${LIMITS.extensionCommandResultBytes}`);
  return problems;
}

function imageProblems(image: CommandImage): string[] {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(image.data) || image.data.length % 4 !== 0) return ['image.data: not base64'];
  const bytes = Buffer.from(image.data, 'base64');
  if (bytes.length === 0) return ['image.data: the image is empty'];
  if (bytes.length > LIMITS.extensionCommandImageBytes) return [`image.data: the image is ${bytes.length} bytes, over ${LIMITS.extensionCommandImageBytes}`];
  const sniffed = sniffImage(bytes);
  if (!sniffed) return ['image.data: its bytes are not a PNG, JPEG or WebP image'];
  if (sniffed !== image.mimeType) return [`image.mimeType: it says ${image.mimeType}, but its bytes are ${sniffed}`];
  return [];
}

/** Why a value is not bounded JSON, or undefined. */
function jsonProblem(value: unknown): string | undefined {
  const depthOf = (node: unknown, depth: number): number => {
    if (depth > LIMITS.extensionCommandJsonDepth) return depth;
    if (Array.isArray(node)) return Math.max(depth, ...node.map((item) => depthOf(item, depth + 1)));
    if (node && typeof node === 'object') return Math.max(depth, ...Object.values(node).map((item) => depthOf(item, depth + 1)));
    return depth;
  };
  const text = JSON.stringify(value);
  if (text === undefined) return 'not JSON';
  if (Buffer.byteLength(text) > LIMITS.extensionCommandStructuredBytes) return `${Buffer.byteLength(text)} bytes of JSON, over ${LIMITS.extensionCommandStructuredBytes}`;
  if (depthOf(value, 0) > LIMITS.extensionCommandJsonDepth) return `nested deeper than ${LIMITS.extensionCommandJsonDepth}`;
  return undefined;
}

/** A command's answer as the host takes it: null, a string, or rich content whose parts pass contentProblems. */
export const CheckedCommandAnswerSchema = CommandAnswerSchema.superRefine((answer, context) => {
  if (answer === null || typeof answer === 'string') return;
  for (const message of contentProblems(contentOf(answer) as CommandContent)) context.addIssue({ code: 'custom', message });
});

/** The validated result of one command (content already checked with contentProblems). */
export function commandResult(extension: string, command: string, publicName: string | undefined, content: CommandContent): ExtensionCommandResult {
  const result: ExtensionCommandResult = { type: 'extension-command-result', extension, command, ...(publicName !== undefined && { publicName }), content, summary: '' };
  result.summary = summarize(result);
  return result;
}

/** The text summary: the text, and one line per other part (never the image bytes). */
function summarize(result: ExtensionCommandResult): string {
  const { text, image, structured, details } = result.content;
  const lines = text !== undefined ? [text] : [];
  if (image) lines.push(imageLine(image));
  if ('structured' in result.content) lines.push(`[structured JSON, ${Buffer.byteLength(JSON.stringify(structured))} bytes]`);
  if ('details' in result.content) lines.push(`[details JSON, ${Buffer.byteLength(JSON.stringify(details))} bytes]`);
  return lines.join('\n');
}

/** The text an older client gets for a rich result: the summary and why it sees no more (never the image bytes). */
export function olderClientText(result: ExtensionCommandResult): string {
  return `${result.summary}\n(a rich result: this client shows only its summary; update it to see the image and JSON, or save it as an artifact)`;
}

function imageLine(image: CommandImage): string {
  const bytes = Buffer.from(image.data, 'base64');
  return `[image ${image.mimeType}, ${bytes.length} bytes, sha256 ${crypto.createHash('sha256').update(bytes).digest('hex').slice(0, 16)}]`;
}

/**
 * A result for a person: its text, the image as one line (type, size,
 * checksum; never base64), then structured JSON and details pretty-printed,
 * each cut at LIMITS.extensionCommandShownLines lines.
 */
export function renderCommandResult(result: ExtensionCommandResult, source?: string): string {
  const { text, image } = result.content;
  const lines = [`${source ?? `/${result.publicName ?? result.command}`} from extension ${result.extension} (command ${result.command}):`];
  if (text !== undefined) lines.push(text);
  if (image) lines.push(imageLine(image));
  for (const part of ['structured', 'details'] as const) {
    if (!(part in result.content)) continue;
    const json = JSON.stringify(result.content[part], null, 2).split('\n');
    const shown = json.slice(0, LIMITS.extensionCommandShownLines);
    lines.push(`${part}:`, ...shown);
    if (json.length > shown.length) lines.push(`… ${json.length - shown.length} more lines (the artifact keeps all of them: /artifact save PATH)`);
  }
  return terminalSafe(lines.join('\n'));
}

export function isCommandResult(value: unknown): value is ExtensionCommandResult {
  return typeof value === 'object' && value !== null && (value as { type?: unknown }).type === 'extension-command-result';
}
