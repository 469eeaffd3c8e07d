import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createKernel } from '../../../core/index.js';
import sessionsPlugin, { ClawStoreToken } from '../../../plugins/sessions/index.js';
import { tempDir } from '../../support/temp.js';

describe('sessions plugin', () => {
  it('opens no database on kernel.open(), opens claw.store on first use, and closes it with the kernel', async () => {
    const file = path.join(tempDir(), 'store', 'claw.db');
    const kernel = await createKernel({ plugins: [sessionsPlugin], config: { claw: { store: { type: 'sqlite', path: file } } } });
    await kernel.open();
    expect(fs.existsSync(file)).toBe(false);
    const clawStore = kernel.get(ClawStoreToken);
    const store = await clawStore.open();
    expect(await clawStore.open()).toBe(store);
    expect(clawStore.location).toBe(file);
    await store.ensureGroup('main');
    expect((await store.listGroups()).map((g) => g.name)).toEqual(['main']);
    expect(fs.existsSync(file)).toBe(true);
    await kernel.close();
    await expect(store.listGroups()).rejects.toMatchObject({ code: 'CLOSED' });
  });
});
