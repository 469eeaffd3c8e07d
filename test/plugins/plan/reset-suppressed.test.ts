import { describe, expect, it } from 'vitest';
import { createGatewayHooks } from '../../../core/index.js';
import type { GatewayHost } from '../../../plugins/claw-gateway/index.js';
import { createPlanService } from '../../../plugins/plan/index.js';
import { openTestStore } from '../sessions/helpers.js';

describe('plan mode and automatic resets', () => {
  it('suppresses a reset of a session with an active or unreadable plan, and no other', async () => {
    const { store } = await openTestStore();
    await store.ensureGroup('main');
    const session = await store.createSession('main', { model: 'faux/test', activate: true }, { expectedActiveSessionId: null });
    const hooks = createGatewayHooks<never>();
    const service = createPlanService();
    await service.start!({ hooks, store } as unknown as GatewayHost);
    const ask = () => hooks.resetSuppressed.promise({ group: 'main', sessionId: session.id, reason: 'daily', at: 1 });

    expect(await ask()).toBeUndefined();
    await store.updateState(session.id, { plan: { version: 1, status: 'executing', objective: 'x', revision: 2, steps: [], updatedAt: 1 } });
    expect(await ask()).toBe(`a plan is executing in session ${session.id}`);
    await store.updateState(session.id, { plan: { version: 2 } });
    expect(await ask()).toMatch(/cannot be read \(the plan state of session .* is corrupt/);
    await store.updateState(session.id, { plan: null });
    expect(await ask()).toBeUndefined();
    await service.stop!();
  });
});
