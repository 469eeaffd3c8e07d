import { Readable, Writable } from 'node:stream';
import { Flags } from '@oclif/core';
import { ErrorCodes, XdogError } from '../../core/index.js';
import { acpNdJsonStream, createAcpAgent } from '../../plugins/acp/index.js';
import { XdogCommand } from '../base-command.js';
import { checkThinking, openChatSession, workingDirectory } from './_lib/session.js';
import { terminalSafe } from '../../core/terminal-text.js';

export default class AgentAcp extends XdogCommand {
  static override summary = 'Serve xdog agents to an editor over the Agent Client Protocol (stdio)';
  static override description = `stdout carries ACP messages only; diagnostics go to stderr.
Each ACP session gets its own agent working in the session's cwd, with the built-in tools unless --no-tools.
Every tool call is first put to the client as a permission request; a rejected or cancelled request blocks it.
Sessions live as long as this process (session/load replays one created earlier).`;
  static override flags = {
    model: Flags.string({ description: 'provider/model for every session (default: model: in the config)' }),
    tools: Flags.boolean({ description: 'give agents the built-in tools (--no-tools: none, and no capability startup)', default: true, allowNo: true }),
    system: Flags.string({ description: 'system prompt' }),
    thinking: Flags.string({ description: 'reasoning effort the model declares' }),
  };
  static override examples = ['<%= config.bin %> agent acp --model anthropic/claude-sonnet-4-6'];

  async run(): Promise<void> {
    const { flags } = await this.parse(AgentAcp);
    // Protocol only on stdout: anything a library logs goes to stderr.
    console.log = console.info = console.warn = console.debug = console.error;
    const configFile = flags.config;
    const model = flags.model ?? (await this.loadConfig(flags)).config.model;
    if (!model) throw new XdogError(ErrorCodes.USAGE, 'no model to serve', { hint: 'pass --model provider/model or set model: in the config' });
    // Fail at start, not at the first session, when the model cannot be served.
    const probe = await openChatSession({ configFile, cwd: process.cwd(), tools: false });
    try {
      checkThinking(flags.thinking, probe.resolve(model));
    } finally {
      await probe.close();
    }

    const app = createAcpAgent({
      name: 'xdog',
      version: this.config.version,
      createAgent: async (cwd) => {
        const session = await openChatSession({ configFile, cwd: workingDirectory(cwd), tools: flags.tools });
        let agent;
        try {
          const resolved = session.resolve(model);
          agent = session.kernel.createAgent(
            session.streamFn,
            { model: resolved.qualified, systemPrompt: flags.system, thinking: flags.thinking },
            { tools: session.tools },
          );
        } catch (error) {
          await session.close();
          throw error;
        }
        // stdout carries protocol only: retries and close failures are reported on stderr.
        agent.subscribe((event) => {
          if (event.type === 'model_retry') process.stderr.write(`${terminalSafe(`[retry ${event.attempt}] in ${event.delayMs}ms: ${event.reason}`)}\n`);
        });
        agent.onClose(() => {
          session.close().catch((error: unknown) => process.stderr.write(`${terminalSafe(`xdog acp: closing a session's kernel failed: ${(error as Error)?.message ?? String(error)}`)}\n`));
        });
        return agent;
      },
    });
    const client = acpNdJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>);
    const connection = app.connect(client.stream);
    await connection.closed;
    // A frame the SDK refused ends the connection like a clean end of input: say so, and fail.
    const failure = client.readError();
    if (failure) throw failure;
  }
}
