/**
 * The GenAI and MCP semantic-convention names xdog emits. Our own constants:
 * semantic-conventions 1.45.0 marks every gen_ai.* export deprecated (they
 * moved to a repository without an npm package), and importing its
 * /incubating entry costs ~60 ms.
 */
export const GenAi = Object.freeze({
  operationName: 'gen_ai.operation.name',
  providerName: 'gen_ai.provider.name',
  requestModel: 'gen_ai.request.model',
  responseModel: 'gen_ai.response.model',
  finishReasons: 'gen_ai.response.finish_reasons',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  cacheReadTokens: 'gen_ai.usage.cache_read.input_tokens',
  cacheCreationTokens: 'gen_ai.usage.cache_creation.input_tokens',
  agentName: 'gen_ai.agent.name',
  conversationId: 'gen_ai.conversation.id',
  toolName: 'gen_ai.tool.name',
  toolCallId: 'gen_ai.tool.call.id',
  toolType: 'gen_ai.tool.type',
  toolArguments: 'gen_ai.tool.call.arguments',
  toolResult: 'gen_ai.tool.call.result',
  inputMessages: 'gen_ai.input.messages',
  outputMessages: 'gen_ai.output.messages',
  tokenType: 'gen_ai.token.type',
});

export const GenAiOperation = Object.freeze({
  chat: 'chat',
  invokeAgent: 'invoke_agent',
  executeTool: 'execute_tool',
});

export const Mcp = Object.freeze({
  methodName: 'mcp.method.name',
  sessionId: 'mcp.session.id',
  resourceUri: 'mcp.resource.uri',
  protocolVersion: 'mcp.protocol.version',
  jsonrpcRequestId: 'jsonrpc.request.id',
  networkTransport: 'network.transport',
});

export const ErrorType = 'error.type';

/** xdog's own attributes (no convention names them). */
export const Xdog = Object.freeze({
  group: 'xdog.group',
  sessionId: 'xdog.session.id',
  inputId: 'xdog.input.id',
  runStatus: 'xdog.run.status',
  runSource: 'xdog.run.source',
  toolOutcome: 'xdog.tool.outcome',
  toolRemote: 'xdog.tool.remote',
  compactionReason: 'xdog.compaction.reason',
  compacted: 'xdog.compaction.compacted',
  costUsd: 'xdog.cost.usd',
  mcpServer: 'xdog.mcp.server',
  channel: 'xdog.channel',
  schedule: 'xdog.schedule',
  extension: 'xdog.extension',
  worker: 'xdog.worker',
});

/** Metric names (the GenAI ones follow the conventions; the rest are xdog's). */
export const Metric = Object.freeze({
  tokenUsage: 'gen_ai.client.token.usage',
  operationDuration: 'gen_ai.client.operation.duration',
  runs: 'xdog.runs',
  runDuration: 'xdog.run.duration',
  modelCalls: 'xdog.model.calls',
  toolCalls: 'xdog.tool.calls',
  toolErrors: 'xdog.tool.errors',
  errors: 'xdog.errors',
  cost: 'xdog.cost',
  queueDepth: 'xdog.queue.depth',
  eventLoopDelayP99: 'xdog.event_loop.delay.p99',
  rss: 'xdog.memory.rss',
  heapUsed: 'xdog.memory.heap_used',
  storeTransaction: 'xdog.store.transaction.duration',
});
