/** The agent runtime's public face (re-exported by core/index.ts). */
export * from './types.js';
export * from './events.js';
export * from './agent.js';
export * from './tool-repo.js';
export { cosineSimilarity, createEmbedTool, type EmbedDetails, type EmbedFunction } from './embed-tool.js';
export type { AgentInstrumentation, CompactionStepInfo, ModelCallStepInfo, RunStepInfo, ToolCallOutcome, ToolCallStepInfo } from './instrumentation.js';
export {
  AgentSnapshotSchema,
  SnapshotMetadataSchema,
  SNAPSHOT_VERSION,
  buildMetadata,
  decodeSnapshotMessages,
  encodeSnapshotMessages,
  messagesDigest,
  type AgentSnapshot,
  type RestoreOptions,
  type SkillBindings,
  type SnapshotMetadata,
} from './snapshot.js';
export { findPairingProblem } from './transcript.js';
export {
  COMPACTION_DEFAULTS,
  compactionSummaryMessage,
  contextTokens,
  estimateMessageTokens,
  estimateTokens,
  planCompaction,
  summaryFromMessage,
  userTurnStarts,
  type CompactionPlan,
  type CompactionPlanOptions,
} from './compaction.js';
export { SUMMARY_SYSTEM_PROMPT, serializeConversation, summarizeMessages, summaryPrompt, type SummaryRequest, type SummaryResult } from './summarizer.js';
export { isContextOverflow } from './overflow.js';
export { DEFAULT_IMAGE_MIME_TYPES, admitImages } from './image-admission.js';
export { checkToolArguments, toolDefinition } from './tool-arguments.js';
