/**
 * Flow templates: strings with `{{ inputs.name }}` and
 * `{{ steps.id.output.path }}` references. A string that is exactly one
 * reference keeps the referenced value's type; a reference inside longer text
 * is interpolated (strings as they are, anything else as JSON).
 */

/** A parsed reference: where it points and the path below that point. */
export type FlowReference =
  | { root: 'inputs'; name: string; path: string[]; text: string }
  | { root: 'steps'; name: string; path: string[]; text: string };

/** A piece of a template: literal text, or a reference with its offset in the string. */
export type TemplatePart = { text: string } | { ref: FlowReference; offset: number };

/** A reference that does not parse, with the reason and a fix. */
export interface ReferenceSyntaxError {
  offset: number;
  text: string;
  message: string;
  hint: string;
}

const EXPRESSION = /\{\{(.*?)\}\}/g;
const SEGMENT = /^[A-Za-z_][\w-]*$|^\d+$/;

/** Splits a template into text and references, collecting syntax errors. */
export function parseTemplate(template: string): { parts: TemplatePart[]; errors: ReferenceSyntaxError[] } {
  const parts: TemplatePart[] = [];
  const errors: ReferenceSyntaxError[] = [];
  let last = 0;
  for (const match of template.matchAll(EXPRESSION)) {
    if (match.index > last) parts.push({ text: template.slice(last, match.index) });
    last = match.index + match[0].length;
    const parsed = parseReference(match[1]!.trim());
    if ('message' in parsed) errors.push({ offset: match.index, text: match[0], ...parsed });
    else parts.push({ ref: parsed, offset: match.index });
  }
  if (last < template.length) parts.push({ text: template.slice(last) });
  const stray = template.slice(last).indexOf('{{');
  if (stray >= 0) {
    errors.push({ offset: last + stray, text: '{{', message: 'a "{{" is never closed', hint: 'close the reference with "}}"' });
  }
  return { parts, errors };
}

function parseReference(expression: string): FlowReference | { message: string; hint: string } {
  const segments = expression.split('.');
  const fix = 'write {{ inputs.NAME }} or {{ steps.ID.output.PATH }}';
  if (!expression || segments.some((segment) => !SEGMENT.test(segment))) {
    return { message: `"${expression}" is not a reference`, hint: fix };
  }
  const [root, name, ...rest] = segments;
  if (root === 'inputs' && name) return { root, name, path: rest, text: expression };
  if (root === 'steps' && name) {
    if (rest[0] !== 'output') {
      return { message: `"${expression}" must name the step's output`, hint: `write {{ steps.${name}.output }} or {{ steps.${name}.output.FIELD }}` };
    }
    return { root, name, path: rest.slice(1), text: expression };
  }
  return { message: `"${expression}" does not start with "inputs." or "steps."`, hint: fix };
}

/** The single reference a template consists of, or undefined when it has text around it (or none). */
export function wholeReference(parts: TemplatePart[]): FlowReference | undefined {
  const meaningful = parts.filter((part) => !('text' in part) || part.text.trim() !== '');
  return meaningful.length === 1 && 'ref' in meaningful[0]! ? meaningful[0].ref : undefined;
}

/** Looks a value up by reference in the run's scope. */
export type ReferenceResolver = (ref: FlowReference) => unknown;

/** Renders a string template; a whole reference keeps its value's type. */
export function renderTemplate(template: string, resolve: ReferenceResolver): unknown {
  const { parts } = parseTemplate(template);
  const whole = wholeReference(parts);
  if (whole) return resolve(whole);
  return parts.map((part) => ('text' in part ? part.text : stringify(resolve(part.ref)))).join('');
}

/** Renders every string inside a JSON value. */
export function renderValue(value: unknown, resolve: ReferenceResolver): unknown {
  if (typeof value === 'string') return renderTemplate(value, resolve);
  if (Array.isArray(value)) return value.map((item) => renderValue(item, resolve));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, renderValue(item, resolve)]));
  }
  return value;
}

function stringify(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}
