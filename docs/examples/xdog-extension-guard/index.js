// An example xdog extension (docs/extensions.md). It runs in its own worker
// process; every callback below is called by the host with a deadline.

/** @param {import('xdog/extension').ExtensionAPI} api */
export default function setup(api) {
  const protect = typeof api.settings?.protect === 'string' ? api.settings.protect : 'secret';
  let written = 0;

  // A pre-tool veto: writes to protected paths never run.
  api.beforeToolCall(({ toolName, args }) => {
    if ((toolName === 'write' || toolName === 'edit') && String(args.path).includes(protect)) {
      return { block: true, reason: `${args.path} is protected by xdog-extension-guard` };
    }
    return undefined;
  });

  // A durable entry per successful write (stored in the session by the claw gateway).
  api.afterToolCall(async ({ toolName, args, isError }) => {
    if (toolName !== 'write' || isError) return undefined;
    written++;
    try {
      await api.appendEntry('write', { path: String(args.path) });
      api.status('guard', `${written} write(s) recorded`);
    } catch (error) {
      api.status('guard', `${written} write(s); not recorded: ${error.message}`);
    }
    return undefined;
  });

  // A command: /ext-xdog-extension-guard-protected
  api.command('protected', {
    description: 'Shows what the guard protects',
    run: () => `paths containing "${protect}" are protected; ${written} write(s) so far`,
  });

  // A model provider: ext-xdog-extension-guard-echo/v1. "write PATH" asks for the
  // write tool; "fail" ends the turn with an error; anything else is echoed.
  api.registerProvider('echo', {
    models: [{ id: 'v1', contextWindow: 8192 }],
    async *stream(request) {
      const last = request.messages.at(-1);
      if (last?.role === 'toolResult') {
        yield { type: 'text', text: `tool said: ${last.content.map((part) => part.text ?? '').join('')}` };
        yield { type: 'done' };
        return;
      }
      const text = typeof last?.content === 'string' ? last.content : (last?.content ?? []).map((part) => part.text ?? '').join('');
      if (text === 'fail') {
        yield { type: 'error', message: 'the echo backend refused' };
        return;
      }
      const write = /^write (\S+)$/.exec(text);
      if (write) {
        yield { type: 'tool_call', id: 'call-1', name: 'write', arguments: { path: write[1], content: 'written by the echo model\n' } };
      } else {
        yield { type: 'text', text: `echo: ${text}` };
      }
      yield { type: 'usage', input: text.length, output: 8 };
      yield { type: 'done' };
    },
  });
}
