/**
 * The OS sandbox (docs/sandbox.md): bubblewrap namespaces, a seccomp filter,
 * no-new-privileges, a pids limit and an allow-list network proxy, for the
 * bash tool, xdog's file tools, MCP stdio servers and extension workers. A
 * library other plugins import through this file; it starts nothing until
 * a sandboxed process is launched.
 */
export { prepareLaunch, sandboxUnavailable, type Launch, type LaunchSpec } from './launch.js';
export { probeSandbox, INSTALL_HINT, type SandboxProbe } from './probe.js';
export { checkRead, checkWrite, realTarget, type PathVerdict } from './paths.js';
export {
  CHANNEL_GROUP_DEFAULT,
  SANDBOX_OFF,
  describePolicy,
  groupSandboxConfig,
  kernelSandboxConfig,
  resolvePolicy,
  type SandboxMode,
  type SandboxNetwork,
  type SandboxPolicy,
} from './policy.js';
export { hostAllowed, startAllowProxy } from './proxy.js';
export { seccompProgram } from './seccomp.js';
export { DENIED_SYSCALLS } from './syscalls.js';
