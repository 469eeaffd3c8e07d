/**
 * The interactive chat on a TTY: each line is a prompt; while a run streams,
 * `/steer TEXT` and `/follow-up TEXT` queue input into it. Ctrl+C aborts the
 * running run; a second Ctrl+C (or one while idle) exits. `/quit` exits.
 * With enabled extensions, `/extensions` and `/ext-ID-NAME ARGS` (or a public
 * name `/NAME ARGS`) run their commands (Tab completes them); their text or
 * rich result is shown, never sent to the model; `/artifact [save] PATH`
 * saves the latest rich result or shows a saved one.
 * The host commands (/readonly, /tools, /model, /compact, ...) are in
 * chat-commands.ts; one that changes state is refused while a run streams, and
 * the line is put back for later.
 */
import readline from 'node:readline';
import { ErrorCodes, XdogError, type Agent, type RunResult } from '../../../core/index.js';
import { changesExtensions, completeExtensionSlash, isExtensionSlash, publicCommands, runExtensionSlash, type ExtensionControl, type ResultShelf } from '../../../plugins/extensions/index.js';
import type { TtyApprovals } from './approval-prompt.js';
import type { TtyElicitation } from './elicitation-prompt.js';
import { CHAT_COMMANDS, completeCommand, findCommand, helpText, saveChat, type ChatHost } from './chat-commands.js';
import type { EventRenderer, Output } from './render.js';

const HELP = '/help lists the commands (Tab completes them); Ctrl+C aborts a run, twice exits';

/** One error line in the CLI's form, `xdog: message [CODE] (hint)`. */
function errorLine(error: unknown): string {
  if (!XdogError.is(error)) return `xdog: ${(error as Error)?.message ?? String(error)}\n`;
  return `xdog: ${error.message} [${error.code}]${error.hint ? ` (${error.hint})` : ''}\n`;
}

/**
 * Input the agent would not queue (too long, too many queued), with the chat's own remedy: the SDK's
 * hint names SDK calls (prompt(), drainInputs()) that a person at the chat cannot make.
 */
function queueRefusal(error: unknown): unknown {
  if (!XdogError.is(error, ErrorCodes.LIMIT_EXCEEDED)) return error;
  return new XdogError(error.code, error.message, { hint: 'send it as its own message once this run has finished', cause: error });
}

export async function runInteractive(
  agent: Agent,
  renderer: EventRenderer,
  output: Output,
  input: NodeJS.ReadableStream = process.stdin,
  extensions?: ExtensionControl,
  approvals?: TtyApprovals,
  elicitation?: TtyElicitation,
  host?: ChatHost,
): Promise<void> {
  /** The latest rich extension result (`/artifact save PATH` writes it). */
  const shelf: ResultShelf = {};
  /** Extension commands' public names (`/NAME`); the chat's own command names are refused to them, said once. */
  let publicNames = new Set<string>();
  const said = new Set<string>();
  const learn = (infos: Parameters<typeof publicCommands>[0]): void => {
    const { names, refused } = publicCommands(infos, new Set([...CHAT_COMMANDS.map((entry) => entry.name), 'exit']));
    publicNames = new Set(names.keys());
    for (const reason of refused.filter((reason) => !said.has(reason))) output.stderr(`xdog: notice: ${(said.add(reason), reason)}\n`);
  };
  const refreshPublicNames = (): void => {
    extensions?.list(false).then(learn, () => undefined);
  };
  refreshPublicNames();
  const completer = (line: string, done: (error: null, result: [string[], string]) => void): void => {
    const own = completeCommand(line, host?.registry);
    if (!extensions || (own.length && !line.startsWith('/ext'))) return done(null, [own, line]);
    // Readline gives the line up to the cursor: a prefix-only query (no argument context).
    completeExtensionSlash(extensions, line, { publicNames }).then(
      (items) => done(null, [[...own, ...items.map((item) => item.line)], line]),
      () => done(null, [[], line]),
    );
  };
  const rl = readline.createInterface({ input, output: process.stderr, terminal: true, prompt: '> ', completer });
  let running: Promise<RunResult> | undefined;
  /** A host command that changes state is in progress (/compact): prompts and other changes wait for it. */
  let working: string | undefined;
  let interrupted = false;
  output.stderr(`xdog chat with ${agent.config.model}; ${HELP}\n`);
  const busy = (): boolean => running !== undefined || working !== undefined;
  if (host) host.setLine = (text) => setImmediate(() => rl.write(text));
  // A draft kept when the last chat quit goes back into the input line.
  try {
    const saved = host?.draft.read();
    if (saved !== undefined && !saved.includes('\n')) {
      host!.draft.clear();
      output.stderr(`restored the draft kept when the chat last quit (${saved.length} characters)\n`);
      setImmediate(() => rl.write(saved));
    }
  } catch (error) {
    output.stderr(errorLine(error));
  }

  const start = (text: string): void => {
    const stream = agent.prompt(text);
    running = (async () => {
      for await (const event of stream) renderer.event(event);
      return stream.result();
    })();
    running
      .then((result) => {
        if (result.status === 'error') output.stderr(`xdog: ${result.errorMessage ?? 'the model failed'}\n`);
        if (result.status === 'aborted') output.stderr('(aborted)\n');
      })
      .catch((error: unknown) => output.stderr(errorLine(error)))
      .then(async () => {
        running = undefined;
        // A kept chat (--session) is saved after each run; one that cannot be saved says why and goes on.
        if (host) await saveChat(host).catch((error: unknown) => output.stderr(errorLine(error)));
      })
      .finally(() => {
        running = undefined;
        interrupted = false;
        rl.prompt(true);
      });
  };

  return new Promise<void>((resolve) => {
    const quit = (): void => {
      // The line typed but not sent is kept for the next chat.
      const unsent = rl.line.trim();
      if (host && unsent) {
        try {
          host.draft.save(unsent);
          output.stderr(`\nyour unsent line was kept in ${host.draft.file}; the next chat puts it back\n`);
        } catch (error) {
          output.stderr(`\nyour unsent line was not kept: ${(error as Error).message}\n`);
        }
      }
      rl.close();
    };
    rl.on('close', () => {
      void agent.cancelAndWait().then(resolve, resolve);
    });
    rl.on('SIGINT', () => {
      if (host?.compaction && !interrupted) {
        interrupted = true;
        host.compaction.abort();
        output.stderr('\n(stopping the compaction; Ctrl+C again to exit)\n');
      } else if (running && !interrupted) {
        interrupted = true;
        agent.abort();
        output.stderr('\n(aborting; Ctrl+C again to exit)\n');
      } else quit();
    });
    rl.on('line', (line) => {
      // The agent refuses input it cannot take (over a limit, closed); say so and keep the chat going.
      try {
        onLine(line);
      } catch (error) {
        output.stderr(errorLine(error));
        if (!busy()) rl.prompt(true);
      }
    });
    /** Runs a host command; one that changes state holds the chat until it ends. */
    const runHost = (run: NonNullable<ReturnType<typeof findCommand>>['run'] & {}, name: string, argument: string, changes: boolean): void => {
      if (changes) working = name;
      Promise.resolve()
        .then(() => run(host!, argument))
        .then(
          (shown) => output.stderr(`${shown}\n`),
          (error: unknown) => output.stderr(errorLine(error)),
        )
        .finally(() => {
          if (changes) working = undefined;
          interrupted = false;
          if (!busy()) rl.prompt(true);
        });
    };
    const onLine = (line: string): void => {
      // A tool call waits for a person: this line is the answer.
      if (approvals?.pending) {
        approvals.answer(line);
        return;
      }
      // An MCP server's elicitation waits for a person: this line answers its current field.
      if (elicitation?.pending) {
        elicitation.answer(line);
        return;
      }
      const text = line.trim();
      const [command, ...rest] = text.split(/\s+/);
      const argument = rest.join(' ');
      if (text === '') {
        if (!running) rl.prompt();
      } else if (command === '/quit' || command === '/exit') quit();
      else if (command === '/help') {
        output.stderr(`${helpText()}\n`);
        if (!busy()) rl.prompt();
      } else if (host && findCommand(command!.slice(1))?.run) {
        const entry = findCommand(command!.slice(1))!;
        const changes = entry.changes?.(argument) ?? false;
        if (changes && busy()) {
          output.stderr(`/${entry.name} ${argument ? `${argument} ` : ''}changes the chat: it is refused while ${running ? 'a run streams' : `/${working} runs`} (your line is kept; press Enter once it has ended)\n`);
          setImmediate(() => rl.write(line));
          return;
        }
        runHost(entry.run!, entry.name, argument, changes);
      } else if (working) {
        output.stderr(`/${working} is running: wait for it, or Ctrl+C to stop it (your line is kept)\n`);
        setImmediate(() => rl.write(line));
      } else if (command === '/steer' || command === '/follow-up') {
        if (!argument) output.stderr(`usage: ${command} TEXT\n`);
        else if (!running) start(argument);
        else {
          try {
            if (command === '/steer') agent.steer(argument);
            else agent.followUp(argument);
          } catch (error) {
            throw queueRefusal(error);
          }
        }
      } else if (extensions && (isExtensionSlash(text) || publicNames.has(command!.slice(1)))) {
        if (running && changesExtensions(text)) throw new XdogError(ErrorCodes.BUSY, 'extensions are reloaded or unloaded between runs', { hint: 'wait for the run to end, or Ctrl+C to abort it' });
        // A result is shown, never sent to the model; /artifact only reads and displays a file.
        runExtensionSlash(extensions, text, shelf).then(
          (shown) => output.stderr(`${shown.text}\n`),
          (error: unknown) => output.stderr(errorLine(error)),
        ).finally(() => {
          refreshPublicNames();
          if (!running) rl.prompt();
        });
      } else if (running) output.stderr('a run is streaming: use /steer TEXT or /follow-up TEXT, or Ctrl+C to abort it\n');
      else if (extensions && /^\/[a-z][a-z0-9-]*$/.test(command!)) {
        // An unknown /word may be a public name of an extension not started yet: start them (lazy activation), then decide.
        working = 'extensions';
        extensions.list(true).then(learn, () => undefined).finally(() => {
          working = undefined;
          try {
            if (publicNames.has(command!.slice(1))) onLine(line);
            else start(line);
          } catch (error) {
            output.stderr(errorLine(error));
            rl.prompt(true);
          }
        });
      } else start(line);
    };
    rl.prompt();
  });
}
