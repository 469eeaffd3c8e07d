/**
 * The protocol's version and notification names, without its schemas: a
 * client (`xdog claw send`) needs these and not the zod schemas of every
 * method (`protocol.ts` re-exports both).
 */

export const PROTOCOL_VERSION = 1;

/**
 * Client features: flags a client declares in its `hello` (`features`) for
 * what it can do for the gateway, as the gateway's `capabilities` say what it
 * offers the client.
 */
export const ClientFeatures = {
  /** The client shows a group's MCP elicitations to a person and answers them (`mcp.answer`). */
  mcpElicitation: 'mcp-elicitation:1',
} as const;

/** Notifications the gateway sends to subscribed connections. */
export const Notifications = {
  /** `{ group, sessionId, inputId, event }`: one agent event of the run of prompt `inputId` (message_update carries only its delta). */
  event: 'event',
  /** `{ group, activeSessionId, busy, revision }`: the group's state changed. */
  groupChanged: 'group.changed',
  /** `{ group, sessionId, inputId, status, errorMessage?, errorCode?, errorHint? }`: the run of prompt `inputId` ended (`errorCode` when it failed on a typed error, e.g. STORE_CORRUPT). */
  runEnd: 'run.end',
  /** `{ group, source, message }`: something the people watching a group should know (an extension was quarantined, and why). */
  notice: 'notice',
} as const;
