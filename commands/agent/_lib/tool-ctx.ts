/** Parses `--tool-ctx JSON|@file` into a tool context object. */
import path from 'node:path';
import { ErrorCodes, LIMITS, XdogError, readRegularFileSync } from '../../../core/index.js';

export function parseToolCtx(value: string | undefined, cwd: string): Record<string, unknown> {
  if (value === undefined) return {};
  let text = value;
  let where = '--tool-ctx';
  if (value.startsWith('@')) {
    const file = path.resolve(cwd, value.slice(1));
    where = file;
    try {
      text = readRegularFileSync(file, {
        maxBytes: LIMITS.toolCtxBytes,
        what: '--tool-ctx file',
        code: ErrorCodes.USAGE,
        sizeHint: 'keep large data in files that tools read, and pass their paths in the tool context',
      }).toString('utf8');
    } catch (error) {
      if (error instanceof XdogError) throw error;
      throw new XdogError(ErrorCodes.USAGE, `cannot read --tool-ctx file ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, {
        hint: 'give @path/to/file.json or an inline JSON object',
      });
    }
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new XdogError(ErrorCodes.USAGE, `${where} is not valid JSON: ${(error as Error).message}`, { hint: 'pass a JSON object, e.g. --tool-ctx \'{"key":"value"}\'' });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new XdogError(ErrorCodes.USAGE, `${where} must be a JSON object`, { hint: 'wrap the values in {...}' });
  }
  return parsed as Record<string, unknown>;
}
