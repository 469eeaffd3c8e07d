/**
 * ToolRepo: a host-owned inventory of actual tools (never a global).
 * Registration is atomic and returns a receipt that withdraws only its own
 * bindings: after `unregister(name)` and a replacement, closing the old
 * receipt leaves the replacement alone. Remote (MCP) tools never enter it.
 */
import { ErrorCodes, XdogError } from '../errors.js';
import type { AgentTool } from './tool-types.js';

/** Withdraws the bindings of one `register()` call. Closing twice does nothing. */
export interface ToolReceipt {
  close(): void;
}

/** Anything tools can be published to (an idle Agent). */
export interface ToolPublisherTarget {
  setTools(tools: readonly AgentTool[]): void;
}

/** One binding: the identity a receipt checks before removing. */
interface Binding {
  readonly tool: AgentTool;
}

const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/** Throws INVALID_ARGUMENT unless `tool` looks like an AgentTool. */
export function assertAgentTool(tool: AgentTool): void {
  if (!tool || typeof tool !== 'object' || typeof tool.name !== 'string' || !TOOL_NAME.test(tool.name)) {
    throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `invalid tool name ${JSON.stringify((tool as AgentTool | undefined)?.name)}`, {
      hint: 'tool names are 1-128 characters of letters, digits, "_", "." or "-"',
    });
  }
  if (typeof tool.execute !== 'function' || typeof tool.description !== 'string' || typeof tool.parameters !== 'object' || tool.parameters === null) {
    throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `tool "${tool.name}" needs a description, parameters and an execute function`);
  }
}

/** A host-owned inventory of actual tools. */
export class ToolRepo {
  readonly #bindings = new Map<string, Binding>();

  /** Starts with `tools` (registered atomically; same-name conflicts fail). */
  constructor(tools: readonly AgentTool[] = []) {
    if (tools.length) this.register(...tools);
  }

  /** Registers tools atomically: if any name is taken (or repeated), nothing is registered. */
  register(...tools: AgentTool[]): ToolReceipt {
    const seen = new Set<string>();
    for (const tool of tools) {
      assertAgentTool(tool);
      if (this.#bindings.has(tool.name) || seen.has(tool.name)) {
        throw new XdogError(ErrorCodes.CONFLICT, `a tool named "${tool.name}" is already registered`, {
          hint: `unregister("${tool.name}") before registering a replacement`,
        });
      }
      seen.add(tool.name);
    }
    const mine = tools.map((tool) => {
      const binding: Binding = { tool };
      this.#bindings.set(tool.name, binding);
      return binding;
    });
    let closed = false;
    return {
      close: () => {
        if (closed) return;
        closed = true;
        for (const binding of mine) {
          if (this.#bindings.get(binding.tool.name) === binding) this.#bindings.delete(binding.tool.name);
        }
      },
    };
  }

  /** Removes a name so a replacement can be registered. Unknown names fail. */
  unregister(name: string): void {
    if (!this.#bindings.delete(name)) throw this.#missing(name);
  }

  /** The registered names. */
  names(): ReadonlySet<string> {
    return new Set(this.#bindings.keys());
  }

  /** The actual tool under `name`; unknown names fail. */
  get(name: string): AgentTool {
    const binding = this.#bindings.get(name);
    if (!binding) throw this.#missing(name);
    return binding.tool;
  }

  has(name: string): boolean {
    return this.#bindings.has(name);
  }

  /** A new repo holding the same tool objects under `names`; unknown names fail. */
  select(names: Iterable<string>): ToolRepo {
    return new ToolRepo([...new Set(names)].map((name) => this.get(name)));
  }

  /** A new repo with the tools of both; a name bound to two different objects fails. */
  merge(other: ToolRepo): ToolRepo {
    const merged = new ToolRepo(this.tools);
    for (const tool of other.tools) {
      const existing = merged.#bindings.get(tool.name);
      if (existing?.tool === tool) continue;
      if (existing) {
        throw new XdogError(ErrorCodes.CONFLICT, `both repos bind "${tool.name}" to different tools`, {
          hint: `select or unregister "${tool.name}" in one of them before merging`,
        });
      }
      merged.register(tool);
    }
    return merged;
  }

  /** The tools, in registration order. */
  get tools(): readonly AgentTool[] {
    return Object.freeze([...this.#bindings.values()].map((binding) => binding.tool));
  }

  /** Publishes the current tools to an idle agent (`agent.setTools`); the agent's active selection does not grow. */
  publish(agent: ToolPublisherTarget): void {
    agent.setTools(this.tools);
  }

  #missing(name: string): XdogError {
    return new XdogError(ErrorCodes.NOT_FOUND, `no tool named "${name}"`, {
      hint: `registered tools: ${[...this.#bindings.keys()].join(', ') || '(none)'}`,
    });
  }
}
