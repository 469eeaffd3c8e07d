/**
 * Extension model providers and tools as the host's contributions: a
 * provider registered as `name` by extension ID serves `ext-ID-NAME/MODEL`
 * (a dynamic provider: it exists while its extension is active); an extension
 * tool is `ext_NAME`, blocked unless listed in `extension_allow_tools`.
 */
import type { AssistantMessage } from '../../core/agent/messages.js';
import { zeroUsage } from '../../core/agent/messages.js';
import type { Agent } from '../../core/agent/agent.js';
import type { AgentTool } from '../../core/agent/tool-types.js';
import { describeError } from '../../core/errors.js';
import type { DynamicModelProviders } from '../../core/model/registry.js';
import type { AssistantStreamEvent, ImageLimits, ModelContext, ModelInfo, ModelProvider, ModelStreamFn, ModelStreamOptions } from '../../core/model/types.js';
import { admitImages } from '../../core/agent/image-admission.js';
import { providerAlias, toolAlias, type ExtensionHost } from './host.js';
import { ProviderEventSchema, ToolAnswerSchema, type WireModelSpec } from './protocol.js';

export function extensionProviders(host: ExtensionHost): DynamicModelProviders {
  const find = (alias: string) => host.registrations('provider').find(({ id, registration }) => providerAlias(id, registration.name) === alias);
  return {
    names: () => host.registrations('provider').map(({ id, registration }) => providerAlias(id, registration.name)),
    provider(alias: string): ModelProvider | undefined {
      const found = find(alias);
      if (!found) return undefined;
      const models = (): ModelInfo[] => found.registration.meta.models.map((model) => modelInfo(alias, model));
      const stream = ((model, context, options) => streamFrom(host, found.id, found.registration.handle, `${alias}/${model}`, model, context, options, models().find((info) => info.id === model))) as ModelStreamFn;
      return { name: alias, stream: Object.assign(stream, { models, resolveModel: (id: string) => models().find((info) => info.id === id) }) };
    },
  };
}

/** An extension model's metadata as the agent reads it (compaction's prompt ceiling, image admission's limits); 0 stays unreported. */
function modelInfo(alias: string, model: WireModelSpec): ModelInfo {
  const vision = model.visionLimits;
  const images: ImageLimits | undefined = vision && {
    ...(vision.maxPromptImages ? { maxCount: vision.maxPromptImages } : {}),
    ...(vision.maxPromptImageSize ? { maxBytes: vision.maxPromptImageSize } : {}),
    ...(vision.supportedMediaTypes?.length ? { mimeTypes: vision.supportedMediaTypes } : {}),
  };
  const efforts = model.supportedEfforts ?? model.reasoningEfforts;
  return {
    id: model.id,
    provider: alias,
    ...(model.name !== undefined && { name: model.name }),
    ...(model.contextWindow !== undefined && { contextWindow: model.contextWindow }),
    ...(model.maxPromptTokens ? { maxPromptTokens: model.maxPromptTokens } : {}),
    ...(model.maxOutputTokens !== undefined && { maxOutputTokens: model.maxOutputTokens }),
    ...(efforts && { reasoningEfforts: efforts }),
    ...(images && { input: ['text', 'image'] as Array<'text' | 'image'>, images }),
  };
}

/** Why a request breaks the model's declared metadata (checked before the extension sees it), or undefined. */
function refusal(qualified: string, info: ModelInfo | undefined, context: ModelContext, options: ModelStreamOptions): string | undefined {
  if (options.reasoning && info?.reasoningEfforts && !info.reasoningEfforts.includes(options.reasoning)) {
    return `${qualified} takes the reasoning efforts ${info.reasoningEfforts.join(', ') || '(none)'}, not "${options.reasoning}": pick one of them with /thinking`;
  }
  try {
    admitImages(context.messages, qualified, info);
  } catch (error) {
    return describeError(error);
  }
  return undefined;
}

async function* streamFrom(host: ExtensionHost, id: string, handle: number, qualified: string, model: string, context: ModelContext, options: ModelStreamOptions, info: ModelInfo | undefined): AsyncIterable<AssistantStreamEvent> {
  const signal = options.signal;
  const message: AssistantMessage = { role: 'assistant', content: [], model: qualified, usage: zeroUsage(), stopReason: 'stop', timestamp: Date.now() };
  const snapshot = (): AssistantMessage => ({ ...message, content: message.content.map((part) => ({ ...part })) });
  const fail = (errorMessage: string, stopReason: 'error' | 'aborted'): AssistantStreamEvent => {
    // An error turn runs none of its tool calls: they are dropped from the message.
    message.content = message.content.filter((part) => part.type !== 'toolCall');
    return { type: 'error', message: { ...snapshot(), stopReason, errorMessage } };
  };
  yield { type: 'start', partial: snapshot() };
  // The agent admits images against the same metadata before each request; a direct caller of the stream function gets the same check.
  const refused = refusal(qualified, info, context, options);
  if (refused) {
    yield fail(refused, 'error');
    return;
  }
  const request = { model, systemPrompt: context.systemPrompt, messages: context.messages, tools: context.tools };
  try {
    for await (const raw of host.stream(id, handle, request, signal)) {
      const parsed = ProviderEventSchema.safeParse(raw);
      if (!parsed.success) {
        yield fail(`extension "${id}" sent an invalid provider event: ${parsed.error.issues.map((issue) => issue.message).join('; ')}`, 'error');
        return;
      }
      const event = parsed.data;
      if (event.type === 'text' || event.type === 'thinking') {
        const last = message.content.at(-1);
        const kind = event.type === 'text' ? 'text' : 'thinking';
        if (last && last.type === kind) (last as { text?: string; thinking?: string })[kind === 'text' ? 'text' : 'thinking'] += event.text;
        else message.content.push(kind === 'text' ? { type: 'text', text: event.text } : { type: 'thinking', thinking: event.text });
        yield { type: kind === 'text' ? 'text_delta' : 'thinking_delta', delta: event.text, partial: snapshot() };
      } else if (event.type === 'tool_call') {
        message.content.push({ type: 'toolCall', id: event.id, name: event.name, arguments: event.arguments });
        yield { type: 'toolcall_end', partial: snapshot() };
      } else if (event.type === 'usage') {
        message.usage = { ...zeroUsage(), input: event.input, output: event.output };
      } else if (event.type === 'error') {
        yield fail(event.message, event.stopReason ?? 'error');
        return;
      } else {
        message.stopReason = message.content.some((part) => part.type === 'toolCall') ? 'toolUse' : 'stop';
        yield { type: 'done', message: snapshot() };
        return;
      }
    }
    if (signal?.aborted) yield fail('the request was aborted', 'aborted');
    else yield fail(`extension "${id}" ended its provider stream without a done or error event`, 'error');
  } catch (error) {
    yield fail(describeError(error), 'error');
  }
}

/** The agent tools `extensionTools` made, so a later sync can tell them from the agent's own. */
const madeHere = new WeakSet<AgentTool>();

/** The tools extensions registered, as agent tools named `ext_NAME`. */
export function extensionTools(host: ExtensionHost, allowed: readonly string[]): AgentTool[] {
  return host.registrations('tool').map(({ id, registration }) => {
    const alias = toolAlias(registration.name);
    const tool: AgentTool = {
      name: alias,
      description: registration.meta.description,
      parameters: registration.meta.parameters as AgentTool['parameters'],
      async execute(args: Record<string, unknown>) {
        if (!allowed.includes(alias)) {
          throw new Error(`extension tool ${alias} is blocked: add it to extension_allow_tools in the config to let the model call it`);
        }
        const text = await host.invoke(id, 'invoke', { handle: registration.handle, input: args }, ToolAnswerSchema, `tool ${alias}`);
        return { content: [{ type: 'text', text }] };
      },
    };
    madeHere.add(tool);
    return tool;
  });
}

/**
 * Gives an idle agent the extension tools registered now, in place of the
 * ones it got at an earlier sync (a withdrawn tool leaves, a new one joins);
 * its own tools stay as they are.
 */
export function syncExtensionTools(agent: Agent, host: ExtensionHost, allowed: readonly string[]): void {
  agent.setTools([...agent.localTools.filter((tool) => !madeHere.has(tool)), ...extensionTools(host, allowed)]);
}
