/**
 * One elicitation field as a person types it, shared by every place that
 * asks (the chat's terminal prompt, the TUI dialog): how a typed line becomes
 * the field's value, and how the field is described.
 */
import type { McpElicitationField, McpElicitationValue } from './client-requests.js';

/** One typed line for a field: its value, "skip", or why it means nothing. */
export function parseElicitationLine(field: McpElicitationField, line: string): { value: McpElicitationValue } | { skip: true } | { problem: string } {
  const text = line.trim();
  if (text === '') return field.default === undefined ? { skip: true } : parseElicitationLine({ ...field, default: undefined }, String(field.default));
  switch (field.type) {
    case 'boolean':
      if (['y', 'yes', 'true'].includes(text.toLowerCase())) return { value: true };
      if (['n', 'no', 'false'].includes(text.toLowerCase())) return { value: false };
      return { problem: 'answer y or n' };
    case 'integer':
    case 'number': {
      const value = Number(text);
      if (!Number.isFinite(value) || (field.type === 'integer' && !Number.isInteger(value))) return { problem: `answer ${field.type === 'integer' ? 'a whole number' : 'a number'}` };
      return { value };
    }
    case 'choices': {
      const picked = text.split(',').map((item) => item.trim()).filter(Boolean);
      const wrong = picked.filter((item) => !field.enum!.includes(item));
      return wrong.length > 0 ? { problem: `not a choice: ${wrong.join(', ')} (choices: ${field.enum!.join(', ')})` } : { value: picked };
    }
    default:
      if (field.enum && !field.enum.includes(text)) return { problem: `choose one of: ${field.enum.join(', ')}` };
      return { value: text };
  }
}

/** How a field is asked: its title, description, type, choices, default. */
export function describeElicitationField(name: string, field: McpElicitationField, required: boolean): string {
  const parts = [field.type === 'choices' ? `several of ${field.enum!.join(', ')}, comma-separated` : field.enum ? `one of ${field.enum.join(', ')}` : field.type];
  if (field.default !== undefined) parts.push(`default ${String(field.default)}`);
  if (!required) parts.push('optional');
  return `${field.title ?? name}${field.description ? ` — ${field.description}` : ''} (${parts.join('; ')}): `;
}
