/**
 * The gateway's `readonly.*` methods. A change needs an idle group (no run,
 * no waiting prompt, no other control) and is committed to the store before
 * it is acknowledged or announced; the gate reads the store on every tool
 * call, so "persisted" and "in effect" are the same moment.
 */
import { ErrorCodes, XdogError, describeError, z } from '../../core/index.js';
import { gatewayMethod, type GatewayHost, type GatewayService } from '../claw-gateway/tokens.js';
import type { AccessScopeRecord } from '../sessions/tokens.js';

/** What `readonly.status` answers; `mode: 'corrupt'` means every tool call of the group is denied. */
export type ReadOnlyStatus = (AccessScopeRecord & { readOnly: boolean }) | { group: string; mode: 'corrupt'; readOnly: true; problem: string };

export const ReadOnlyNotifications = { changed: 'readonly.changed' } as const;

const GroupParams = z.object({ group: z.string().optional() }).strict();
const SetParams = z.object({ group: z.string().optional(), readOnly: z.boolean(), expectedRevision: z.number().int().min(0).optional() }).strict();

/** The access service: status and changes of each group's read-only scope. */
export function createAccessService(): GatewayService {
  let host: GatewayHost | undefined;
  const started = (): GatewayHost => {
    if (!host) throw new XdogError(ErrorCodes.UNAVAILABLE, 'the access service has not started', { hint: 'retry once the gateway is ready' });
    return host;
  };
  const status = async (group: string): Promise<ReadOnlyStatus> => {
    try {
      const scope = await started().store.getAccessScope(group);
      return { ...scope, readOnly: scope.mode === 'read-only' };
    } catch (error) {
      if (!XdogError.is(error, ErrorCodes.STORE_CORRUPT)) throw error;
      return { group, mode: 'corrupt', readOnly: true, problem: describeError(error) };
    }
  };
  return {
    name: 'access',
    capabilities: ['readonly:1'],
    methods: {
      'readonly.status': gatewayMethod(GroupParams, (params) => status(started().group(params.group).name)),
      'readonly.set': gatewayMethod(SetParams, async (params) => {
        const gateway = started();
        const runtime = gateway.group(params.group);
        const mode = params.readOnly ? 'read-only' : 'full';
        // Read-only on narrows what running children may do (at their next call); off widens it, so it waits for them.
        const record = await runtime.control(runtime.activeSessionId, () => gateway.store.setAccessScope(runtime.name, mode, params.expectedRevision), params.readOnly ? 'tighten' : 'loosen');
        const answer = { ...record, readOnly: record.mode === 'read-only' };
        gateway.publish(runtime.name, null, ReadOnlyNotifications.changed, answer);
        return answer;
      }),
    },
    start(gatewayHost) {
      host = gatewayHost;
    },
    stop() {
      host = undefined;
    },
  };
}
