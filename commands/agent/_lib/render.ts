/**
 * How a chat shows a run: in human mode, the answer's text streams to stdout
 * and tool activity, retries and thinking (as `[thinking] ...`) go to stderr; in --json mode every
 * event is one JSON line on stdout.
 */
import type { AgentEvent, AgentToolResult } from '../../../core/index.js';
import { terminalSafe } from '../../../core/terminal-text.js';

export interface Output {
  stdout(text: string): void;
  stderr(text: string): void;
}

export const processOutput: Output = {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
};

/** The process's streams for people: model and tool text cannot drive the terminal. */
export const terminalOutput: Output = {
  stdout: (text) => processOutput.stdout(terminalSafe(text)),
  stderr: (text) => processOutput.stderr(terminalSafe(text)),
};

function firstLine(result: AgentToolResult): string {
  const text = result.content.map((part) => (part.type === 'text' ? part.text : `[${part.mimeType} image]`)).join(' ');
  const line = text.split('\n').find((candidate) => candidate.trim()) ?? '';
  return line.length > 120 ? `${line.slice(0, 120)}…` : line;
}

function compactArgs(args: Record<string, unknown>): string {
  const json = JSON.stringify(args);
  return json.length > 200 ? `${json.slice(0, 200)}…` : json;
}

/**
 * The --json form of an event. A `message_update` carries its delta and the
 * index of the content part it extends, never the partial message: repeating
 * that snapshot in every update made the output grow with the square of the
 * tool calls in a turn. The whole message comes once, in `message_end`.
 */
export function jsonEvent(event: AgentEvent): unknown {
  if (event.type !== 'message_update') return event;
  const contentIndex = event.message.content.length - 1;
  const { delta } = event;
  switch (delta.type) {
    case 'text_delta':
    case 'thinking_delta':
    case 'toolcall_delta':
      return { type: event.type, delta: { type: delta.type, contentIndex, delta: delta.delta } };
    case 'toolcall_end':
      return { type: event.type, delta: { type: delta.type, contentIndex, toolCall: event.message.content[contentIndex] } };
    case 'retry':
      return { type: event.type, delta };
    default:
      return { type: event.type, delta: { type: delta.type } };
  }
}

export interface RenderOptions {
  /** One stderr line per tool call, when it ends (default: a line when it starts and one when it ends). */
  toolLinePerCall?: boolean;
}

/** Renders the events of one run; `json` switches to one JSON line per event. */
export class EventRenderer {
  #midLine = false;
  /** True while a thinking block is being written to stderr. */
  #thinking = false;
  /** Arguments of running tool calls, for the one line written when a call ends. */
  readonly #runningArgs = new Map<string, Record<string, unknown>>();
  constructor(
    private readonly output: Output,
    private readonly json: boolean,
    private readonly options: RenderOptions = {},
  ) {}

  event(event: AgentEvent): void {
    if (this.json) {
      this.output.stdout(`${JSON.stringify(jsonEvent(event))}\n`);
      return;
    }
    switch (event.type) {
      case 'model_retry':
        this.#note(`[retry ${event.attempt}] in ${(event.delayMs / 1000).toFixed(1)}s: ${event.reason}`);
        break;
      case 'message_update':
        if (event.delta.type === 'thinking_delta') {
          if (!this.#thinking) this.output.stderr('[thinking] ');
          this.#thinking = true;
          this.output.stderr(event.delta.delta);
        } else if (event.delta.type === 'text_delta') {
          this.#endThinking();
          this.output.stdout(event.delta.delta);
          this.#midLine = !event.delta.delta.endsWith('\n');
        }
        break;
      case 'message_end':
        this.#endThinking();
        if (event.message.role === 'assistant') this.#endLine();
        break;
      case 'tool_start':
        if (this.options.toolLinePerCall) this.#runningArgs.set(event.toolCallId, event.args);
        else this.#note(`[tool] ${event.toolName} ${compactArgs(event.args)}`);
        break;
      case 'tool_end': {
        const args = this.#runningArgs.get(event.toolCallId);
        this.#runningArgs.delete(event.toolCallId);
        const call = this.options.toolLinePerCall ? `${event.toolName} ${compactArgs(args ?? {})}` : event.toolName;
        this.#note(`[tool] ${call} ${event.isError ? 'failed' : 'done'}: ${firstLine(event.result)}`);
        break;
      }
      case 'input_consumed':
        this.#note(`[${event.lane === 'steer' ? 'steer' : 'follow-up'}] ${typeof event.message.content === 'string' ? event.message.content : '(message)'}`);
        break;
      default:
        break;
    }
  }

  /** A line on stderr, after ending any half-written answer line. */
  #note(text: string): void {
    this.#endThinking();
    this.#endLine();
    this.output.stderr(`${text}\n`);
  }

  #endThinking(): void {
    if (this.#thinking) this.output.stderr('\n');
    this.#thinking = false;
  }

  #endLine(): void {
    if (this.#midLine) this.output.stdout('\n');
    this.#midLine = false;
  }
}
