/**
 * The ACP plugin: exposes xdog agents to editors over the Agent Client
 * Protocol (`xdog agent acp`). It contributes nothing to a kernel; the CLI
 * command builds the server with `createAcpAgent()`.
 */
import { definePlugin } from '../../core/index.js';

export { createAcpAgent, type AcpAgentOptions } from './acp-agent.js';
export { acpNdJsonStream, type AcpStream } from './stream.js';
export { replayUpdates, toolKind, toolTitle, updateFor } from './updates.js';

export default definePlugin({ name: 'acp' });
