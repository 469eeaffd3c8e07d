/**
 * A claw group follows an Eyes watch: each observation of a watched file
 * becomes exactly one system input to the group's active session, delivered
 * by a real gateway process from the real daemon (a file watch needs no
 * Chromium).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { ensureEyes, type WatchRecord } from '../../plugins/eyes/index.js';
import { clawSandbox, startGateway, until } from '../support/claw.js';
import { runCli } from '../support/cli.js';
import { useEnv } from '../support/env.js';

const box = clawSandbox();
fs.mkdirSync(box.env.XDG_RUNTIME_DIR!, { recursive: true, mode: 0o700 });
// This process ensures the daemon, so it must see the sandbox's directories.
useEnv(box.env);

afterAll(() => {
  runCli(['eyes', 'stop'], { env: box.env });
});

function systemInputs(marker: string): number {
  // The last request holds the whole conversation: count the user messages carrying the marker.
  const last = box.requests().at(-1);
  return (last?.messages ?? []).filter((message) => message.role === 'user' && JSON.stringify(message.content).includes(marker)).length;
}

it('`xdog claw eyes follow` delivers each observation once to the group, through a gateway restart', async () => {
  const notes = path.join(box.workspace, 'notes.txt');
  fs.writeFileSync(notes, 'nothing yet\n');
  const client = await ensureEyes();
  const watch = (await client.call('watch', { kind: 'file', subject: 'notes.txt', interval_seconds: 10, workspace: box.workspace, label: 'the notes' })) as WatchRecord;
  await until(async () => ((await client.call('list', {})) as WatchRecord[]).some((entry) => entry.id === watch.id && entry.last_check_at !== null), 'the baseline', 60_000);

  const followed = runCli(['claw', 'eyes', 'follow', watch.id, '--group', 'main'], { env: box.env });
  expect(followed.stderr).toBe('');
  expect(followed.stdout).toBe(`group main follows ${watch.id} (file notes.txt)\n`);

  let gateway = await startGateway(box);
  fs.writeFileSync(notes, 'nothing yet\nFIRST-CHANGE\n');
  await until(() => systemInputs('FIRST-CHANGE') > 0, 'the first observation in the group', 90_000);

  // A gateway restart delivers nothing again; the next change arrives once, after the first.
  await gateway.stop();
  gateway = await startGateway(box);
  fs.writeFileSync(notes, 'SECOND-CHANGE\n');
  await until(() => systemInputs('SECOND-CHANGE') > 0, 'the second observation in the group', 90_000);
  expect(systemInputs('+FIRST-CHANGE')).toBe(1);
  expect(systemInputs('+SECOND-CHANGE')).toBe(1);
  expect(systemInputs('[eyes observation')).toBe(2);
  await gateway.stop();
  await client.close();
}, 240_000);
