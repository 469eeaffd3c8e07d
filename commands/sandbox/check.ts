import { probeSandbox, type SandboxProbe, DENIED_SYSCALLS, INSTALL_HINT } from '../../plugins/sandbox/index.js';
import { LIMITS } from '../../core/limits.js';
import { ErrorCodes, XdogError } from '../../core/errors.js';
import { XdogCommand } from '../base-command.js';

export default class SandboxCheck extends XdogCommand {
  static override summary = 'Report what OS sandbox this machine can enforce (bubblewrap, namespaces, seccomp, pids limit)';
  static override description = `Runs a trial bubblewrap start with xdog's seccomp filter and lists each layer (docs/sandbox.md).
Exit 0 when read-only and workspace-write can be enforced here; exit 1 naming what is missing and how to install it (a sandboxed tool call or server start is refused the same way).`;
  static override enableJsonFlag = true;
  static override examples = ['<%= config.bin %> sandbox check', '<%= config.bin %> sandbox check --json | jq .missing'];

  async run(): Promise<SandboxProbe> {
    await this.parse(SandboxCheck);
    const probe = await probeSandbox();
    if (!this.jsonEnabled()) {
      const yes = (value: unknown) => (value ? 'yes' : 'no');
      this.log(
        [
          `bubblewrap: ${probe.bwrap ?? `not on PATH (${INSTALL_HINT})`}`,
          `architecture: ${probe.arch ?? `${process.arch} (no seccomp table)`}`,
          `namespaces (user, mount, pid, net, ipc, uts): ${yes(probe.namespaces)}`,
          `seccomp filter (${DENIED_SYSCALLS.length} syscalls denied, namespace clone flags, AF_UNIX sockets): ${yes(probe.seccomp)}`,
          `no-new-privileges and all capabilities dropped: ${yes(probe.namespaces)}`,
          `pids limit (${LIMITS.sandboxPids}): ${probe.pids === 'cgroup' ? 'pids cgroup' : probe.pids === 'rlimit' ? 'RLIMIT_NPROC in the sandbox user namespace' : 'not available'}`,
          'network: off = new network namespace; allow = host-side proxy on a Unix socket',
          `landlock: ${probe.landlock}`,
          probe.missing.length === 0 ? 'enforces: read-only, workspace-write' : `cannot enforce read-only or workspace-write; missing: ${probe.missing.join('; ')}`,
        ].join('\n'),
      );
    }
    if (probe.missing.length > 0) {
      throw new XdogError(ErrorCodes.UNAVAILABLE, `the sandbox cannot be enforced here: ${probe.missing.join('; ')}`, { hint: probe.bwrap ? 'see docs/sandbox.md' : INSTALL_HINT });
    }
    return probe;
  }
}
