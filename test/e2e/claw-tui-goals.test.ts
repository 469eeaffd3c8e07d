/**
 * `/goal` in `xdog claw tui` on a real terminal (tmux) against a real
 * gateway process: setting a goal from the TUI, its continuation running
 * while the TUI watches (the system input itself is left out of the
 * timeline, the model's reply is drawn), the goal.changed lines, and `/goal`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { clawSandbox, startGateway, until, type ClawSandbox, type GatewayProcess } from '../support/claw.js';
import { repoRoot } from '../support/cli.js';
import { hasTmux, tmuxSession } from '../support/tmux.js';

const name = `xdog-tui-goals-${process.pid}`;
const tty = tmuxSession(name);
const gateways: GatewayProcess[] = [];

afterEach(async () => {
  tty.kill();
  for (const gateway of gateways.splice(0)) await gateway.kill9();
});

async function openTui(sandbox: ClawSandbox): Promise<void> {
  const env = Object.entries({ ...sandbox.env, OCLIF_SKIP_NEW_VERSION_CHECK: '1' })
    .map(([key, value]) => `${key}=${value}`)
    .join(' ');
  tty.start(`cd ${sandbox.root} && env ${env} ${process.execPath} ${path.join(repoRoot, 'bin/run.js')} claw tui; echo EXIT=$?; sleep 60`, { width: 120, height: 40 });
  await tty.waitFor('online');
}

const shows = (text: string): Promise<void> => until(() => tty.screen().includes(text), () => `the TUI to show ${JSON.stringify(text)}:\n${tty.screen()}`, 60_000);

describe.skipIf(!hasTmux)('xdog claw tui: goals', { timeout: 180_000 }, () => {
  it('sets a goal with /goal set, follows its continuation without drawing the system input, and /goal shows it done', async () => {
    const sandbox = clawSandbox();
    fs.writeFileSync(sandbox.configFile, fs.readFileSync(sandbox.configFile, 'utf8').replace('enabled_tools: [bash, read]', 'enabled_tools: [bash, read, goal_update]'));
    sandbox.env.XDOG_FAUX_SCRIPT = path.join(repoRoot, 'test/fixtures/claw/faux-goal-model.mjs');
    gateways.push(await startGateway(sandbox));
    await openTui(sandbox);

    tty.keys('/goal set FINISH the tui goal', 'Enter');
    await shows('goal (active, 0 continuations): FINISH the tui goal');
    await shows('goal (done, 1 continuation): FINISH the tui goal — finished the work');
    await shows('DONE: the goal is met');
    expect(tty.screen()).not.toContain('[system: goal]');

    tty.keys('/goal', 'Enter');
    await until(() => tty.screen().split('goal (done, 1 continuation)').length > 2, () => `/goal to show the goal again:\n${tty.screen()}`);
  });
});
