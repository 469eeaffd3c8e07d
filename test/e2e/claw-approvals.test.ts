/**
 * Durable tool approvals against a real gateway on the faux model
 * (test/fixtures/claw/faux-model.mjs logs each request): asked from one
 * client, answered from another, after a kill -9, by two at once, and on expiry
 * (the testclock fixture's fake clock).
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { GatewayConnection } from '../../plugins/claw-gateway/client.js';
import { repoRoot, runCli } from '../support/cli.js';
import { collect, connect, startGateway, until, type ClawSandbox, type GatewayProcess } from '../support/claw.js';
import { SANDBOX_PG_ENV, clawSandboxOn, describeStores, openSqliteFile, type StoreKind } from '../support/stores.js';

let sandbox: ClawSandbox;
let gateway: GatewayProcess;
let asker: GatewayConnection;
let answerer: GatewayConnection;
let requested: Array<Record<string, any>>;

const approvalsConfig = '      approvals:\n        mode: mutating\n        expire_minutes: 5\n        rules:\n          - { allow: bash, command: "echo" }\n';

async function open(): Promise<void> {
  gateway = await startGateway(sandbox);
  asker = await connect(sandbox, 'asker');
  answerer = await connect(sandbox, 'answerer');
  requested = collect(answerer, 'approval.requested');
  await answerer.call('subscribe', {});
}

/** Sends `text` and waits for the approval it asks for (seen by the second client). */
async function ask(text: string): Promise<Record<string, any>> {
  const before = requested.length;
  await asker.call('prompt', { text, idempotencyKey: randomUUID() });
  await until(() => requested.length > before, `an approval for "${text}"`, 60_000);
  return requested.at(-1)!.approval;
}

const lastToolResult = (): string => {
  const request = sandbox.requests().at(-1);
  const message = request?.messages.at(-1);
  return message?.role === 'toolResult' ? JSON.stringify(message.content) : '';
};

/** Runs `statements` on the sandbox's store from outside the gateway (a second connection, as an operator would). */
async function onStore(kind: StoreKind, statements: string): Promise<unknown[]> {
  if (kind === 'sqlite') {
    const db = openSqliteFile(sandbox.storeFile);
    try {
      const [first, ...rest] = statements.split(';;');
      for (const statement of rest) db.exec(statement);
      return first!.trim() ? db.prepare(first!).all() : [];
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: sandbox.env[SANDBOX_PG_ENV] });
  await client.connect();
  try {
    const [first, ...rest] = statements.split(';;');
    for (const statement of rest) await client.query(statement);
    return first!.trim() ? (await client.query(first!)).rows : [];
  } finally {
    await client.end();
  }
}

const idle = () => until(async () => !((await asker.call('group.status', {})) as { busy: boolean }).busy, 'the group to be idle', 60_000);
const claw = (...args: string[]) => runCli(['claw', 'approvals', ...args], { env: sandbox.env, cwd: sandbox.root });

describeStores('claw approvals', (kind) => {
  beforeAll(async () => {
    sandbox = await clawSandboxOn(kind, approvalsConfig);
    sandbox.env.XDOG_TEST_CLOCK_START = '2026-12-01T03:00:00Z';
    const installed = runCli(['plugins', 'install', path.join(repoRoot, 'test/fixtures/claw/testclock-plugin')], { env: sandbox.env, cwd: sandbox.root });
    expect(installed.status, installed.stderr).toBe(0);
    fs.writeFileSync(path.join(sandbox.workspace, 'victim.txt'), 'precious');
    await open();
  }, 120_000);

  afterAll(async () => {
    await gateway?.kill9();
  });

  it('a bash rm is asked, denied from a second client, and the next model request carries the reason', { timeout: 120_000 }, async () => {
    const approval = await ask('run rm victim.txt');
    expect(approval).toMatchObject({ status: 'pending', toolName: 'bash', args: { command: 'rm victim.txt' } });
    expect(approval.reason).toContain('"rm victim.txt" is not covered by a rule');
    const denied = await answerer.callService('approvals.deny', { id: approval.id, reason: 'keep victim.txt, it is the only copy', by: 'bob' });
    expect(denied.approval.status).toBe('denied');
    await idle();
    expect(lastToolResult()).toContain('bob denied it: keep victim.txt, it is the only copy');
    expect(fs.readFileSync(path.join(sandbox.workspace, 'victim.txt'), 'utf8')).toBe('precious');
  });

  it('an edit runs the call with the new arguments and the model sees them', { timeout: 120_000 }, async () => {
    const approval = await ask('run rm victim.txt');
    const refused = await answerer.callService('approvals.edit', { id: approval.id, args: { command: 42 } }).catch((error: Error) => error);
    expect(String(refused)).toContain('the edited arguments do not fit tool "bash"');
    await answerer.callService('approvals.edit', { id: approval.id, args: { command: 'echo edited >> edited.txt' }, by: 'carol' });
    await idle();
    expect(lastToolResult()).toContain('a person edited the arguments before this call ran');
    expect(lastToolResult()).toContain('echo edited >> edited.txt');
    expect(fs.readFileSync(path.join(sandbox.workspace, 'edited.txt'), 'utf8')).toBe('edited\n');
    expect(fs.existsSync(path.join(sandbox.workspace, 'victim.txt'))).toBe(true);
  });

  it('two clients answering at once: one wins, the other is refused naming the winner', { timeout: 120_000 }, async () => {
    const approval = await ask('run rm victim.txt');
    const answers = await Promise.allSettled([
      asker.callService('approvals.deny', { id: approval.id, reason: 'no', by: 'alice' }),
      answerer.callService('approvals.deny', { id: approval.id, reason: 'also no', by: 'bob' }),
    ]);
    const won = answers.filter((answer) => answer.status === 'fulfilled');
    const lost = answers.filter((answer): answer is PromiseRejectedResult => answer.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    const winner = (won[0] as PromiseFulfilledResult<any>).value.approval.answeredBy;
    expect(String(lost[0]!.reason)).toContain(`approval ${approval.id} was already answered: denied by ${winner}`);
    // A late answer from the CLI is refused the same way, with a non-zero exit.
    const late = claw('approve', String(approval.id));
    expect(late.status).not.toBe(0);
    expect(late.stderr).toContain(`was already answered: denied by ${winner}`);
    await idle();
  });

  it('approve after kill -9 while pending: the call runs exactly once and the run finishes', { timeout: 120_000 }, async () => {
    const approval = await ask('run echo ran >> counter.txt && rm victim.txt');
    await gateway.kill9();
    await open();
    const listed = JSON.parse(claw('list', '--json').stdout);
    expect(listed.approvals.map((row: { id: number; status: string }) => [row.id, row.status])).toEqual([[approval.id, 'pending']]);
    expect(claw('show', String(approval.id)).stdout).toContain('"command": "echo ran >> counter.txt && rm victim.txt"');
    const requestsBefore = sandbox.requests().length;
    const approved = claw('approve', String(approval.id));
    expect(approved.status, approved.stderr).toBe(0);
    await until(() => !fs.existsSync(path.join(sandbox.workspace, 'victim.txt')), 'the approved call to run', 60_000);
    await idle();
    expect(fs.readFileSync(path.join(sandbox.workspace, 'counter.txt'), 'utf8')).toBe('ran\n');
    // The run went on from the stored transcript: one more model request, answering the tool result (the model was not asked for the call again).
    const after = sandbox.requests().slice(requestsBefore);
    expect(after).toHaveLength(1);
    expect(after[0]!.messages.at(-1)!.role).toBe('toolResult');
    // A later restart runs nothing again.
    await gateway.stop();
    await open();
    await idle();
    expect(fs.readFileSync(path.join(sandbox.workspace, 'counter.txt'), 'utf8')).toBe('ran\n');
  });

  it('always allow: approve --always stops asking for exactly that command, a refused one answers nothing, forget asks again', { timeout: 180_000 }, async () => {
    const first = await ask('run echo one && touch always-ok.txt');
    expect(first.reason).toContain('"touch always-ok.txt" is not covered by a rule');
    const approved = claw('approve', String(first.id), '--always');
    expect(approved.status, approved.stderr).toBe(0);
    expect(approved.stdout).toMatch(/always allowed from now on: rule \d+ +main +bash "touch always-ok.txt" \(exactly\)/);
    await idle();
    expect(fs.existsSync(path.join(sandbox.workspace, 'always-ok.txt'))).toBe(true);

    // The same command again runs without asking anyone.
    fs.rmSync(path.join(sandbox.workspace, 'always-ok.txt'));
    const asked = requested.length;
    await asker.call('prompt', { text: 'run touch always-ok.txt', idempotencyKey: randomUUID() });
    await until(() => fs.existsSync(path.join(sandbox.workspace, 'always-ok.txt')), 'the always-allowed command to run', 60_000);
    await idle();
    expect(requested.length).toBe(asked);

    // A longer command with the same start is still asked; one that cannot be read is refused and stays pending.
    const longer = await ask('run touch always-ok.txt victim.txt');
    await answerer.callService('approvals.deny', { id: longer.id, reason: 'not that one', by: 'bob' });
    await idle();
    const computed = await ask('run touch $(whoami).txt');
    const refused = claw('approve', String(computed.id), '--always');
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain(`approval ${computed.id} cannot be always allowed`);
    expect(refused.stderr).toContain('nothing was answered');
    expect(JSON.parse(claw('show', String(computed.id), '--json').stdout).approval.status).toBe('pending');
    await answerer.callService('approvals.deny', { id: computed.id, reason: 'no', by: 'bob' });
    await idle();

    // The rule is listed; forgotten, the command is asked again.
    const rules = JSON.parse(claw('rules', '--json').stdout).rules as Array<{ id: number; tool: string; argv: string[]; approvalId: number }>;
    expect(rules).toEqual([expect.objectContaining({ tool: 'bash', argv: ['touch', 'always-ok.txt'], approvalId: first.id })]);
    const forgot = claw('forget', String(rules[0]!.id));
    expect(forgot.status, forgot.stderr).toBe(0);
    expect(claw('forget', String(rules[0]!.id)).stderr).toContain(`there is no always-allow rule ${rules[0]!.id}`);
    const again = await ask('run touch always-ok.txt');
    await answerer.callService('approvals.deny', { id: again.id, reason: 'asked again, as it should be', by: 'bob' });
    await idle();
  });

  it('an approval nobody answers expires: denied with "no answer in N minutes"', { timeout: 120_000 }, async () => {
    fs.writeFileSync(path.join(sandbox.workspace, 'victim.txt'), 'precious again');
    const approval = await ask('run rm victim.txt');
    const resolved = collect(answerer, 'approval.resolved');
    await answerer.callService('testclock.set', { at: '2026-12-01T03:06:00Z' });
    await until(() => resolved.some((event) => event.approval.id === approval.id), 'the expiry', 60_000);
    await idle();
    expect(lastToolResult()).toContain('no answer in 5 minutes');
    expect(JSON.parse(claw('show', String(approval.id), '--json').stdout).approval).toMatchObject({ status: 'expired', answeredBy: 'gateway' });
    expect(fs.existsSync(path.join(sandbox.workspace, 'victim.txt'))).toBe(true);
  });

  // Last: it plants a trigger in the store (and removes it at the end).
  it('the pending row and its assistant message commit together: when the approval cannot be stored, the message is not either and nothing runs', { timeout: 120_000 }, async () => {
    fs.writeFileSync(path.join(sandbox.workspace, 'doomed.txt'), 'still here');
    const refuse =
      kind === 'sqlite'
        ? ";;CREATE TRIGGER refuse_approvals BEFORE INSERT ON claw_approvals BEGIN SELECT RAISE(ABORT, 'approvals refused by the test'); END"
        : ";;CREATE FUNCTION refuse_approvals() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'approvals refused by the test'; END $$;;CREATE TRIGGER refuse_approvals BEFORE INSERT ON claw_approvals FOR EACH ROW EXECUTE FUNCTION refuse_approvals()";
    await onStore(kind, refuse);
    const ends = collect(answerer, 'run.end');
    const asked = requested.length;
    const { inputId } = (await asker.call('prompt', { text: 'run rm doomed.txt', idempotencyKey: randomUUID() })) as { inputId: string };
    await until(() => ends.some((end) => end.inputId === inputId), 'the run to end', 60_000);
    const end = ends.find((candidate) => candidate.inputId === inputId)!;
    expect(end.status).not.toBe('completed');
    expect(end.errorMessage).toContain('approvals refused by the test');
    expect(requested.length).toBe(asked);
    // Neither the pending row nor the assistant message that asked for it is in the store; the file is untouched.
    const kept = await onStore(kind, "SELECT id FROM claw_entries WHERE kind = 'message' AND payload LIKE '%rm doomed.txt%' AND payload LIKE '%toolCall%'");
    expect(kept).toEqual([]);
    expect(await onStore(kind, "SELECT id FROM claw_approvals WHERE args LIKE '%doomed%'")).toEqual([]);
    expect(fs.readFileSync(path.join(sandbox.workspace, 'doomed.txt'), 'utf8')).toBe('still here');

    // With the store writable again, the group runs the next prompt.
    await onStore(kind, kind === 'sqlite' ? ';;DROP TRIGGER refuse_approvals' : ';;DROP TRIGGER refuse_approvals ON claw_approvals;;DROP FUNCTION refuse_approvals()');
    await idle();
    const next = await ask('run rm doomed.txt');
    await answerer.callService('approvals.deny', { id: next.id, reason: 'not today', by: 'bob' });
    await idle();
    expect(lastToolResult()).toContain('bob denied it: not today');
  });
});
