/**
 * The stdio transport: one server process per connection, started in its own
 * process group (argv, no shell), newline-delimited JSON-RPC frames bounded
 * by LIMITS.mcpMessageBytes, stderr drained separately into a bounded tail.
 * `close()` terminates the whole group (SIGTERM, then SIGKILL after a grace
 * period) and waits until the server process is reaped, and for its pipes at
 * most one more grace period. Under a sandbox policy the server runs inside
 * bubblewrap (plugins/sandbox); a policy that cannot be enforced refuses the start.
 */
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { BoundedTail, ErrorCodes, LIMITS, XdogError, killGroupOnHostExit, settleChild, signalProcessGroup } from '../../core/index.js';
import { SANDBOX_OFF, prepareLaunch, type SandboxPolicy } from '../sandbox/index.js';

/** What starts a stdio server. */
export interface StdioServerParams {
  command: string;
  args: string[];
  /** Added to a minimal inherited environment (HOME, PATH, ...), not to the host's whole environment. */
  env: Record<string, string>;
  cwd: string;
  /** The OS sandbox to run in (default off) and the directory its workspace-write mode makes writable. */
  sandbox?: SandboxPolicy;
  workspace?: string;
}

/** Says how much older stderr the tail left out. */
export function stderrText(tail: BoundedTail): string {
  const body = tail.text();
  return tail.droppedBytes > 0 ? `[${tail.droppedBytes} earlier bytes of stderr discarded]\n${body}` : body;
}

export class StdioProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  readonly stderr = new BoundedTail(LIMITS.mcpStderrBytes);
  #child?: ChildProcess;
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  #exited?: Promise<void>;
  #closed = false;
  /** Why the transport ended (exit status, malformed frame, ...), when it ended on its own. */
  endReason?: string;
  /** The protocol version the handshake settled on (set by the SDK client). */
  protocolVersion?: string;

  constructor(private readonly params: StdioServerParams) {}

  /** The server's process id (also its process group id) while it runs. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  setProtocolVersion(version: string): void {
    this.protocolVersion = version;
  }

  async start(): Promise<void> {
    if (this.#child) throw new XdogError(ErrorCodes.INVALID_STATE, 'stdio transport already started');
    const launch = await prepareLaunch({
      command: this.params.command,
      args: this.params.args,
      cwd: this.params.cwd,
      workspace: this.params.workspace ?? this.params.cwd,
      policy: this.params.sandbox ?? SANDBOX_OFF,
      stdioCount: 3,
      what: `MCP server "${this.params.command}"`,
      // The server's own files (a script given by absolute path) stay readable wherever they are.
      readable: [this.params.command, ...this.params.args].filter((arg) => path.isAbsolute(arg)),
    });
    const child = spawn(launch.command, launch.args, {
      cwd: this.params.cwd,
      env: { ...getDefaultEnvironment(), ...this.params.env },
      stdio: launch.stdio(['pipe', 'pipe', 'pipe']) as ['pipe', 'pipe', 'pipe'],
      detached: true, // its own process group, so close() can end every descendant
      shell: false,
      windowsHide: true,
    });
    launch.spawned();
    this.#child = child;
    if (child.pid !== undefined) child.once('close', killGroupOnHostExit(child.pid));
    // Settled when the server has exited and its pipes are closed, or cut shortly after it exited
    // (a setsid'd child of the server may hold them open for ever): close() never waits on a pipe.
    this.#exited = settleChild(child, LIMITS.mcpKillGraceMs).then(() => launch.dispose());
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', () => resolve());
      child.once('error', (error) =>
        reject(
          new XdogError(ErrorCodes.MCP_FAILED, `cannot start MCP server "${this.params.command}": ${error.message}`, {
            hint: 'check the command and cwd of this server in mcp_servers',
          }),
        ),
      );
    });
    child.on('error', (error) => this.onerror?.(error));
    child.stderr!.on('data', (chunk: Buffer) => this.stderr.push(chunk));
    child.stdout!.on('data', (chunk: Buffer) => this.#read(chunk));
    child.stdin!.on('error', (error) => this.onerror?.(error));
    child.once('exit', (code, signal) => {
      this.endReason ??= `server process exited (${signal ? `signal ${signal}` : `code ${code}`})`;
      // The server is gone; what it left in its group (holding our pipes open) goes too, so 'close' follows.
      signalProcessGroup(child.pid, 'SIGKILL');
    });
    child.once('close', () => this.#finish());
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#child?.stdin;
    if (!stdin || this.#closed || stdin.destroyed) {
      throw new XdogError(ErrorCodes.MCP_FAILED, `MCP server is not running${this.endReason ? `: ${this.endReason}` : ''}`);
    }
    const frame = `${JSON.stringify(message)}\n`;
    if (Buffer.byteLength(frame) > LIMITS.mcpMessageBytes) {
      throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `MCP request is over the ${LIMITS.mcpMessageBytes}-byte message limit`, {
        hint: 'send smaller arguments',
      });
    }
    await new Promise<void>((resolve, reject) => stdin.write(frame, (error) => (error ? reject(error) : resolve())));
  }

  async close(): Promise<void> {
    const child = this.#child;
    if (!child) return;
    this.#closed = true;
    if (child.exitCode === null && child.signalCode === null) {
      child.stdin?.end();
      signalProcessGroup(child.pid, 'SIGTERM');
      const timer = setTimeout(() => signalProcessGroup(child.pid, 'SIGKILL'), LIMITS.mcpKillGraceMs);
      await this.#exited;
      clearTimeout(timer);
    }
    // The leader is gone; make sure nothing it started lingers in the group.
    signalProcessGroup(child.pid, 'SIGKILL');
    await this.#exited;
  }

  /** Splits stdout into frames; an oversized or malformed frame ends the connection. */
  #read(chunk: Buffer): void {
    let start = 0;
    for (let newline = chunk.indexOf(10, start); newline !== -1; newline = chunk.indexOf(10, start)) {
      // The bound covers the whole frame, including the part that arrives with its newline.
      if (this.#pendingBytes + (newline - start) > LIMITS.mcpMessageBytes) {
        this.#fail(`server sent a frame over the ${LIMITS.mcpMessageBytes}-byte message limit`);
        return;
      }
      this.#pending.push(chunk.subarray(start, newline));
      const line = Buffer.concat(this.#pending).toString('utf8').replace(/\r$/, '');
      this.#pending = [];
      this.#pendingBytes = 0;
      start = newline + 1;
      if (line.trim() !== '') this.#deliver(line);
      if (this.#closed) return;
    }
    const rest = chunk.subarray(start);
    this.#pendingBytes += rest.length;
    if (this.#pendingBytes > LIMITS.mcpMessageBytes) {
      this.#fail(`server sent a frame over the ${LIMITS.mcpMessageBytes}-byte message limit`);
      return;
    }
    if (rest.length) this.#pending.push(rest);
  }

  #deliver(line: string): void {
    let message: JSONRPCMessage;
    try {
      message = JSONRPCMessageSchema.parse(JSON.parse(line));
    } catch {
      this.#fail(`server wrote a malformed JSON-RPC frame to stdout: ${line.slice(0, 200)}`);
      return;
    }
    this.onmessage?.(message);
  }

  #fail(reason: string): void {
    this.endReason = reason;
    this.onerror?.(new XdogError(ErrorCodes.MCP_FAILED, reason));
    void this.close();
  }

  #finish(): void {
    this.#closed = true;
    this.onclose?.();
  }
}

