/**
 * A supervised child compacts through a real gateway and the built CLI: its
 * model (declared under `models:` with a small context window and output
 * ceiling, as claw-compaction.test.ts gives the group a small window) cannot
 * hold the conversation it inherits, so it compacts before its first call;
 * `xdog claw agents archives` lists the archive, and `--generation 1` gives
 * back the complete history from before the summary, while the child went
 * on from the summary.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { clawCommands } from '../support/cli.js';
import { startGateway, until, type ClawSandbox, type GatewayProcess } from '../support/claw.js';
import { clawSandboxOn, describeStores } from '../support/stores.js';

let sandbox: ClawSandbox;
let gateway: GatewayProcess;

const { claw, json } = clawCommands(() => sandbox);
const textOf = (message: { content: unknown }): string =>
  typeof message.content === 'string' ? message.content : (message.content as Array<{ text?: string }>).map((part) => part.text ?? '').join('');

/** About 200 estimated tokens: with what it inherits, more than the child model's 200-token window less its 50-token output ceiling. */
const TASK = `archive me ${'lorem ipsum '.repeat(65)}`.trim();

describeStores('claw children compaction archives', (kind) => {
  beforeAll(async () => {
    // The group's model keeps the faux 200k window (the group never compacts); the child's model is small.
    sandbox = await clawSandboxOn(kind, '      compaction:\n        keep_recent_tokens: 5\n');
    fs.appendFileSync(sandbox.configFile, 'models:\n  - { id: faux/small, context_window: 200, max_output: 50 }\n');
    gateway = await startGateway(sandbox, 120_000);
  }, 180_000);

  afterAll(async () => {
    await gateway?.stop();
  });

  it('archives the complete history before the child compacts, and reads it back with xdog claw agents archives', { timeout: 300_000 }, async () => {
    for (const text of ['one', 'two', 'three']) expect(claw('send', text).status).toBe(0);
    const start = claw('agents', 'start', '--model', 'faux/small', '--json', '--', TASK);
    expect(start.status, start.stderr).toBe(0);
    const started = JSON.parse(start.stdout);
    const [ended] = json('agents', 'wait', started.id);
    expect(ended).toMatchObject({ id: started.id, status: 'completed', result: `echo: ${TASK}` });

    // The listing: one archive, the inherited six messages and the task.
    const listing = json('agents', 'archives', started.id);
    expect(listing).toEqual({ id: started.id, archives: [{ generation: 1, messageCount: 7, bytes: expect.any(Number), createdAt: expect.any(Number) }] });
    const table = claw('agents', 'archives', started.id);
    expect(table.status, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/GENERATION\s+MESSAGES\s+BYTES\s+ARCHIVED/);
    expect(table.stdout).toMatch(new RegExp(`#1\\s+7\\s+${listing.archives[0].bytes}\\s`));

    // The archive: the complete history before the summary.
    const archive = json('agents', 'archives', started.id, '--generation', '1');
    expect(archive.messages.map((message: any) => `${message.role}:${textOf(message)}`)).toEqual(['user:one', 'assistant:echo: one', 'user:two', 'assistant:echo: two', 'user:three', 'assistant:echo: three', `user:${TASK}`]);
    expect(archive.bytes).toBe(Buffer.byteLength(JSON.stringify(archive.messages)));
    const shown = claw('agents', 'archives', started.id, '--generation', '1');
    expect(shown.stdout).toContain(`child ${started.id}: archive #1, 7 messages before that compaction`);
    expect(shown.stdout).toContain('assistant: echo: two');

    // The child's model summarized the inherited part, then answered from the summary.
    const childRequests = sandbox.requests().filter((request) => request.messages.some((message) => textOf(message).includes('archive me')));
    const summaryRequest = sandbox.requests().find((request) => textOf(request.messages.at(-1)!).startsWith('<conversation>') && textOf(request.messages.at(-1)!).includes('[user]\nthree'));
    expect(summaryRequest).toBeDefined();
    expect(childRequests.at(-1)!.messages.map((message) => `${message.role}:${textOf(message)}`)).toEqual([
      'user:Summary of the earlier part of this conversation (compacted):\n\nSUMMARY of 3 user messages: one | two | three',
      `user:${TASK}`,
    ]);
    await until(() => gateway.log().includes(`child ${started.id}: compacted (#1`), 'the child compaction in the gateway log');

    // A generation it does not have is refused, naming those it has.
    const missing = claw('agents', 'archives', started.id, '--generation', '2');
    expect(missing.status).not.toBe(0);
    expect(missing.stderr).toContain(`child ${started.id} has no compaction archive #2`);
    expect(missing.stderr).toContain('its archives: #1');
  });
});
