import { describe, expect, it } from 'vitest';
import { ClockToken, ContainerModule, createKernel, definePlugin, ErrorCodes, token, XdogError, type Clock } from '../../core/index.js';

function recordingPlugin(name: string, log: string[], options: { failOpen?: boolean; failClose?: boolean } = {}) {
  return definePlugin({
    name,
    apply: () => void log.push(`apply ${name}`),
    open: async () => {
      log.push(`open ${name}`);
      if (options.failOpen) throw new Error(`${name} cannot start`);
    },
    close: async () => {
      log.push(`close ${name}`);
      if (options.failClose) throw new Error(`${name} cannot stop`);
    },
  });
}

describe('kernel lifecycle', () => {
  it('applies at load, opens in order only when asked, and closes in reverse order', async () => {
    const log: string[] = [];
    const kernel = await createKernel({ plugins: ['a', 'b', 'c'].map((name) => recordingPlugin(name, log)) });
    expect(log).toEqual(['apply a', 'apply b', 'apply c']);
    await kernel.open();
    await kernel.close();
    expect(log.slice(3)).toEqual(['open a', 'open b', 'open c', 'close c', 'close b', 'close a']);
    expect(kernel.plugins().map((entry) => entry.state)).toEqual(['closed', 'closed', 'closed']);
  });

  it('closes the plugins already opened, in reverse order, when one fails to open', async () => {
    const log: string[] = [];
    const kernel = await createKernel({
      plugins: [recordingPlugin('a', log), recordingPlugin('b', log), recordingPlugin('c', log, { failOpen: true }), recordingPlugin('d', log)],
    });
    const failure = await kernel.open().catch((error: unknown) => error);
    expect(XdogError.is(failure, ErrorCodes.PLUGIN_OPEN_FAILED)).toBe(true);
    expect((failure as Error).message).toBe('plugin "c" failed to open: c cannot start');
    expect(log.filter((line) => !line.startsWith('apply'))).toEqual(['open a', 'open b', 'open c', 'close b', 'close a']);
    expect(kernel.plugins().map((entry) => entry.state)).toEqual(['closed', 'closed', 'failed', 'loaded']);
  });

  it('runs every close even when one fails, then reports the failure', async () => {
    const log: string[] = [];
    const kernel = await createKernel({ plugins: [recordingPlugin('a', log), recordingPlugin('b', log, { failClose: true })] });
    await kernel.open();
    await expect(kernel.close()).rejects.toThrow('b: b cannot stop');
    expect(log.slice(-2)).toEqual(['close b', 'close a']);
  });

  it('close() during open() waits for the plugin being opened, closes it, and opens no further plugin', async () => {
    const log: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow = definePlugin({
      name: 'slow',
      open: async () => {
        log.push('open slow');
        await gate;
      },
      close: async () => void log.push('close slow'),
    });
    const kernel = await createKernel({ plugins: [recordingPlugin('a', log), slow, recordingPlugin('b', log)] });
    const opening = kernel.open().catch((error: unknown) => error);
    while (!log.includes('open slow')) await new Promise((resolve) => setImmediate(resolve));
    const closing = kernel.close();
    release();
    await closing;
    const failure = await opening;
    expect(XdogError.is(failure, ErrorCodes.CLOSED)).toBe(true);
    expect(log.filter((line) => !line.startsWith('apply'))).toEqual(['open a', 'open slow', 'close slow', 'close a']);
    expect(kernel.plugins().map((entry) => entry.state)).toEqual(['closed', 'closed', 'loaded']);
  });

  it('lets a host ContainerModule rebind a token; the host module wins over plugins', async () => {
    const fixed: Clock = { now: () => 42 };
    const Answer = token<string>('test:Answer');
    const plugin = definePlugin({ name: 'answers', module: new ContainerModule(({ bind }) => void bind(Answer).toConstantValue('plugin')) });
    const kernel = await createKernel({
      plugins: [plugin],
      overrides: [
        new ContainerModule(({ rebind }) => {
          rebind(ClockToken).toConstantValue(fixed);
          rebind(Answer).toConstantValue('host');
        }),
      ],
    });
    expect(kernel.get(ClockToken).now()).toBe(42);
    expect(kernel.get(Answer)).toBe('host');
  });

  it('builds a separate container per kernel (no process-wide singletons)', async () => {
    const Counter = token<{ n: number }>('test:Counter');
    const plugin = definePlugin({ name: 'counter', module: new ContainerModule(({ bind }) => void bind(Counter).toDynamicValue(() => ({ n: 0 })).inSingletonScope()) });
    const one = await createKernel({ plugins: [plugin] });
    const two = await createKernel({ plugins: [plugin] });
    one.get(Counter).n = 5;
    expect(two.get(Counter).n).toBe(0);
  });

  it('refuses the same plugin twice and an invalid plugin name', async () => {
    const plugin = definePlugin({ name: 'twice' });
    await expect(createKernel({ plugins: [plugin, plugin] })).rejects.toThrow('plugin "twice" is selected twice');
    expect(() => definePlugin({ name: 'Bad Name!' })).toThrow(/invalid plugin name/);
  });

  it('opens only once', async () => {
    const kernel = await createKernel({});
    await kernel.open();
    await expect(kernel.open()).rejects.toThrow(/open\(\) runs once/);
  });
});
