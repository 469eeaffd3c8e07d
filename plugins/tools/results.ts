/** Small helpers every built-in tool uses to answer the model. */
import path from 'node:path';
import type { AgentToolResult } from '../../core/index.js';

export function textResult<T>(text: string, details?: T): AgentToolResult<T> {
  return { content: [{ type: 'text', text }], ...(details === undefined ? {} : { details }) };
}

/** A deliberate failure the model can read and act on. */
export function errorResult<T>(text: string, details?: T): AgentToolResult<T> {
  return { content: [{ type: 'text', text: `Error: ${text}` }], isError: true, ...(details === undefined ? {} : { details }) };
}

/** Resolves a path the model gave against the working directory (absolute paths stay as they are). */
export function resolvePath(cwd: string, given: string): string {
  const expanded = given === '~' || given.startsWith('~/') ? path.join(process.env.HOME ?? '~', given.slice(1)) : given;
  return path.resolve(cwd, expanded);
}

/** A path as shown to the model: relative to the working directory when inside it. */
export function displayPath(cwd: string, absolute: string): string {
  const relative = path.relative(cwd, absolute);
  return relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : absolute;
}

/** Cuts a long line, saying so. */
export function clipLine(line: string, max: number): string {
  return line.length <= max ? line : `${line.slice(0, max)}… [line cut: ${line.length - max} more characters]`;
}
