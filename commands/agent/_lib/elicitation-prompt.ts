/**
 * `xdog agent chat` shows an MCP server's elicitation on its TTY: the
 * server's message (labelled as the server's words), then one line per field.
 * An empty line takes the default (or skips an optional field), `!decline`
 * and `!cancel` end it. Like the approval prompt, the interactive chat routes
 * its lines here (`answer`); a one-shot chat on a TTY reads them itself.
 * Without a TTY no prompt exists and the elicitation is declined with a reason.
 */
import readline from 'node:readline';
import { describeElicitationField as describe, parseElicitationLine as parseFieldLine, type McpElicitation, type McpElicitationAnswer, type McpElicitationValue } from '../../../plugins/mcp/index.js';
import type { Output } from './render.js';

interface Asking {
  request: McpElicitation;
  names: string[];
  index: number;
  content: Record<string, McpElicitationValue>;
  resolve(answer: McpElicitationAnswer): void;
}

export class TtyElicitation {
  #asking?: Asking;

  constructor(
    private readonly output: Output,
    /** Set when the interactive chat routes its lines here; otherwise each elicitation reads stdin itself. */
    private readonly routed: boolean,
    private readonly input: NodeJS.ReadableStream = process.stdin,
  ) {}

  /** True while a field waits for its line. */
  get pending(): boolean {
    return this.#asking !== undefined;
  }

  /** Gives a typed line to the waiting field; false when it means nothing (the field is asked again). */
  answer(line: string): boolean {
    const asking = this.#asking;
    if (!asking) return false;
    const word = line.trim().toLowerCase();
    if (word === '!decline' || word === '!cancel') {
      this.#finish({ action: word === '!decline' ? 'decline' : 'cancel', reason: 'the user ended it at the terminal' });
      return true;
    }
    const name = asking.names[asking.index]!;
    const field = asking.request.fields[name]!;
    const required = asking.request.required.includes(name);
    const parsed = parseFieldLine(field, line, name);
    if ('problem' in parsed || ('skip' in parsed && required)) {
      this.output.stderr(`${'problem' in parsed ? parsed.problem : 'this field is required'}\n${describe(name, field, required)}`);
      return false;
    }
    if ('value' in parsed) asking.content[name] = parsed.value;
    asking.index++;
    if (asking.index >= asking.names.length) this.#finish({ action: 'accept', content: asking.content });
    else this.#ask();
    return true;
  }

  /** The McpClientHandlers `elicit` of the chat. */
  request = (request: McpElicitation, signal: AbortSignal): Promise<McpElicitationAnswer> => {
    // The server's words are untrusted: shown as such, never as xdog's own question.
    this.output.stderr(`\n── MCP server "${request.server}" asks (its words, not xdog's) ──\n${request.message}\n(!decline or !cancel to refuse; an empty line takes the default)\n`);
    return new Promise<McpElicitationAnswer>((resolve) => {
      const rl = this.routed ? undefined : readline.createInterface({ input: this.input, output: process.stderr, terminal: false });
      const onAbort = (): void => this.#finish({ action: 'cancel', reason: 'the request ended before it was answered' });
      signal.addEventListener('abort', onAbort, { once: true });
      this.#asking = {
        request,
        names: Object.keys(request.fields),
        index: 0,
        content: {},
        resolve: (answer) => {
          signal.removeEventListener('abort', onAbort);
          rl?.close();
          resolve(answer);
        },
      };
      rl?.on('line', (line) => void this.answer(line));
      rl?.on('close', () => this.#finish({ action: 'cancel', reason: 'the terminal closed before anyone answered' }));
      if (this.#asking.names.length === 0) this.#finish({ action: 'accept', content: {} });
      else this.#ask();
    });
  };

  #ask(): void {
    const asking = this.#asking!;
    const name = asking.names[asking.index]!;
    this.output.stderr(describe(name, asking.request.fields[name]!, asking.request.required.includes(name)));
  }

  #finish(answer: McpElicitationAnswer): void {
    const asking = this.#asking;
    this.#asking = undefined;
    asking?.resolve(answer);
  }
}
