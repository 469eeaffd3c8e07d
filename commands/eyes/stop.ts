import fs from 'node:fs';
import { Flags } from '@oclif/core';
import { ErrorCodes, XdogError } from '../../core/errors.js';
import { connectEyes } from '../../plugins/eyes/index.js';
import { XdogCommand } from '../base-command.js';

export default class EyesStop extends XdogCommand {
  static override summary = 'Stop the Eyes daemon and its Chromium (watches stay stored and resume at its next start)';
  static override description = 'Waits (bounded) until the daemon has exited. Exit 1 when none runs.';
  static override enableJsonFlag = true;
  static override flags = { timeout: Flags.integer({ description: 'seconds to wait for the daemon to exit', default: 30, min: 1 }) };
  static override examples = ['<%= config.bin %> eyes stop'];

  async run(): Promise<{ stopped: number }> {
    const { flags } = await this.parse(EyesStop);
    const client = await connectEyes({ client: 'xdog eyes stop' });
    const { pid } = (await client.call('stop', {})) as { pid: number };
    await client.close();
    const deadline = Date.now() + flags.timeout * 1000;
    while (alive(pid)) {
      if (Date.now() >= deadline) throw new XdogError(ErrorCodes.UNAVAILABLE, `the Eyes daemon (pid ${pid}) did not exit within ${flags.timeout} s`, { hint: `read its log (xdog eyes logs), or kill ${pid}` });
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    if (!this.jsonEnabled()) this.log(`Eyes daemon stopped (pid ${pid})`);
    return { stopped: pid };
  }
}

/** True while `pid` runs; an exited process its parent has not reaped yet (a zombie) has ended. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}
