import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createKernel } from '../../../core/index.js';
import { describeClawStore } from '../../../entities/index.js';
import sessionsPlugin, { ClawStoreToken } from '../../../plugins/sessions/index.js';
import { createTestDatabase, storeKinds } from '../../support/stores.js';
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

describe('sessions plugin on PostgreSQL', () => {
  it.runIf(storeKinds().includes('postgres'))('opens the database claw.store.url_env names and shows it without the password', async () => {
    const database = await createTestDatabase();
    const url = new URL(database.url);
    url.password = 'unused-pw'; // the test server trusts local connections; the password must still never show
    const variable = 'XDOG_TEST_SESSIONS_PG_URL';
    process.env[variable] = url.toString();
    try {
      const kernel = await createKernel({ plugins: [sessionsPlugin], config: { claw: { store: { type: 'postgres', url_env: variable } } } });
      await kernel.open();
      const clawStore = kernel.get(ClawStoreToken);
      const store = await clawStore.open();
      expect(clawStore.location).toBe(describeClawStore({ type: 'postgres', url: url.toString() }));
      expect(clawStore.location).not.toContain('unused-pw');
      await store.ensureGroup('main');
      expect((await store.listGroups()).map((g) => g.name)).toEqual(['main']);
      await kernel.close();
    } finally {
      delete process.env[variable];
      await database.drop();
    }
  });

  it('fails to open with CONFIG_INVALID when the variable is not set', async () => {
    const kernel = await createKernel({ plugins: [sessionsPlugin], config: { claw: { store: { type: 'postgres', url_env: 'XDOG_TEST_UNSET_PG_URL' } } } });
    await kernel.open();
    await expect(kernel.get(ClawStoreToken).open()).rejects.toMatchObject({ code: 'CONFIG_INVALID', message: expect.stringContaining('XDOG_TEST_UNSET_PG_URL') });
    await kernel.close();
  });
});
