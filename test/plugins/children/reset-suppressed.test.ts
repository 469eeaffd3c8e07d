/**
 * The children service holds automatic resets back while the store holds a
 * running child of the group: whichever process runs it (here a record
 * written by "another worker", with no child in this process's memory).
 */
import { describe, expect, it } from 'vitest';
import { createGatewayHooks } from '../../../core/index.js';
import type { GatewayHost } from '../../../plugins/claw-gateway/index.js';
import { ChildRecordStore, createChildrenService, resolveChildSpec } from '../../../plugins/children/index.js';
import { openTestStore } from '../sessions/helpers.js';

describe('children and automatic resets', () => {
  it('suppresses a reset while the store holds a running child of the group, and not once it ended', async () => {
    const { store, clock } = await openTestStore();
    await store.ensureGroup('main');
    await store.ensureGroup('other');
    const hooks = createGatewayHooks<never>();
    const service = createChildrenService();
    const host = { hooks, store, clock, groups: new Map(), kernel: { config: {} }, log: () => undefined };
    await service.start!(host as unknown as GatewayHost);
    const ask = (group: string) => hooks.resetSuppressed.promise({ group, sessionId: 's1', reason: 'idle', at: 1 });
    expect(await ask('main')).toBeUndefined();

    const records = new ChildRecordStore({ store, clock });
    await records.create({ id: 'c-elsewhere', group: 'main', parentSessionId: null, spec: resolveChildSpec({ action: 'spawn', task: 'hold' }, {}) });
    expect(await ask('main')).toMatch(/^1 child agent is running \(c-elsewhere\); changing the active session waits until it ends, since it belongs to it/);
    expect(await ask('other')).toBeUndefined();

    await records.finish('c-elsewhere', { status: 'completed', result: 'done', error: null, transcript: [] });
    expect(await ask('main')).toBeUndefined();
    await service.stop!();
  });

  it('fails the start on an invalid child_presets catalog', async () => {
    const { store, clock } = await openTestStore();
    const service = createChildrenService();
    const host = { hooks: createGatewayHooks<never>(), store, clock, groups: new Map(), kernel: { config: { child_presets: { scout: { budget: 3 } } } }, log: () => undefined };
    await expect(Promise.resolve(service.start!(host as unknown as GatewayHost))).rejects.toThrow(/child_presets\.scout: Unrecognized key: "budget"/);
  });
});
