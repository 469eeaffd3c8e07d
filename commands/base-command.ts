/**
 * The base of every xdog command: shared flags, and one way to print errors.
 * An XdogError or a parse error prints one line, `xdog: <message> [<code>] (<hint>)`, and exits with the code from core/errors.ts; a stack trace
 * only with --debug.
 */
import { format } from 'node:util';
import { Command, Errors, Flags, type Interfaces } from '@oclif/core';
// Narrow imports keep start-up fast: the core barrel loads the whole runtime.
import type { LoadedConfig } from '../core/config.js';
import { ErrorCodes, XdogError } from '../core/errors.js';
import { terminalSafe } from '../core/terminal-text.js';

export abstract class XdogCommand extends Command {
  static override baseFlags = {
    config: Flags.string({ description: 'config file (default: $XDOG_CONFIG or ~/.config/xdog/config.yaml)', helpGroup: 'GLOBAL' }),
    debug: Flags.boolean({ description: 'print stack traces of errors', helpGroup: 'GLOBAL' }),
  };

  /**
   * Loads the config file named by --config / XDOG_CONFIG / the default path.
   * Imported on first use: the config's schemas (zod) and yaml are a large
   * part of a start, and commands such as `claw send` never read the file.
   */
  protected async loadConfig(flags: { config?: string }): Promise<LoadedConfig> {
    const { loadConfig } = await import('../core/config.js');
    return loadConfig(flags.config);
  }

  /** Human output: names, descriptions and results may come from plugins, MCP servers and models, so control characters are escaped. */
  override log(message = '', ...args: unknown[]): void {
    super.log(terminalSafe(format(message, ...args)));
  }

  /** A human line on stderr, escaped like `log`. */
  protected note(text: string): void {
    process.stderr.write(`${terminalSafe(text)}\n`);
  }

  protected override async catch(error: Interfaces.CommandError): Promise<unknown> {
    if (error instanceof Errors.ExitError) throw error;
    const debug = this.argv.includes('--debug') || Boolean(process.env.DEBUG);
    const xdogError = toXdogError(error);
    if (this.jsonEnabled()) {
      // One line, whatever came before it: a streaming command's stdout is JSON Lines, and a reader takes the last line.
      process.stdout.write(`${JSON.stringify({ error: xdogError.toJSON() })}\n`);
    } else {
      const hint = xdogError.hint ? ` (${xdogError.hint})` : '';
      this.note(`xdog: ${xdogError.message} [${xdogError.code}]${hint}`);
      if (debug) process.stderr.write(`${(error as Error).stack ?? ''}\n`);
    }
    return this.exit(xdogError.exitCode);
  }
}

/** Maps oclif parse errors to USAGE; keeps XdogErrors; anything else is a failure with its message. */
function toXdogError(error: unknown): XdogError {
  if (error instanceof XdogError) return error;
  const message = (error as Error)?.message ?? String(error);
  const firstLine = message.split('\n')[0]!;
  // oclif's parse errors (and any CLIError it raises for usage) carry exit code 2.
  const isUsageError = (error as { oclif?: { exit?: number } })?.oclif?.exit === 2;
  if (isUsageError) {
    // One line: oclif puts the missing argument's name on the next line and a --help pointer last.
    const summary = message
      .split('\n')
      .map((line) => line.trim().replace(/\s{2,}/g, ' '))
      .filter((line) => line && !line.startsWith('See more help'))
      .join(' ');
    return new XdogError(ErrorCodes.USAGE, summary, { hint: 'see --help for usage' });
  }
  return new XdogError(ErrorCodes.INTERNAL, firstLine, { cause: error, hint: 'rerun with --debug for the stack trace' });
}

/** What a plugin's own CLI commands need besides this base class (`import { Args, Flags, XdogCommand } from 'xdog/command'`). */
export { Args, Flags } from '@oclif/core';
