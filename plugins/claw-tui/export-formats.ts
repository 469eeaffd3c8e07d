/**
 * Conversation files of the TUI: the formats are core's (shared with
 * `xdog agent chat`); files are new (never overwritten), 0600, in a directory
 * that must already exist.
 */

export { writePrivateFile } from '../../core/private-file.js';
export { SHARE_CSP, renderConversation, sourceEntries, type ExportFormat, type SourceEntry } from '../../core/conversation-export.js';
