/**
 * The Flow compiler: YAML workflow text → a checked JSON plan. It checks the
 * shape, step ids, every reference (declared input or earlier step, a path
 * that exists in that step's output schema, a type that fits where it is
 * used) and, when it knows the tools, tool names and arguments. Every problem
 * is reported at once, each with file, line and the fix.
 */
import { z } from 'zod';
import { ErrorCodes, LIMITS, XdogError, readRegularFileSync, toolDefinition, utf8Bytes, yamlData, type AgentTool, type JsonSchema } from '../../core/index.js';
import { compileSchema, schemaProblems } from './json-schema.js';
import { FLOW_PLAN_FORMAT, type FlowPlan, type StepPlan } from './plan.js';
import { describeType, schemaAtPath, typeFits } from './schema-path.js';
import { parseTemplate, wholeReference, type FlowReference } from './template.js';
import { YamlSource } from './yaml-source.js';

/** One compile error. */
export interface FlowProblem {
  file: string;
  line?: number;
  message: string;
  hint: string;
}

/** What the compiler knows about a tool: its name and argument schema. */
export interface ToolSignature {
  name: string;
  parameters: JsonSchema;
}

/** Options of `compileFlow`. */
export interface CompileOptions {
  /** Named in every error (default "<flow>"). */
  file?: string;
  /** The tools a run will have; when given, tool names and arguments are checked against them. */
  tools?: readonly ToolSignature[];
}

/** Names the compiler refuses inside a flow: the result tool is implied, and flows do not nest. */
const RESERVED_TOOLS = new Set(['submit_result', 'flow']);
const ID = /^[a-z][a-z0-9_]{0,63}$/;
const NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

const InputSchema = z.looseObject({
  type: z.enum(['string', 'number', 'integer', 'boolean', 'array', 'object']),
  description: z.string().optional(),
});
const AgentSpecSchema = z
  .object({ prompt: z.string().min(1), system: z.string().min(1).optional(), tools: z.array(z.string().min(1)).optional() })
  .strict();
const StepSchema = z
  .object({
    id: z.string().regex(ID, 'must be lower-case letters, digits and "_", starting with a letter'),
    description: z.string().optional(),
    agent: AgentSpecSchema.optional(),
    tool: z.string().min(1).optional(),
    args: z.record(z.string(), z.unknown()).optional(),
    output: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();
const FlowSchema = z
  .object({
    flow: z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/, 'must be a slug: lower-case letters, digits and dashes'),
    description: z.string().optional(),
    inputs: z.record(z.string().regex(NAME, 'must be a name: letters, digits and "_"'), InputSchema).optional(),
    steps: z.array(StepSchema).min(1, 'a flow needs at least one step'),
    output: z.record(z.string().regex(NAME, 'must be a name: letters, digits and "_"'), z.string()),
  })
  .strict();

type FlowSource = z.infer<typeof FlowSchema>;
type StepSource = z.infer<typeof StepSchema>;
type Path = Array<string | number>;

/** Tool parameters as JSON Schema: what the model is told about the tool. */
export function toolSignature(tool: AgentTool): ToolSignature {
  const { name, parameters } = toolDefinition(tool);
  return { name, parameters };
}

/** Reads and compiles a workflow file. */
export function compileFlowFile(file: string, options: Omit<CompileOptions, 'file'> = {}): FlowPlan {
  let text: string;
  try {
    // The size is checked before reading, so a huge file is never loaded.
    text = readRegularFileSync(file, { maxBytes: LIMITS.flowFileBytes, what: 'flow file', sizeHint: 'split it into smaller flows' }).toString('utf8');
  } catch (error) {
    if (XdogError.is(error)) throw error;
    throw new XdogError(ErrorCodes.NOT_FOUND, `cannot read flow file ${file}: ${(error as Error).message}`, { hint: 'check the path' });
  }
  return compileFlow(text, { ...options, file });
}

function checkFlowSize(file: string, bytes: number): void {
  if (bytes > LIMITS.flowFileBytes) {
    throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `flow ${file} is ${bytes} bytes, over the limit of ${LIMITS.flowFileBytes} bytes`, {
      hint: 'split it into smaller flows',
    });
  }
}

/** Compiles workflow text into a plan; throws FLOW_INVALID listing every problem, LIMIT_EXCEEDED when the text is over the file limit. */
export function compileFlow(text: string, options: CompileOptions = {}): FlowPlan {
  checkFlowSize(options.file ?? '<flow>', utf8Bytes(text));
  return new Compiler(text, options).compile();
}

class Compiler {
  readonly #file: string;
  readonly #source: YamlSource;
  readonly #tools?: Map<string, ToolSignature>;
  readonly #problems: FlowProblem[] = [];
  /** Output schemas of the steps checked so far, in order. */
  readonly #stepOutputs = new Map<string, JsonSchema>();

  constructor(text: string, options: CompileOptions) {
    this.#file = options.file ?? '<flow>';
    this.#source = new YamlSource(text);
    this.#tools = options.tools ? new Map(options.tools.map((tool) => [tool.name, tool])) : undefined;
  }

  compile(): FlowPlan {
    const flow = this.#parse();
    if (!flow) return this.#fail();
    if (flow.steps.length > LIMITS.flowSteps) {
      this.#problem(['steps'], `the flow has ${flow.steps.length} steps, over the limit of ${LIMITS.flowSteps}`, 'split it into smaller flows');
    }
    const inputs = this.#inputs(flow);
    const allIds = new Map<string, number>();
    flow.steps.forEach((step, index) => {
      if (!allIds.has(step.id)) allIds.set(step.id, index);
    });
    const steps: StepPlan[] = [];
    flow.steps.forEach((step, index) => {
      const plan = this.#step(step, index, inputs, allIds);
      if (plan) steps.push(plan);
    });
    const output = this.#output(flow, inputs, allIds);
    if (this.#problems.length) return this.#fail();
    return {
      format: FLOW_PLAN_FORMAT,
      flow: flow.flow,
      ...(flow.description ? { description: flow.description } : {}),
      source: this.#file,
      inputs,
      steps,
      output,
    };
  }

  #parse(): FlowSource | undefined {
    const syntax = this.#source.syntaxErrors();
    for (const error of syntax) this.#problems.push({ file: this.#file, line: error.line, message: `YAML syntax error: ${error.message}`, hint: 'fix the YAML at that line' });
    if (syntax.length) return undefined;
    const converted = yamlData(this.#source.doc);
    if ('problem' in converted) {
      const { path, offset, message, hint } = converted.problem;
      this.#problems.push({ file: this.#file, line: this.#source.lineAt(offset), message: `${path.length ? `${path.join('.')}: ` : ''}${message}`, hint });
      return undefined;
    }
    const parsed = FlowSchema.safeParse(converted.data);
    if (parsed.success) return parsed.data;
    for (const issue of parsed.error.issues) {
      const keys = issue.code === 'unrecognized_keys' ? issue.keys : [undefined];
      for (const key of keys) {
        const path = (key === undefined ? issue.path : [...issue.path, key]) as Path;
        const name = path.map(String).join('.') || '(top level)';
        const message = issue.code === 'unrecognized_keys' ? `${name}: unknown key` : `${name}: ${issue.message}`;
        this.#problem(path, message, 'see docs/flow.md for the workflow format');
      }
    }
    return undefined;
  }

  #inputs(flow: FlowSource): Record<string, JsonSchema> {
    const inputs: Record<string, JsonSchema> = {};
    for (const [name, schema] of Object.entries(flow.inputs ?? {})) {
      if (this.#checkSchema(['inputs', name], schema) && 'default' in schema) {
        const problem = schemaProblems(schema, schema.default);
        if (problem) this.#problem(['inputs', name, 'default'], `the default of input "${name}" does not fit its schema: ${problem}`, 'change the default or the type');
      }
      inputs[name] = schema;
    }
    return inputs;
  }

  #step(step: StepSource, index: number, inputs: Record<string, JsonSchema>, allIds: Map<string, number>): StepPlan | undefined {
    const at: Path = ['steps', index];
    const firstIndex = allIds.get(step.id);
    let valid = true;
    if (firstIndex !== index) {
      this.#problem([...at, 'id'], `step id "${step.id}" is used twice`, 'give every step its own id');
      valid = false;
    }
    const line = this.#source.lineOf(at) ?? 0;
    const scope = { inputs, at: index, allIds };
    let plan: StepPlan | undefined;
    if (step.agent && step.tool === undefined) {
      if (step.args) this.#problem([...at, 'args'], `agent step "${step.id}" takes no args`, 'put the values into the prompt with {{ }} references');
      if (!step.output) {
        this.#problem(at, `agent step "${step.id}" has no output schema`, 'add "output:" with the JSON Schema of the result the agent must submit');
        valid = false;
      } else if (!this.#checkSchema([...at, 'output'], step.output)) {
        valid = false;
      }
      this.#template([...at, 'agent', 'prompt'], step.agent.prompt, scope);
      if (step.agent.system) this.#template([...at, 'agent', 'system'], step.agent.system, scope);
      (step.agent.tools ?? []).forEach((tool, i) => this.#toolName([...at, 'agent', 'tools', i], tool));
      plan = {
        id: step.id,
        kind: 'agent',
        prompt: step.agent.prompt,
        ...(step.agent.system ? { system: step.agent.system } : {}),
        tools: step.agent.tools ?? [],
        output: step.output ?? {},
        line,
      };
    } else if (step.tool !== undefined && !step.agent) {
      const signature = this.#toolName([...at, 'tool'], step.tool);
      if (step.output && !this.#checkSchema([...at, 'output'], step.output)) valid = false;
      this.#args([...at, 'args'], step.args ?? {}, signature, scope);
      plan = {
        id: step.id,
        kind: 'tool',
        tool: step.tool,
        args: step.args ?? {},
        output: step.output ?? { type: 'string' },
        parsesJson: step.output !== undefined,
        line,
      };
    } else {
      this.#problem(at, `step "${step.id}" must have exactly one of "agent" and "tool"`, 'an agent step has "agent: {prompt, tools}" and "output"; a tool step has "tool" and "args"');
      valid = false;
    }
    // Later steps may reference this one even when it had problems, so its schema counts if it is usable.
    if (firstIndex === index) this.#stepOutputs.set(step.id, valid && plan ? plan.output : {});
    return plan;
  }

  #toolName(path: Path, name: string): ToolSignature | undefined {
    if (RESERVED_TOOLS.has(name)) {
      this.#problem(path, `a flow cannot use the "${name}" tool`, name === 'flow' ? 'flows do not nest; inline the steps' : 'agent steps submit their output through submit_result already');
      return undefined;
    }
    if (!this.#tools) return undefined;
    const signature = this.#tools.get(name);
    if (!signature) {
      this.#problem(path, `unknown tool "${name}"`, `use one of: ${[...this.#tools.keys()].filter((t) => !RESERVED_TOOLS.has(t)).sort().join(', ') || '(no tools are available)'}`);
    }
    return signature;
  }

  #args(path: Path, args: Record<string, unknown>, signature: ToolSignature | undefined, scope: ReferenceScope): void {
    const parameters = signature?.parameters;
    const properties = (parameters?.properties ?? {}) as Record<string, JsonSchema>;
    for (const [key, value] of Object.entries(args)) {
      const target = properties[key];
      if (signature && !target && parameters?.additionalProperties === false) {
        this.#problem([...path, key], `tool "${signature.name}" has no argument "${key}"`, `its arguments are: ${Object.keys(properties).join(', ') || 'none'}`);
        continue;
      }
      const found = this.#templates([...path, key], value, scope);
      if (!target) continue;
      if (found !== undefined) {
        if (!typeFits(found.schema, target)) {
          this.#problem(found.path, `{{ ${found.ref.text} }} is ${describeType(found.schema)} but argument "${key}" of tool "${signature!.name}" expects ${describeType(target)}`, `reference a value of type ${describeType(target)}, or change the output schema of the referenced step`, found.offset);
        }
      } else if (!containsTemplate(value)) {
        const problem = schemaProblems(target, value);
        if (problem) this.#problem([...path, key], `argument "${key}" of tool "${signature!.name}" does not fit: ${problem}`, `give a value of type ${describeType(target)}`);
      }
    }
    for (const required of (Array.isArray(parameters?.required) ? parameters.required : []) as string[]) {
      if (!Object.hasOwn(args, required)) this.#problem(path.slice(0, -1), `tool "${signature!.name}" needs argument "${required}"`, `add "${required}" under args`);
    }
  }

  /** Checks every template inside a JSON value; returns the whole reference when the value is exactly one. */
  #templates(path: Path, value: unknown, scope: ReferenceScope): { ref: FlowReference; schema: JsonSchema; path: Path; offset: number } | undefined {
    if (typeof value === 'string') return this.#template(path, value, scope);
    if (Array.isArray(value)) value.forEach((item, i) => this.#templates([...path, i], item, scope));
    else if (value && typeof value === 'object') for (const [key, item] of Object.entries(value)) this.#templates([...path, key], item, scope);
    return undefined;
  }

  /** Checks one template string; returns the whole reference and its schema when the string is exactly one. */
  #template(path: Path, template: string, scope: ReferenceScope): { ref: FlowReference; schema: JsonSchema; path: Path; offset: number } | undefined {
    const { parts, errors } = parseTemplate(template);
    for (const error of errors) this.#problem(path, error.message, error.hint, error.offset);
    let whole: { ref: FlowReference; schema: JsonSchema; path: Path; offset: number } | undefined;
    const wholeRef = wholeReference(parts);
    for (const part of parts) {
      if (!('ref' in part)) continue;
      const schema = this.#reference(path, part.ref, part.offset, scope);
      if (schema && part.ref === wholeRef) whole = { ref: part.ref, schema, path, offset: part.offset };
    }
    return whole;
  }

  /** Resolves one reference to the schema of what it points at, reporting why it cannot. */
  #reference(path: Path, ref: FlowReference, offset: number, scope: ReferenceScope): JsonSchema | undefined {
    const report = (message: string, hint: string) => {
      this.#problem(path, message, hint, offset);
      return undefined;
    };
    let base: JsonSchema;
    let described: string;
    if (ref.root === 'inputs') {
      const input = Object.hasOwn(scope.inputs, ref.name) ? scope.inputs[ref.name] : undefined;
      if (!input) return report(`{{ ${ref.text} }}: no input named "${ref.name}"`, `declare it under "inputs:" or use one of: ${Object.keys(scope.inputs).join(', ') || '(no inputs declared)'}`);
      base = input;
      described = `input "${ref.name}"`;
    } else {
      const index = scope.allIds.get(ref.name);
      if (index === undefined) {
        const earlier = [...this.#stepOutputs.keys()].filter((id) => scope.allIds.get(id)! < scope.at);
        return report(`{{ ${ref.text} }}: unknown step "${ref.name}"`, `reference an earlier step: ${earlier.join(', ') || '(none; this is the first step)'}`);
      }
      if (index >= scope.at) {
        const what = index === scope.at ? 'its own output' : `step "${ref.name}", which runs later (step ${index + 1})`;
        return report(`{{ ${ref.text} }}: forward reference to ${what}`, `a step can only use the outputs of steps before it; move step "${ref.name}" earlier or drop the reference`);
      }
      base = this.#stepOutputs.get(ref.name) ?? {};
      described = `the output of step "${ref.name}"`;
    }
    const found = schemaAtPath(base, ref.path);
    if (found.ok) return found.schema;
    const where = found.at.length ? `${described} at "${found.at.join('.')}"` : described;
    const available = found.available.length ? `it has: ${found.available.join(', ')}` : 'it declares no properties there';
    return report(`{{ ${ref.text} }}: ${where} has no property "${found.missing}"`, `use a property its schema declares (${available}), or add "${found.missing}" to that schema`);
  }

  #output(flow: FlowSource, inputs: Record<string, JsonSchema>, allIds: Map<string, number>): FlowPlan['output'] {
    const scope = { inputs, at: flow.steps.length, allIds };
    const properties: Record<string, JsonSchema> = {};
    for (const [name, template] of Object.entries(flow.output)) {
      const whole = this.#template(['output', name], template, scope);
      properties[name] = whole?.schema ?? { type: 'string' };
    }
    return { mapping: flow.output, schema: { type: 'object', properties, required: Object.keys(properties), additionalProperties: false } };
  }

  #checkSchema(path: Path, schema: JsonSchema): boolean {
    try {
      compileSchema(schema);
      return true;
    } catch (error) {
      this.#problem(path, `invalid JSON Schema: ${(error as Error).message}`, 'fix the schema (JSON Schema draft 2020-12)');
      return false;
    }
  }

  #problem(path: Path, message: string, hint: string, offset?: number): void {
    const line = offset === undefined ? this.#source.lineOf(path) : this.#source.lineInString(path, offset);
    this.#problems.push({ file: this.#file, line, message, hint });
  }

  #fail(): never {
    const problems = this.#problems.sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
    const lines = problems.length === 1 ? [formatProblem(problems[0]!, false)] : problems.map((problem) => formatProblem(problem));
    throw new XdogError(ErrorCodes.FLOW_INVALID, problems.length === 1 ? lines[0]! : `${problems.length} problems: ${lines.join('; ')}`, {
      hint: problems.length === 1 ? problems[0]!.hint : 'fix each problem at its line',
      details: { problems },
    });
  }
}

interface ReferenceScope {
  inputs: Record<string, JsonSchema>;
  /** Index of the step being checked (steps.length for the output mapping). */
  at: number;
  allIds: Map<string, number>;
}

/** `file:line: message (fix: hint)`, or without the fix. */
export function formatProblem(problem: FlowProblem, withHint = true): string {
  const where = `${problem.file}${problem.line ? `:${problem.line}` : ''}`;
  return `${where}: ${problem.message}${withHint ? ` (fix: ${problem.hint})` : ''}`;
}

function containsTemplate(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('{{');
  if (Array.isArray(value)) return value.some(containsTemplate);
  if (value && typeof value === 'object') return Object.values(value).some(containsTemplate);
  return false;
}
