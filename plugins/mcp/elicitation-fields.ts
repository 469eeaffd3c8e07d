/**
 * One elicitation field as a person types it, shared by every place that
 * asks (the chat's terminal prompt, the TUI dialog) and by the check of an
 * answer before it leaves (`mcp.answer`, the chat): how a typed line becomes
 * the field's value, whether a value keeps the rules the form set (type,
 * choices, lengths, range, format), and how the field is described. One
 * checker, so every client refuses the same answer with the same words.
 */
import { LIMITS } from '../../core/limits.js';
import type { McpElicitationField, McpElicitationValue } from './client-requests.js';

/** String formats a form may ask for (MCP elicitation schema); the ones checked. */
export const ELICITATION_FORMATS = ['email', 'uri', 'date', 'date-time'] as const;
export type McpElicitationFormat = (typeof ELICITATION_FORMATS)[number];

/** One typed line for a field: its value, "skip", or why it means nothing. */
export function parseElicitationLine(field: McpElicitationField, line: string, name = 'this field'): { value: McpElicitationValue } | { skip: true } | { problem: string } {
  const text = line.trim();
  if (text === '') return field.default === undefined ? { skip: true } : parseElicitationLine({ ...field, default: undefined }, String(field.default), name);
  const value = typedValue(field, text);
  if (typeof value === 'object' && 'problem' in value) return value;
  const problem = elicitationValueProblem(name, field, value);
  return problem ? { problem } : { value };
}

function typedValue(field: McpElicitationField, text: string): McpElicitationValue | { problem: string } {
  switch (field.type) {
    case 'boolean':
      if (['y', 'yes', 'true'].includes(text.toLowerCase())) return true;
      if (['n', 'no', 'false'].includes(text.toLowerCase())) return false;
      return { problem: 'answer y or n' };
    case 'integer':
    case 'number': {
      const value = Number(text);
      if (!Number.isFinite(value) || (field.type === 'integer' && !Number.isInteger(value))) return { problem: `answer ${field.type === 'integer' ? 'a whole number' : 'a number'}` };
      return value;
    }
    case 'choices':
      return text.split(',').map((item) => item.trim()).filter(Boolean);
    default:
      return text;
  }
}

/**
 * Why `value` does not answer the field `name`, naming the field and the rule
 * broken; undefined when it does.
 */
export function elicitationValueProblem(name: string, field: McpElicitationField, value: McpElicitationValue): string | undefined {
  const label = `"${name}"`;
  switch (field.type) {
    case 'boolean':
      return typeof value === 'boolean' ? undefined : `${label} must be true or false`;
    case 'integer':
    case 'number': {
      if (typeof value !== 'number' || !Number.isFinite(value) || (field.type === 'integer' && !Number.isInteger(value))) return `${label} must be ${field.type === 'integer' ? 'a whole number' : 'a number'}`;
      if (field.minimum !== undefined && value < field.minimum) return `${label} must be at least ${field.minimum} (minimum ${field.minimum})`;
      if (field.maximum !== undefined && value > field.maximum) return `${label} must be at most ${field.maximum} (maximum ${field.maximum})`;
      return undefined;
    }
    case 'choices': {
      if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) return `${label} must be a list of choices (${field.enum!.join(', ')})`;
      const wrong = value.filter((item) => !field.enum!.includes(item));
      if (wrong.length > 0) return `${label}: not a valid choice: ${wrong.join(', ')} (choices: ${field.enum!.join(', ')})`;
      if (field.minItems !== undefined && value.length < field.minItems) return `${label} needs at least ${field.minItems} choice(s) (minItems ${field.minItems})`;
      if (field.maxItems !== undefined && value.length > field.maxItems) return `${label} takes at most ${field.maxItems} choice(s) (maxItems ${field.maxItems})`;
      return undefined;
    }
    default:
      return stringProblem(label, field, value);
  }
}

function stringProblem(label: string, field: McpElicitationField, value: McpElicitationValue): string | undefined {
  if (typeof value !== 'string') return `${label} must be text`;
  // JSON Schema counts characters (code points), not UTF-16 units.
  const length = [...value].length;
  if (length > LIMITS.mcpElicitationChars) return `${label} is ${length} characters, over the limit of ${LIMITS.mcpElicitationChars}`;
  if (field.enum && !field.enum.includes(value)) return `${label} is not a valid choice (choose one of: ${field.enum.join(', ')})`;
  if (field.minLength !== undefined && length < field.minLength) return `${label} must be at least ${field.minLength} characters (minLength ${field.minLength}); it has ${length}`;
  if (field.maxLength !== undefined && length > field.maxLength) return `${label} must be at most ${field.maxLength} characters (maxLength ${field.maxLength}); it has ${length}`;
  if (field.format && !FORMAT_CHECKS[field.format](value)) return `${label} must be ${FORMAT_NAMES[field.format]} (format ${field.format})`;
  return undefined;
}

const FORMAT_NAMES: Record<McpElicitationFormat, string> = {
  email: 'an email address such as ada@example.org',
  uri: 'an absolute URI such as https://example.org/page',
  date: 'a date as YYYY-MM-DD',
  'date-time': 'a date and time as YYYY-MM-DDTHH:MM:SSZ (RFC 3339, with Z or an offset)',
};

/** A calendar date that exists (2026-02-30 does not). */
function realDate(year: string, month: string, day: string): boolean {
  const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  return date.getUTCFullYear() === Number(year) && date.getUTCMonth() === Number(month) - 1 && date.getUTCDate() === Number(day);
}

// Linear patterns only (no nested quantifiers): a hostile answer cannot make them slow.
const FORMAT_CHECKS: Record<McpElicitationFormat, (value: string) => boolean> = {
  email: (value) => /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/.test(value),
  uri: (value) => /^[A-Za-z][A-Za-z0-9+.-]*:\S+$/.test(value) && URL.canParse(value),
  date: (value) => {
    const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
    return match !== null && realDate(match[1]!, match[2]!, match[3]!);
  },
  'date-time': (value) => {
    const match = /^(\d{4})-(\d{2})-(\d{2})[Tt ]([01]\d|2[0-3]):([0-5]\d):([0-5]\d|60)(\.\d+)?([Zz]|[+-]([01]\d|2[0-3]):[0-5]\d)$/.exec(value);
    return match !== null && realDate(match[1]!, match[2]!, match[3]!);
  },
};

/** The rules a field sets beyond its type, in words (shown with the field). */
export function elicitationFieldRules(field: McpElicitationField): string[] {
  const rules: string[] = [];
  if (field.format) rules.push(`format ${field.format}`);
  if (field.minLength !== undefined) rules.push(`at least ${field.minLength} characters`);
  if (field.maxLength !== undefined) rules.push(`at most ${field.maxLength} characters`);
  if (field.minimum !== undefined) rules.push(`minimum ${field.minimum}`);
  if (field.maximum !== undefined) rules.push(`maximum ${field.maximum}`);
  if (field.minItems !== undefined) rules.push(`at least ${field.minItems} chosen`);
  if (field.maxItems !== undefined) rules.push(`at most ${field.maxItems} chosen`);
  return rules;
}

/** How a field is asked: its title, description, type, choices, rules, default. */
export function describeElicitationField(name: string, field: McpElicitationField, required: boolean): string {
  const parts = [field.type === 'choices' ? `several of ${field.enum!.join(', ')}, comma-separated` : field.enum ? `one of ${field.enum.join(', ')}` : field.type, ...elicitationFieldRules(field)];
  if (field.default !== undefined) parts.push(`default ${String(field.default)}`);
  if (!required) parts.push('optional');
  return `${field.title ?? name}${field.description ? ` — ${field.description}` : ''} (${parts.join('; ')}): `;
}
