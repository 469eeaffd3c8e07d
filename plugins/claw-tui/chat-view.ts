/**
 * How the conversation looks: one component per message, tool calls as one
 * line each (Ctrl+O's details viewer shows their arguments and results, and
 * the model's reasoning, from the chat's DetailLog), and the streaming
 * reply growing in place. All model and tool text is made terminal-safe
 * first: it cannot move the cursor, set the title or write the clipboard.
 */
import { Container, Text, type Component } from '@mariozechner/pi-tui';
import type { Message } from '../../core/index.js';
import { LIMITS } from '../../core/limits.js';
import { terminalSafe } from '../../core/terminal-text.js';
import { messageText, thinkingText, toolCallLine, type PathMessage } from './conversation.js';
import { LongText } from './long-text.js';
import { DetailLog } from './details-view.js';

export const style = {
  dim: (text: string): string => `\x1b[2m${text}\x1b[22m`,
  bold: (text: string): string => `\x1b[1m${text}\x1b[22m`,
  user: (text: string): string => `\x1b[36m${text}\x1b[39m`,
  error: (text: string): string => `\x1b[31m${text}\x1b[39m`,
  notice: (text: string): string => `\x1b[33m${text}\x1b[39m`,
  italic: (text: string): string => `\x1b[3m${text}\x1b[23m`,
};

const safe = (text: string): string => terminalSafe(text);

/** A tool call: one line (its arguments and result are in the details viewer). */
export class ToolLine implements Component {
  readonly #text = new Text('', 1, 0);
  #result: string | undefined;
  #isError = false;

  constructor(
    readonly toolCallId: string,
    private readonly name: string,
    private readonly args: unknown,
    /** The details key as the key map has it ("Ctrl+O"), or undefined when it is disabled. */
    private readonly detailsKey: string | undefined = 'Ctrl+O',
  ) {
    this.#refresh();
  }

  finish(result: string, isError: boolean): void {
    this.#result = result;
    this.#isError = isError;
    this.#refresh();
  }

  /** The call's whole arguments and its result (or that it still runs), for the details viewer. */
  details(): string {
    const result = this.#result === undefined ? '(still running)' : `${this.#isError ? 'error:\n' : ''}${this.#result}`;
    return `arguments:\n${JSON.stringify(this.args, null, 2)}\n\nresult:\n${result}`;
  }

  get title(): string {
    return `${this.name} (tool call${this.#result === undefined ? ', running' : this.#isError ? ', failed' : ''})`;
  }

  #refresh(): void {
    const mark = this.#result === undefined ? '…' : this.#isError ? style.error('✗') : '✓';
    const head = `${mark} ${style.dim(safe(toolCallLine(this.name, this.args, 200)))}`;
    const lines = this.#result === undefined ? 0 : this.#result.split('\n').length;
    const summary = this.#result === undefined ? '' : style.dim(` (${lines} line${lines === 1 ? '' : 's'}${this.detailsKey ? `, ${this.detailsKey} for details` : ', /keys'})`);
    this.#text.setText(`${head}${summary}`);
  }

  invalidate(): void {
    this.#text.invalidate();
  }

  render(width: number): string[] {
    return this.#text.render(width);
  }
}

const thinkingLook = (text: string): string => style.dim(style.italic(safe(text)));

/** A reply's thinking and text, each a LongText (a reply may be megabytes); `prefix` goes before its first line. */
function replyParts(thinking: string, body: string, prefix = ''): [LongText, LongText] {
  const thinkingPart = new LongText(thinkingLook, prefix);
  const bodyPart = new LongText(safe, thinking ? '' : prefix);
  thinkingPart.append(thinking);
  bodyPart.append(body);
  return [thinkingPart, bodyPart];
}

/** The assistant's reply while it streams: thinking (dim) then text, replaced by the whole message at its end. */
export class StreamingReply implements Component {
  readonly #thinking = new LongText(thinkingLook);
  readonly #body = new LongText(safe);
  thinking = '';
  body = '';

  append(kind: 'text' | 'thinking', delta: string): void {
    if (kind === 'text') {
      this.body += delta;
      this.#body.append(delta);
    } else {
      this.thinking += delta;
      this.#thinking.append(delta);
    }
  }

  invalidate(): void {
    this.#thinking.invalidate();
    this.#body.invalidate();
  }

  render(width: number): string[] {
    return [...this.#thinking.render(width), ...this.#body.render(width)];
  }
}

/** The text of a committed message as the chat shows it (tool calls are separate lines). */
export function messageComponent(message: Message, index?: number): Component | undefined {
  const number = index === undefined ? '' : style.dim(`#${index} `);
  if (message.role === 'user') return new Text(`${number}${style.user(style.bold('you'))} ${safe(messageText(message))}`, 1, 0);
  if (message.role === 'assistant') {
    const thinking = thinkingText(message);
    const body = messageText(message);
    const error = (message as { errorMessage?: string }).errorMessage;
    if (!thinking && !body && !error) return undefined;
    const view = new Container();
    const parts = replyParts(thinking, body, number);
    for (const part of parts) view.addChild(part);
    if (error) view.addChild(new Text(`${thinking || body ? '' : number}${style.error(safe(error))}`, 1, 0));
    return view;
  }
  return undefined;
}

/** The scrollback: committed messages, tool lines, notices and the live reply. */
export class ChatView extends Container {
  /** What tool lines name as the details key (app.ts sets it from keybindings.json). */
  detailsKey: string | undefined = 'Ctrl+O';
  /** Recent tool calls and reasoning, for Ctrl+O. */
  readonly details = new DetailLog();
  /**
   * The lines still waiting for their result, by tool-call id. A line belongs
   * to the message that made the call: ids repeat across runs (a restarted
   * model provider, a provider that reuses them), so an id names a line only
   * until its result arrives.
   */
  readonly #open = new Map<string, ToolLine>();

  notice(text: string, kind: 'notice' | 'error' = 'notice'): void {
    this.addChild(new Text(style[kind](safe(text)), 1, 0));
  }

  /**
   * Replaces everything with a session's path (tool calls and results folded
   * into tool lines). Only the latest `shown` messages are drawn, so opening
   * a long session stays fast; a line says how many earlier ones there are.
   */
  load(messages: readonly PathMessage[], shown: number = LIMITS.tuiShownMessages): void {
    this.clear();
    this.details.clear();
    this.#open.clear();
    const hidden = Math.max(0, messages.length - shown);
    if (hidden) this.notice(`… ${hidden} earlier message${hidden === 1 ? ' is' : 's are'} not drawn here: /transcript shows the whole session, /status numbers every message`);
    for (const { index, message } of messages.slice(hidden)) this.addMessage(message, index);
  }

  addMessage(message: Message, index?: number): void {
    if (message.role === 'toolResult') {
      this.toolEnd(message.toolCallId, messageText(message), message.isError);
      return;
    }
    const component = messageComponent(message, index);
    if (component) this.addChild(component);
    this.#noteReasoning(message, index);
    if (message.role === 'assistant') {
      for (const part of message.content) if (part.type === 'toolCall') this.toolStart(part.id, part.name, part.arguments);
    }
  }

  /** A line for a call; the same call seen again before its result (its live start, then its committed message) keeps its one line. */
  toolStart(id: string, name: string, args: unknown): void {
    if (this.#open.has(id)) return;
    const line = new ToolLine(id, name, args, this.detailsKey);
    this.#open.set(id, line);
    this.details.add({ get title() { return line.title; }, text: () => line.details() });
    this.addChild(line);
  }

  /** Finishes the call's open line (a second result for it, e.g. the toolResult message after tool_end, changes nothing). */
  toolEnd(id: string, result: string, isError: boolean): void {
    const line = this.#open.get(id);
    if (!line) return;
    this.#open.delete(id);
    line.finish(result, isError);
  }

  /** Replaces the streaming reply with the committed message (its tool calls keep their lines). */
  commitReply(reply: StreamingReply | undefined, message: Message): void {
    const at = reply ? this.children.indexOf(reply) : -1;
    const component = messageComponent(message);
    if (at >= 0) {
      if (component) this.children[at] = component;
      else this.children.splice(at, 1);
    } else if (component) this.addChild(component);
    this.#noteReasoning(message);
    if (message.role === 'assistant') {
      for (const part of message.content) if (part.type === 'toolCall') this.toolStart(part.id, part.name, part.arguments);
    }
  }

  /** An assistant message's reasoning becomes an entry of the details viewer. */
  #noteReasoning(message: Message, index?: number): void {
    if (message.role !== 'assistant') return;
    const thinking = thinkingText(message);
    if (thinking) this.details.add({ title: `reasoning${index === undefined ? '' : ` of #${index}`}`, text: () => thinking });
  }
}
