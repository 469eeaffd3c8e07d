/** L41: an interactive extension command reads the group's session catalog and a session's tree, paged and revision-checked; nothing else may. */
import { afterEach, describe, expect, it } from 'vitest';
import { ContainerModule, createKernel, type Kernel } from '../../../core/index.js';
import { findExtension } from '../../../core/discovery.js';
import extensionsPlugin, { ExtensionHost, ExtensionHostToken, sessionCatalog } from '../../../plugins/extensions/index.js';
import { assistant, openTestStore, user } from '../sessions/helpers.js';
import { tempProject, writeExtension } from './support.js';

let kernel: Kernel | undefined;
afterEach(async () => {
  await kernel?.close();
  kernel = undefined;
});

async function boot(project: string, ids: string[]): Promise<ExtensionHost> {
  const host = new ExtensionHost({ ids, settings: {}, cwd: project, locate: (id) => findExtension(id, { cwd: project }), callbackTimeoutMs: 20_000 });
  const module = new ContainerModule(({ rebind }) => {
    rebind(ExtensionHostToken).toConstantValue(host);
  });
  kernel = await createKernel({ plugins: [extensionsPlugin], config: { extensions: ids }, cwd: project, overrides: [module] });
  await kernel.open();
  return host;
}

/** `/ext-browser-read OP JSON` answers what the call gave (or the error it threw); its completion tries a catalog read too. */
const BROWSER = `export default (api) => {
  api.command('read', {
    description: 'reads session catalogs',
    run: async (args) => {
      const space = args.indexOf(' ');
      const op = space < 0 ? args : args.slice(0, space);
      const input = space < 0 ? {} : JSON.parse(args.slice(space + 1));
      try {
        const result = op === 'list' ? await api.listSessions(input) : await api.getSessionTree(input.sessionId, input.options);
        return JSON.stringify(result);
      } catch (error) {
        return 'ERR ' + error.message;
      }
    },
    complete: async () => [JSON.stringify(await api.listSessions())],
  });
  api.on('agent_start', async () => api.status('hook', JSON.stringify(await api.listSessions())));
};`;

describe('extension session catalogs', () => {
  it('pages 61 sessions 50 at a time in creation order, refuses a changed membership as stale, and reads trees and branches', async () => {
    const { store } = await openTestStore();
    await store.ensureGroup('main');
    await store.ensureGroup('other');
    const ids: string[] = [];
    for (let i = 0; i < 61; i++) ids.push((await store.createSession('main', { model: 'faux/demo', name: i % 10 === 0 ? `project ${i}` : `chat ${i}` })).id);
    const foreign = await store.createSession('other', { model: 'faux/demo' });
    let active: string | null = ids[3]!;
    const [first] = await store.append(active, [{ kind: 'message', payload: { message: user('hello there') } }]);
    const [reply] = await store.append(active, [{ kind: 'message', payload: { message: assistant('hi back') } }]);
    await store.branch(active, first!.id);
    await store.append(active, [{ kind: 'message', payload: { message: assistant('another answer') } }]);

    const project = tempProject();
    writeExtension(project, 'browser', BROWSER);
    const host = await boot(project, ['browser']);
    const read = async (op: string, input: unknown = {}) => {
      const text = await host.runCommand('/ext-browser-read', `${op} ${JSON.stringify(input)}`);
      return text.startsWith('ERR ') ? text : JSON.parse(text);
    };

    // No catalog bound (outside the gateway): unavailable, and the extension stays active.
    expect(await read('list')).toBe('unavailable');
    host.sessions = sessionCatalog(store, 'main', () => active);

    const page = await read('list');
    expect(page).toMatchObject({ status: 'ok', scope: 'group', ownerSession: ids[3], offset: 0, total: 61, hasMore: true, nextOffset: 50 });
    expect(page.entries).toHaveLength(50);
    expect(page.entries.map((entry: { id: string }) => entry.id)).toEqual(ids.slice(0, 50));
    expect(page.entries[3]).toMatchObject({ kind: 'session', title: 'chat 3', active: true, detail: '2 messages' });
    const rest = await read('list', { offset: page.nextOffset, revision: page.revision });
    expect(rest).toMatchObject({ status: 'ok', offset: 50, total: 61, hasMore: false, nextOffset: null, revision: page.revision });
    expect(rest.entries.map((entry: { id: string }) => entry.id)).toEqual(ids.slice(50));

    const found = await read('list', { query: 'PROJECT' });
    expect(found.entries.map((entry: { title: string }) => entry.title)).toEqual(['project 0', 'project 10', 'project 20', 'project 30', 'project 40', 'project 50', 'project 60']);
    expect(await read('list', { query: 'x'.repeat(1001) })).toMatch(/^ERR .*a session query is at most 1000 bytes/);

    // A session more: the old revision is refused, not mixed with the new catalog.
    await store.createSession('main', { model: 'faux/demo' });
    const stale = await read('list', { offset: 50, revision: page.revision });
    expect(stale).toEqual({ status: 'stale', revision: expect.any(String), entries: [], hasMore: false, nextOffset: null });
    expect(stale.revision).not.toBe(page.revision);
    expect((await read('list', { offset: 50, revision: stale.revision })).entries).toHaveLength(12);

    // The active session's tree: both branches, the path marked, depths from the root.
    const tree = await read('tree');
    expect(tree).toMatchObject({ status: 'ok', scope: 'tree', sessionId: ids[3], total: 3, hasMore: false });
    expect(tree.entries.map((entry: { title: string; depth: number; active: boolean }) => [entry.title, entry.depth, entry.active])).toEqual([
      ['hello there', 0, true],
      ['hi back', 1, false],
      ['another answer', 1, true],
    ]);
    const branch = await read('tree', { options: { branchId: String(reply!.id) } });
    expect(branch).toMatchObject({ branchId: String(reply!.id), total: 2 });
    expect(branch.entries.map((entry: { title: string }) => entry.title)).toEqual(['hello there', 'hi back']);
    // Another group's session is not this group's to read.
    expect(await read('tree', { sessionId: foreign.id })).toBe('unavailable');
    active = null;
    expect(await read('tree')).toBe('unavailable');

    // Completion callbacks and hooks have no catalog authority.
    expect(await host.completeCommand('/ext-browser-read', '')).toEqual(['"unavailable"']);
    const agent = kernel!.createAgent((await import('../../../plugins/faux/index.js')).createFauxStreamFn({ responses: [{ text: 'ok' }] }), { model: 'faux/test' });
    const stream = agent.prompt('go');
    for await (const _ of stream) void _;
    await expect.poll(() => host.list()[0]!.status.hook, { timeout: 30_000 }).toBe('"unavailable"');
    expect(host.list()[0]).toMatchObject({ state: 'active' });
    await agent.close();
  }, 120_000);
});
