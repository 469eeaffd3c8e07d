/** What the `xdog claw memory` commands share: reaching the gateway's memory service, and showing memories. */
import { ErrorCodes, XdogError } from '../../../core/errors.js';
import type { GatewayConnection } from '../../../plugins/claw-gateway/index.js';
import { MEMORY_CAPABILITY, formatMemory, type MemoryEntry } from '../../../plugins/memory/index.js';
import { withGateway } from './gateway.js';
import { clean } from './render.js';

/** Connects, checks that the gateway serves memory, calls `method` with `params`. */
export function callMemory<T>(method: string, params: Record<string, unknown>): Promise<T> {
  return withGateway(async (gateway: GatewayConnection) => {
    if (!gateway.hello.capabilities.includes(MEMORY_CAPABILITY)) {
      throw new XdogError(ErrorCodes.UNSUPPORTED, 'the running gateway has no memory service', { hint: 'restart it with this xdog version (xdog claw gateway stop, then xdog claw gateway start)' });
    }
    return (await gateway.callService(method, params)) as T;
  });
}

/** One line per memory, cleaned of control characters (never cut: a memory is at most a few thousand characters). */
export function renderMemories(entries: readonly MemoryEntry[]): string {
  return entries.map((entry) => clean(formatMemory(entry), Number.POSITIVE_INFINITY)).join('\n');
}
