/**
 * The memory gateway service: `memory.add`, `memory.search`, `memory.list`
 * and `memory.forget` for clients (the `xdog claw memory` commands), on the
 * same store and rules as the tools. A request without `group` goes to the
 * default group.
 */
import { z } from 'zod';
import { ErrorCodes, XdogError } from '../../core/index.js';
import { gatewayMethod, type GatewayHost, type GatewayService } from '../claw-gateway/tokens.js';
import { memoryIndexFor } from './memory-index.js';
import { MemoryStore } from './memory-store.js';

/** The capability flag the gateway adds to `hello` while this service runs. */
export const MEMORY_CAPABILITY = 'memory:1';

const group = z.string().optional();
const id = z.number().int();
const AddParams = z.object({ group, text: z.string(), tags: z.array(z.string()).optional() }).strict();
const SearchParams = z.object({ group, query: z.string(), limit: z.number().int().optional() }).strict();
const ListParams = z.object({ group, limit: z.number().int().optional(), before: id.optional() }).strict();
const ForgetParams = z.object({ group, id }).strict();

/** A fresh memory service (its state lives in the store, so a restart loses nothing). */
export function createMemoryService(): GatewayService {
  let host: GatewayHost | undefined;
  let memory: MemoryStore | undefined;
  const scoped = (name: string | undefined): { group: string; memory: MemoryStore } => {
    if (!host) throw new XdogError(ErrorCodes.INVALID_STATE, 'the memory service has not started');
    memory ??= new MemoryStore({ store: host.store, index: memoryIndexFor(host.dataSource), clock: host.clock });
    return { group: host.group(name).name, memory };
  };
  return {
    name: 'memory',
    capabilities: [MEMORY_CAPABILITY],
    methods: {
      'memory.add': gatewayMethod(AddParams, (params) => {
        const { group, memory } = scoped(params.group);
        return memory.write(group, { text: params.text, tags: params.tags, source: 'user' });
      }),
      'memory.search': gatewayMethod(SearchParams, async (params) => {
        const { group, memory } = scoped(params.group);
        return { group, results: await memory.search(group, params.query, params.limit) };
      }),
      'memory.list': gatewayMethod(ListParams, async (params) => {
        const { group, memory } = scoped(params.group);
        return { group, ...(await memory.list(group, { limit: params.limit, before: params.before })) };
      }),
      'memory.forget': gatewayMethod(ForgetParams, async (params) => {
        const { group, memory } = scoped(params.group);
        return { group, entry: await memory.forget(group, params.id) };
      }),
    },
    start(gatewayHost) {
      host = gatewayHost;
    },
    stop() {
      host = memory = undefined;
    },
  };
}
