/**
 * Flow inputs: values given as `name=value` on the command line (or as JSON
 * by a tool call) are checked against the declared input schemas; defaults
 * fill the gaps. An undeclared or missing input fails, naming it.
 */
import { ErrorCodes, LIMITS, XdogError, jsonDeeperThan } from '../../core/index.js';
import { schemaProblems } from './json-schema.js';
import type { FlowPlan } from './plan.js';

/** Turns `name=value` pairs into typed values: strings stay text, other types are parsed as JSON. */
export function parseInputPairs(plan: FlowPlan, pairs: readonly string[]): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new XdogError(ErrorCodes.USAGE, `--input "${pair}" is not name=value`, { hint: 'write --input repo=octo/demo' });
    const name = pair.slice(0, at);
    const text = pair.slice(at + 1);
    if (!Object.hasOwn(plan.inputs, name)) throw unknownInput(plan, name);
    if (Object.hasOwn(values, name)) throw new XdogError(ErrorCodes.USAGE, `input "${name}" is given twice`, { hint: `pass --input ${name}=... once` });
    const schema = plan.inputs[name]!;
    if (schema.type === 'string') {
      values[name] = text;
      continue;
    }
    try {
      values[name] = JSON.parse(text);
    } catch {
      throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `input "${name}" is declared ${String(schema.type)} but "${text}" is not valid JSON`, {
        hint: `give a JSON ${String(schema.type)}, e.g. --input ${name}=${schema.type === 'array' ? '["a","b"]' : schema.type === 'object' ? '{"k":1}' : schema.type === 'boolean' ? 'true' : '3'}`,
      });
    }
    if (jsonDeeperThan(values[name], LIMITS.jsonValueDepth)) {
      throw new XdogError(ErrorCodes.USAGE, `input "${name}" nests more than ${LIMITS.jsonValueDepth} levels deep`, { hint: 'pass a flatter JSON value' });
    }
  }
  return values;
}

/** Checks given inputs against the plan and applies defaults. */
export function resolveInputs(plan: FlowPlan, given: Record<string, unknown>): Record<string, unknown> {
  const resolved: Record<string, unknown> = {};
  // Own names only: an inherited member (constructor, toString) is neither declared nor given.
  for (const name of Object.keys(given)) if (!Object.hasOwn(plan.inputs, name)) throw unknownInput(plan, name);
  for (const [name, schema] of Object.entries(plan.inputs)) {
    const value = Object.hasOwn(given, name) ? given[name] : schema.default;
    if (value === undefined) {
      throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `flow "${plan.flow}" needs input "${name}" (${String(schema.type)})`, {
        hint: `pass --input ${name}=...${schema.description ? ` (${String(schema.description)})` : ''}`,
      });
    }
    if (jsonDeeperThan(value, LIMITS.jsonValueDepth)) {
      throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `input "${name}" nests more than ${LIMITS.jsonValueDepth} levels deep`, { hint: 'give a flatter value' });
    }
    const problem = schemaProblems(schema, value);
    if (problem) throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `input "${name}" does not fit its schema: ${problem}`, { hint: `give a ${String(schema.type)}` });
    resolved[name] = value;
  }
  return resolved;
}

function unknownInput(plan: FlowPlan, name: string): XdogError {
  return new XdogError(ErrorCodes.INVALID_ARGUMENT, `flow "${plan.flow}" has no input "${name}"`, {
    hint: `its inputs are: ${Object.keys(plan.inputs).join(', ') || 'none'}`,
  });
}
