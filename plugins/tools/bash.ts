/**
 * The `bash` tool: runs a command with `bash -c` in the working directory, in
 * its own process group. A timeout or an abort kills the whole group. Output
 * (stdout and stderr interleaved) is bounded: the newest bytes are kept and a
 * notice tells the model how much was cut. With a sandbox policy other than
 * off it runs under bubblewrap (plugins/sandbox, docs/sandbox.md); a policy
 * the machine cannot enforce refuses the call instead of running it bare.
 */
import { spawn } from 'node:child_process';
import { z } from 'zod';
import { BoundedTail, LIMITS, killGroupOnHostExit, settleChild, signalProcessGroup, type AgentTool } from '../../core/index.js';
import { SANDBOX_OFF, prepareLaunch, type Launch, type SandboxPolicy } from '../sandbox/index.js';
import { errorResult, textResult } from './results.js';

const BashArgs = z.object({
  command: z
    .string()
    .min(1)
    .refine((command) => Buffer.byteLength(command) <= LIMITS.bashCommandBytes, {
      // The command is one argument of `bash -c`: the kernel refuses a larger one with E2BIG.
      message: `the command is over ${LIMITS.bashCommandBytes} bytes, the limit for one command; write the script to a file with the write tool and run it with bash FILE`,
    })
    .describe(`The shell command to run (bash syntax; pipes and && work). At most ${LIMITS.bashCommandBytes} bytes; write longer scripts to a file.`),
  timeout: z
    .number()
    .positive()
    .max(LIMITS.bashMaxTimeoutSeconds)
    .optional()
    .describe(`Seconds before the command is killed (default ${LIMITS.bashDefaultTimeoutSeconds}).`),
});

/** What the host sees of a bash run. */
export interface BashDetails {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  aborted: boolean;
  /** Output bytes that were cut from the front. */
  droppedBytes: number;
  /** True when processes outside the command still held its output open when it exited, and the pipes were cut. */
  pipesCut?: boolean;
}

const KILL_GRACE_MS = 1000;

export function createBashTool(options: { cwd: string; shell?: string; sandbox?: SandboxPolicy }): AgentTool<z.infer<typeof BashArgs>, BashDetails> {
  const sandbox = options.sandbox ?? SANDBOX_OFF;
  return {
    name: 'bash',
    description:
      'Run a shell command in the working directory and return its combined stdout and stderr. ' +
      `Use it for builds, tests, git, and other command-line work. Output over ${LIMITS.bashOutputBytes / 1024} KiB keeps only its end. ` +
      'A non-zero exit code is reported as an error. Long-running commands are killed at the timeout.',
    parameters: BashArgs,
    execute: async (args, context) => {
      let launch: Launch;
      try {
        launch = await prepareLaunch({ command: options.shell ?? 'bash', args: ['-c', args.command], cwd: options.cwd, workspace: options.cwd, policy: sandbox, stdioCount: 3, what: 'the bash command' });
      } catch (error) {
        const hint = (error as { hint?: string }).hint;
        return errorResult(`${(error as Error).message}${hint ? `\n${hint}` : ''}`, { exitCode: null, signal: null, timedOut: false, aborted: false, droppedBytes: 0 });
      }
      return new Promise((resolve) => {
        const timeoutSeconds = args.timeout ?? LIMITS.bashDefaultTimeoutSeconds;
        const output = new BoundedTail(LIMITS.bashOutputBytes);
        const child = spawn(launch.command, launch.args, {
          cwd: options.cwd,
          detached: true,
          stdio: launch.stdio(['ignore', 'pipe', 'pipe']) as ['ignore', 'pipe', 'pipe'],
        });
        launch.spawned();
        // Detached: the command leads its own group, so a kill reaches its whole tree.
        const untrack = child.pid === undefined ? () => {} : killGroupOnHostExit(child.pid);
        let timedOut = false;
        let aborted = false;
        let killTimer: NodeJS.Timeout | undefined;
        const killGroup = (): void => {
          if (child.pid === undefined) return;
          signalProcessGroup(child.pid, 'SIGTERM');
          killTimer = setTimeout(() => signalProcessGroup(child.pid, 'SIGKILL'), KILL_GRACE_MS);
        };
        const timer = setTimeout(() => {
          timedOut = true;
          killGroup();
        }, timeoutSeconds * 1000);
        const onAbort = (): void => {
          aborted = true;
          killGroup();
        };
        if (context.signal.aborted) onAbort();
        else context.signal.addEventListener('abort', onAbort, { once: true });
        child.stdout.on('data', (chunk: Buffer) => output.push(chunk));
        child.stderr.on('data', (chunk: Buffer) => output.push(chunk));
        child.on('error', (error) => {
          untrack();
          void launch.dispose();
          clearTimeout(timer);
          context.signal.removeEventListener('abort', onAbort);
          resolve(errorResult(`could not start bash: ${error.message}`, { exitCode: null, signal: null, timedOut, aborted, droppedBytes: 0 }));
        });
        let exitCode: number | null = null;
        let signal: NodeJS.Signals | null = null;
        child.once('exit', (code, exitSignal) => {
          exitCode = code;
          signal = exitSignal;
        });
        // The result comes when bash exits (plus a short grace for its last output), not when its pipes
        // close: a background job or a setsid'd grandchild may hold them open for ever.
        void settleChild(child, LIMITS.bashOutputGraceMs).then(({ pipesCut }) => {
          // The cgroup empties a moment after the last exit: its removal does not delay the result.
          void launch.dispose();
          // Background jobs that kept the output open die with the host, as if their terminal closed.
          if (!pipesCut) untrack();
          clearTimeout(timer);
          // The group may still hold children that kept no pipe open; finish them too.
          if (timedOut || aborted) signalProcessGroup(child.pid, 'SIGKILL');
          if (killTimer) clearTimeout(killTimer);
          context.signal.removeEventListener('abort', onAbort);
          const details: BashDetails = { exitCode, signal, timedOut, aborted, droppedBytes: output.droppedBytes, pipesCut };
          let text = output.text();
          if (output.droppedBytes > 0) text = `[output truncated: the first ${output.droppedBytes} bytes were cut; only the last ${LIMITS.bashOutputBytes} bytes are shown]\n${text}`;
          if (pipesCut) text += `${text && !text.endsWith('\n') ? '\n' : ''}[background processes still held the output open when the command exited; their later output is not shown. Redirect it (cmd > log 2>&1 &) to keep it]`;
          if (!text) text = '(no output)';
          if (timedOut) resolve(errorResult(`command timed out after ${timeoutSeconds}s; its process group was killed\n${text}`, details));
          else if (aborted) resolve(errorResult(`command aborted; its process group was killed\n${text}`, details));
          else if (exitCode !== 0) resolve(errorResult(`command exited with ${exitCode === null ? `signal ${signal}` : `code ${exitCode}`}\n${text}`, details));
          else resolve(textResult(text, details));
        });
      });
    },
  };
}
