/**
 * An MCP server's elicitation as a form dialog over the chat: the server's
 * message, labelled as its words (untrusted), each field with its title,
 * type, rules, choices, default and required mark, and the seconds left.
 * ↑/↓ (or Tab) move between fields; text and number fields take typing (the
 * cursor shows there only); a yes/no field toggles with Space or ←/→; a
 * single choice cycles with ←/→. Enter accepts (each field is checked by
 * the shared parser first), Ctrl+D declines, Esc cancels. A refusal (the
 * check here, or the gateway's) is shown and the form stays.
 */
import { matchesKey, truncateToWidth, wrapTextWithAnsi, type Component, type Focusable } from '@mariozechner/pi-tui';
import { terminalSafe } from '../../core/terminal-text.js';
import { elicitationFieldRules, parseElicitationLine, type McpElicitationAnswer, type McpElicitationField, type McpElicitationValue } from '../mcp/index.js';
import type { GroupElicitation } from '../claw-mcp/index.js';
import { style } from './chat-view.js';
import { dialogHeader, dialogKeys, TEXT_CURSOR, typeInto } from './dialog-parts.js';

/** Lines the server's message may take in the dialog (the rest is cut with a mark: a form must stay on screen). */
const MESSAGE_LINES = 6;

/** What a field is edited with. */
function editorOf(field: McpElicitationField): 'text' | 'toggle' | 'pick' {
  if (field.type === 'boolean') return 'toggle';
  if (field.type === 'string' && field.enum) return 'pick';
  return 'text';
}

export class ElicitationDialog implements Component, Focusable {
  focused = false;
  readonly #names: string[];
  /** What the person typed or picked per field; '' takes the form's default (or leaves an optional field out). */
  readonly #typed = new Map<string, string>();
  #at = 0;
  #problem = '';
  #sending = false;

  constructor(
    readonly elicitation: GroupElicitation,
    private readonly height: () => number,
    /** Sends the answer; a refusal comes back through `refused`. */
    private readonly answer: (answer: McpElicitationAnswer) => void,
  ) {
    this.#names = Object.keys(elicitation.fields);
  }

  /** The answer was refused (by the gateway): its reason shows, and the form takes edits again. */
  refused(reason: string): void {
    this.#problem = reason;
    this.#sending = false;
  }

  handleInput(data: string): void {
    if (this.#sending) return;
    if (matchesKey(data, 'escape')) return this.#send({ action: 'cancel', reason: 'the person cancelled it in xdog claw tui' });
    if (matchesKey(data, 'ctrl+d')) return this.#send({ action: 'decline', reason: 'the person declined it in xdog claw tui' });
    if (matchesKey(data, 'enter')) return this.#accept();
    if (matchesKey(data, 'up') || matchesKey(data, 'shift+tab')) this.#at = Math.max(0, this.#at - 1);
    else if (matchesKey(data, 'down') || matchesKey(data, 'tab')) this.#at = Math.min(Math.max(0, this.#names.length - 1), this.#at + 1);
    else if (this.#names.length > 0) this.#edit(data);
  }

  #edit(data: string): void {
    const name = this.#names[this.#at]!;
    const field = this.elicitation.fields[name]!;
    const text = this.#typed.get(name) ?? '';
    const kind = editorOf(field);
    if (kind === 'text') {
      const next = typeInto(text, data);
      if (next !== undefined) this.#typed.set(name, next);
    } else if (kind === 'toggle') {
      const current = text || (field.default === true ? 'yes' : field.default === false ? 'no' : '');
      if (data === ' ' || matchesKey(data, 'left') || matchesKey(data, 'right')) this.#typed.set(name, current === 'yes' ? 'no' : 'yes');
      else if (data === 'y' || data === 'n') this.#typed.set(name, data === 'y' ? 'yes' : 'no');
    } else if (matchesKey(data, 'left') || matchesKey(data, 'right') || data === ' ') {
      const options = field.enum!;
      const current = options.indexOf(text || String(field.default ?? ''));
      const step = matchesKey(data, 'left') ? -1 : 1;
      this.#typed.set(name, options[current < 0 ? 0 : (current + step + options.length) % options.length]!);
    }
    this.#problem = '';
  }

  /** Checks every field with the shared parser; the first problem is shown on its field, else the answer goes. */
  #accept(): void {
    const content: Record<string, McpElicitationValue> = {};
    for (const [index, name] of this.#names.entries()) {
      const field = this.elicitation.fields[name]!;
      const parsed = parseElicitationLine(field, this.#typed.get(name) ?? '', name);
      const problem = 'problem' in parsed ? parsed.problem : 'skip' in parsed && this.elicitation.required.includes(name) ? `"${name}" is required` : undefined;
      if (problem) {
        this.#at = index;
        this.#problem = problem;
        return;
      }
      if ('value' in parsed) content[name] = parsed.value;
    }
    this.#send({ action: 'accept', content });
  }

  #send(answer: McpElicitationAnswer): void {
    this.#sending = true;
    this.#problem = '';
    this.answer(answer);
  }

  invalidate(): void {}

  render(width: number): string[] {
    const { server, message, required } = this.elicitation;
    const line = (text: string): string => truncateToWidth(text, width);
    const said = wrapTextWithAnsi(terminalSafe(message), Math.max(10, width - 2)).map((text) => `  ${text}`);
    const shown = said.length > MESSAGE_LINES ? [...said.slice(0, MESSAGE_LINES - 1), style.dim('  … (the message goes on; it was cut to keep the form on screen)')] : said;
    const top = [dialogHeader(`MCP server ${JSON.stringify(terminalSafe(server))}`, this.elicitation.expiresAt, width, 'a form'), style.dim(line("its words below, not xdog's: untrusted")), ...shown.map(line), ''];
    const bottom = ['', ...this.#focusedHelp(width), ...(this.#problem ? [style.error(line(`refused: ${terminalSafe(this.#problem)}`))] : []), dialogKeys('↑↓ field · type into text · ←→/Space choose · Enter accepts · Ctrl+D declines · Esc cancels', width)];
    // The fields scroll so the one being edited stays on screen.
    const room = Math.max(1, this.height() - top.length - bottom.length);
    const first = Math.min(Math.max(0, this.#at - Math.floor(room / 2)), Math.max(0, this.#names.length - room));
    const fields = this.#names.slice(first, first + room).map((name, offset) => this.#fieldLine(name, first + offset === this.#at, required.includes(name), width));
    if (this.#names.length === 0) fields.push(style.dim('  (no fields: Enter accepts)'));
    return [...top, ...fields, ...bottom];
  }

  #fieldLine(name: string, focused: boolean, required: boolean, width: number): string {
    const field = this.elicitation.fields[name]!;
    const text = this.#typed.get(name) ?? '';
    const label = `${terminalSafe(field.title ?? name)}${required ? ' *' : ''}`;
    const fallback = field.default === undefined ? (editorOf(field) === 'text' ? '' : '(unset)') : `default ${terminalSafe(Array.isArray(field.default) ? field.default.join(', ') : String(field.default))}`;
    const value = text ? terminalSafe(text) : style.dim(fallback);
    const shown = editorOf(field) === 'pick' ? `‹ ${value} ›` : value;
    // The text cursor marks the field being typed in, and only a text field.
    const cursor = focused && editorOf(field) === 'text' ? TEXT_CURSOR : '';
    const row = truncateToWidth(`${focused ? '> ' : '  '}${label} (${field.type === 'choices' ? 'several' : field.type}): ${shown}${cursor}`, width);
    return focused ? style.bold(row) : row;
  }

  /** The field being edited, in full: description, choices, rules. */
  #focusedHelp(width: number): string[] {
    const name = this.#names[this.#at];
    if (name === undefined) return [];
    const field = this.elicitation.fields[name]!;
    const parts = [field.enum ? `${field.type === 'choices' ? 'several of (comma-separated)' : 'one of'}: ${field.enum.join(', ')}` : '', ...elicitationFieldRules(field), this.elicitation.required.includes(name) ? 'required' : 'optional'].filter(Boolean);
    const about = `${terminalSafe(field.description ?? field.title ?? name)} — ${terminalSafe(parts.join('; '))}`;
    return wrapTextWithAnsi(about, Math.max(10, width - 2)).slice(0, 3).map((text) => style.dim(truncateToWidth(`  ${text}`, width)));
  }
}
