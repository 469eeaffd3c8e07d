/**
 * Rich command results, artifacts, public command names and argument
 * context, with real extension workers: what the host accepts and refuses
 * at its boundary, the artifact codec's round trip and refusals, and which
 * token a completion replaces.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findExtension } from '../../../core/discovery.js';
import { ErrorCodes, XdogError } from '../../../core/errors.js';
import { ARTIFACT_FORMAT, ExtensionHost, artifactBytes, artifactFromBytes, completeExtensionSlash, isCommandResult, localControl, publicCommands, readArtifact, runExtensionSlash, writeArtifact, type ExtensionCommandResult, type ResultShelf } from '../../../plugins/extensions/index.js';
import { tempProject, writeExtension } from './support.js';

/** A 1×1 PNG. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46]).toString('base64');

const REPORTER = `
const PNG = '${PNG}';
export default (api) => {
  api.command('report', {
    publicName: 'show-state',
    run: () => api.result({ text: 'Command report: /quit', image: { data: PNG, mimeType: 'image/png' }, structured: [false, 0, null], details: { enabled: false } }),
  });
  api.command('plain', { run: (args) => 'plain ' + args });
  api.command('empty', { run: () => { try { return api.result({}); } catch (e) { return e.message; } } });
  api.command('unknown-part', { run: () => { try { return api.result({ text: 'x', html: '<b>' }); } catch (e) { return e.message; } } });
  api.command('liar', { run: () => api.result({ image: { data: '${JPEG}', mimeType: 'image/png' } }) });
};`;

let hosts: ExtensionHost[] = [];
afterEach(async () => {
  await Promise.all(hosts.map((host) => host.close()));
  hosts = [];
});

function hostFor(project: string, ids: string[], notices: string[] = [], reserved?: Record<string, string>): ExtensionHost {
  const host = new ExtensionHost({ ids, settings: {}, cwd: project, locate: (id) => findExtension(id, { cwd: project }), callbackTimeoutMs: 5000, onNotice: (message) => notices.push(message), ...(reserved && { reservedCommands: reserved }) });
  hosts.push(host);
  return host;
}

async function refusal(promise: Promise<unknown> | (() => unknown)): Promise<XdogError> {
  try {
    await (typeof promise === 'function' ? promise() : promise);
  } catch (error) {
    if (XdogError.is(error)) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('rich command results', () => {
  it('come back validated, with the command identity, exact parts and a summary without image bytes', async () => {
    const project = tempProject();
    writeExtension(project, 'reporter', REPORTER);
    const host = hostFor(project, ['reporter']);
    const result = (await host.runCommandResult('/ext-reporter-report', '')) as ExtensionCommandResult;
    expect(isCommandResult(result)).toBe(true);
    expect(result).toMatchObject({ extension: 'reporter', command: 'report', publicName: 'show-state' });
    expect(result.content).toEqual({ text: 'Command report: /quit', image: { data: PNG, mimeType: 'image/png' }, structured: [false, 0, null], details: { enabled: false } });
    expect(result.summary).toMatch(/^Command report: \/quit\n\[image image\/png, \d+ bytes, sha256 [0-9a-f]{16}\]\n\[structured JSON, 14 bytes\]\n\[details JSON, 17 bytes\]$/);
    expect(result.summary).not.toContain(PNG.slice(0, 20));
    // The legacy entry point gives the summary; a string command stays a string.
    expect(await host.runCommand('/ext-reporter-report', '')).toBe(result.summary);
    expect(await host.runCommandResult('/ext-reporter-plain', 'x')).toBe('plain x');

    // A front end shows it (text, image line, pretty JSON) and keeps it; /quit in it is data, never run.
    const shelf: ResultShelf = {};
    const shown = await runExtensionSlash(localControl(host), '/show-state', shelf);
    expect(shown.result).toEqual(result);
    expect(shelf.last).toEqual(result);
    expect(shown.text).toContain('/show-state from extension reporter (command report):\nCommand report: /quit\n[image image/png');
    expect(shown.text).toContain('structured:\n[\n  false,\n  0,\n  null\n]\ndetails:\n{\n  "enabled": false\n}');
  });

  it('refuses bad content in the author code, and quarantines a worker whose image bytes are not its MIME type', async () => {
    const project = tempProject();
    writeExtension(project, 'reporter', REPORTER);
    const notices: string[] = [];
    const host = hostFor(project, ['reporter'], notices);
    expect(await host.runCommand('ext-reporter-empty', '')).toBe('xdog extension API: api.result needs at least one of text, image, structured or details');
    expect(await host.runCommand('ext-reporter-unknown-part', '')).toMatch(/api.result: unknown part "html"/);
    const error = await refusal(host.runCommand('ext-reporter-liar', ''));
    expect(error.code).toBe(ErrorCodes.UNAVAILABLE);
    expect(host.list()[0]).toMatchObject({ state: 'quarantined', reason: expect.stringContaining('image.mimeType: it says image/png, but its bytes are image/jpeg') });
  });
});

describe('command artifacts', () => {
  async function reportOf(): Promise<ExtensionCommandResult> {
    const project = tempProject();
    writeExtension(project, 'reporter', REPORTER);
    return (await hostFor(project, ['reporter']).runCommandResult('ext-reporter-report', '')) as ExtensionCommandResult;
  }

  it('round-trip exactly through a private, never-overwritten file, and refuse tampering, other versions and non-regular files', async () => {
    const result = await reportOf();
    const dir = tempProject();
    const file = path.join(dir, 'report.json');
    expect(writeArtifact(file, result)).toBe(file);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect((await refusal(() => writeArtifact(file, result))).code).toBe(ErrorCodes.CONFLICT);
    const back = await readArtifact(file);
    expect(back).toEqual(result);
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toMatchObject({ format: ARTIFACT_FORMAT, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });

    const envelope = JSON.parse(artifactBytes(result).toString());
    const bytesOf = (value: unknown) => Buffer.from(JSON.stringify(value));
    expect(() => artifactFromBytes(bytesOf({ ...envelope, content: { ...envelope.content, structured: [false, 0] } }))).toThrow(/SHA-256 does not match/);
    expect(() => artifactFromBytes(bytesOf({ ...envelope, format: 'xdog.extension-command/v2' }))).toThrow(/its format is "xdog.extension-command\/v2", not xdog.extension-command\/v1/);
    expect(() => artifactFromBytes(bytesOf({ ...envelope, extra: 1 }))).toThrow(/refused/);
    expect(() => artifactFromBytes(Buffer.from('not json'))).toThrow(/not JSON/);
    // A consistent checksum over bad content is still refused: the content is validated, not trusted.
    const lying = { ...envelope, content: { image: { data: JPEG, mimeType: 'image/png' } } };
    const canonicalJson = (value: unknown): string =>
      Array.isArray(value) ? `[${value.map(canonicalJson).join(',')}]` : value && typeof value === 'object' ? `{${Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`).join(',')}}` : JSON.stringify(value);
    const { createHash } = await import('node:crypto');
    lying.sha256 = createHash('sha256').update(canonicalJson({ identity: lying.identity, content: lying.content, metadata: lying.metadata })).digest('hex');
    expect(() => artifactFromBytes(bytesOf(lying))).toThrow(/its bytes are image\/jpeg/);

    const fifo = path.join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    expect((await refusal(readArtifact(fifo))).message).toMatch(/FIFO/);
    const big = path.join(dir, 'big.json');
    fs.writeFileSync(big, Buffer.alloc(4 * 1024 * 1024 + 1, 0x20));
    expect((await refusal(readArtifact(big))).message).toMatch(/over the limit of 4194304 bytes/);
  });

  it('/artifact save writes the latest result and /artifact PATH shows it read-only', async () => {
    const project = tempProject();
    writeExtension(project, 'reporter', REPORTER);
    const control = localControl(hostFor(project, ['reporter']));
    const shelf: ResultShelf = {};
    const file = path.join(tempProject(), 'saved.json');
    expect((await refusal(runExtensionSlash(control, `/artifact save ${file}`, shelf))).message).toMatch(/no rich command result to save yet/);
    const shown = await runExtensionSlash(control, '/ext-reporter-report', shelf);
    expect((await runExtensionSlash(control, `/artifact save ${file}`, shelf)).text).toMatch(/^saved the result of \/show-state \(extension reporter\) to .*saved\.json \(0600/);
    const reader: ResultShelf = {};
    const read = await runExtensionSlash(control, `/artifact ${file}`, reader);
    expect(read.result).toEqual(shown.result);
    expect(read.text).toContain(`artifact ${file} from extension reporter (command report):\nCommand report: /quit`);
    expect(reader.last).toEqual(shown.result);
  });
});

describe('public command names', () => {
  it('run the command by /NAME with its identity kept; a taken or reserved name is refused naming both, never shadowed', async () => {
    const project = tempProject();
    writeExtension(project, 'alpha', `export default (api) => {
      api.command('state', { publicName: 'show-state', run: () => 'alpha state' });
      api.command('ext', { publicName: 'extensions', run: () => 'not the builtin' });
      api.command('deploy', { publicName: 'deploy', run: () => 'alpha deploy' });
      const problems = [];
      try { api.command('other', { publicName: 'show-state', run: () => '' }); } catch (e) { problems.push(e.message); }
      try { api.command('bad', { publicName: 'Ext-x', run: () => '' }); } catch (e) { problems.push(e.message); }
      api.status('problems', problems.join(' | '));
    };`);
    writeExtension(project, 'beta', `export default (api) => { api.command('state', { publicName: 'show-state', run: () => 'beta state' }); };`);
    const notices: string[] = [];
    const host = hostFor(project, ['alpha', 'beta'], notices, { skillful: 'the skill skillful' });
    await host.activateAll();
    const [alpha, beta] = host.list();
    expect(alpha!.status.problems).toMatch(/command "other": the public name \/show-state is already command "state"'s; public names are not shadowed \| .*command "bad": publicName "Ext-x": use 1-32 lower-case letters/);
    expect(alpha!.publicNames).toEqual({ 'show-state': 'ext-alpha-state', deploy: 'ext-alpha-deploy' });
    expect(alpha!.refusedNames).toEqual(['/extensions of ext-alpha-ext is refused: /extensions is the builtin /extensions']);
    expect(beta!.publicNames).toEqual({});
    expect(beta!.refusedNames).toEqual(['/show-state of ext-beta-state is refused: /show-state is already ext-alpha-state (extension "alpha")']);
    expect(notices).toContain('extension "beta": /show-state of ext-beta-state is refused: /show-state is already ext-alpha-state (extension "alpha")');
    expect(await host.runCommand('/show-state', '')).toBe('alpha state');
    expect(await host.runCommand('/ext-beta-state', '')).toBe('beta state');
    expect(await host.runCommand('/ext-alpha-ext', '')).toBe('not the builtin');
    expect((await refusal(host.runCommand('/extensions', ''))).code).toBe(ErrorCodes.NOT_FOUND);
    expect(host.commandCatalog()).toContainEqual({ command: '/ext-alpha-state', extension: 'alpha', description: '', completes: false, publicName: 'show-state' });

    // A front end refuses its own builtins to public names (here: the TUI's /deploy, say).
    const { names, refused } = publicCommands(host.list(), new Set(['deploy']));
    expect([...names]).toEqual([['show-state', 'ext-alpha-state']]);
    expect(refused).toEqual(["/deploy of ext-alpha-deploy is refused: /deploy is this front end's builtin command (run it as /ext-alpha-deploy)"]);
  });
});

describe('argument context', () => {
  const COMPLETER = `export default (api) => {
    let calls = 0;
    api.command('pick', {
      publicName: 'pick',
      run: () => 'ran',
      complete: (prefix, context) => {
        calls++;
        api.status('calls', String(calls));
        const seen = JSON.stringify({ prefix, context: context ?? null });
        if (context) { context.start = 0; context.end = 999; context.arguments = 'changed'; }
        return [seen.length < 900 ? 'v:' + prefix : 'long', 'release'];
      },
    });
    api.command('echo-context', { complete: (prefix, context) => [JSON.stringify({ prefix, context: context ?? null })], run: () => '' });
  };`;

  it('gives the callback the whole argument in code points only when the caller has the draft; the token at the cursor is replaced', async () => {
    const project = tempProject();
    writeExtension(project, 'picker', COMPLETER);
    const host = hostFor(project, ['picker']);
    const control = localControl(host);
    // Prefix-only (a readline chat): context undefined, the last token is the prefix.
    expect(await host.completeCommand('/ext-picker-echo-context', 'wo')).toEqual([JSON.stringify({ prefix: 'wo', context: null })]);
    const line = '/ext-picker-echo-context 😀 alpha be|ta gamma'.replace('|', '');
    const cursor = line.indexOf('beta') + 2;
    const [full] = await completeExtensionSlash(control, line, { cursor, full: true });
    expect(JSON.parse(full!.label)).toEqual({ prefix: 'be', context: { arguments: '😀 alpha beta gamma', cursor: 10, start: 8, end: 12 } });
    // Prefix-only completion of the same line up to the cursor: no context.
    const [partial] = await completeExtensionSlash(control, line.slice(0, cursor));
    expect(JSON.parse(partial!.label)).toEqual({ prefix: 'be', context: null });

    // The replacement is the cursor-local token (its right suffix too), whatever the callback did to its copy.
    const picked = await completeExtensionSlash(control, '/pick alpha be|ta gamma'.replace('|', ''), { cursor: 14, full: true, publicNames: new Set(['pick']) });
    expect(picked.map((item) => [item.line, item.cursor])).toEqual([
      ['/pick alpha v:be gamma', 16],
      ['/pick alpha release gamma', 19],
    ]);
  });

  it('refuses a context that disagrees with its prefix before the callback runs', async () => {
    const project = tempProject();
    writeExtension(project, 'picker', COMPLETER);
    const host = hostFor(project, ['picker']);
    await host.completeCommand('/pick', 'a', { arguments: 'ab', cursor: 1, start: 0, end: 2 });
    for (const context of [
      { arguments: 'ab', cursor: 2, start: 0, end: 2 },
      { arguments: 'ab', cursor: 1, start: 0, end: 3 },
      { arguments: 'ab', cursor: 1, start: 2, end: 2 },
    ]) {
      const error = await refusal(host.completeCommand('/pick', 'a', context));
      expect(error.code).toBe(ErrorCodes.INVALID_ARGUMENT);
      expect(error.message).toMatch(/the argument context of a completion is refused/);
    }
    expect(host.list()[0]!.status.calls).toBe('1');
  });
});
