import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ClawDataSourceToken, createKernel } from '../../../core/index.js';
import sessionsPlugin, { SessionStoreToken } from '../../../plugins/sessions/index.js';
import { tempDir } from '../../support/temp.js';

describe('sessions plugin', () => {
  it('is inert until open, then serves the store from claw.store, and closes it with the kernel', async () => {
    const file = path.join(tempDir(), 'store', 'claw.db');
    const kernel = await createKernel({ plugins: [sessionsPlugin], config: { claw: { store: { type: 'sqlite', path: file } } } });
    expect(fs.existsSync(file)).toBe(false);
    expect(() => kernel.get(SessionStoreToken)).toThrow(/not open/);
    await kernel.open();
    const store = kernel.get(SessionStoreToken);
    await store.ensureGroup('main');
    expect((await store.listGroups()).map((g) => g.name)).toEqual(['main']);
    expect(fs.existsSync(file)).toBe(true);
    const dataSource = kernel.get(ClawDataSourceToken);
    await kernel.close();
    expect(dataSource.isInitialized).toBe(false);
  });
});
