/**
 * Patterns from a model, matched in time linear in the input. A backtracking
 * engine (JavaScript's RegExp) can take exponential time on a pattern such as
 * `(a+)+$`, and a synchronous match pins the event loop: not even SIGTERM gets
 * through. re2js, a port of RE2, never backtracks. Its syntax is RE2's, which
 * is JavaScript's without lookaround and backreferences. The JSON Schema
 * engines use it too, for `pattern` keywords that come from MCP servers and
 * result schemas.
 */
import { createRequire } from 'node:module';
import type { RE2JS as RE2JSClass } from 're2js';

let engine: typeof RE2JSClass | undefined;

/** re2js, loaded on the first pattern rather than at import: most commands never match one. Its CommonJS build loads synchronously. */
function re2js(): typeof RE2JSClass {
  engine ??= (createRequire(import.meta.url)('re2js') as { RE2JS: typeof RE2JSClass }).RE2JS;
  return engine;
}

/** Something that says whether a text contains (or, for globs, is) a match. */
export interface LinearMatcher {
  test(text: string): boolean;
}

/** Compiles a JavaScript-style regular expression to a linear-time matcher; throws a SyntaxError a model can read. */
export function compileLinearRegex(pattern: string, options: { ignoreCase?: boolean } = {}): LinearMatcher {
  const RE2JS = re2js();
  try {
    return RE2JS.compile(RE2JS.translateRegExp(pattern), options.ignoreCase ? RE2JS.CASE_INSENSITIVE : 0);
  } catch (error) {
    const reason = (error as Error).message.replace(/^error parsing regexp: /, '');
    const unsupported = /unsupported Perl syntax|invalid escape sequence: `\\\d/.test(reason);
    throw new SyntaxError(unsupported ? `${reason} (lookaround and backreferences are not supported)` : reason, { cause: error });
  }
}

/** An ajv `code.regExp` engine: JSON Schema `pattern` and `patternProperties` matched in linear time. */
export const linearRegExpEngine = Object.assign((pattern: string, flags: string): LinearMatcher => compileLinearRegex(pattern, { ignoreCase: flags.includes('i') }), {
  code: 'compileLinearRegex',
});
