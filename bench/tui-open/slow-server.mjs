/**
 * A stand-in model for the keystroke bench: a tiny OpenAI-compatible Chat
 * Completions server on 127.0.0.1 that both TUIs use as their provider, so
 * the reply that streams while keys are typed is the same bytes, parsed by
 * each side's own OpenAI provider code. A prompt "stream TOKEN" is answered
 * with "reply-TOKEN" and then one numbered word every `intervalMs`, until
 * `maxChunks` words or `finishAll()`; any other prompt gets "echo: <text>" at
 * once. Nothing leaves the machine.
 */
import http from 'node:http';

/** The text of the last user message of a Chat Completions request. */
function lastUserText(body) {
  const last = [...(body.messages ?? [])].reverse().find((message) => message.role === 'user');
  if (!last) return '';
  if (typeof last.content === 'string') return last.content;
  return (last.content ?? []).filter((part) => part.type === 'text').map((part) => part.text).join(' ');
}

/** Starts the server; resolves to `{ baseUrl, finishAll, close, requests }`. */
export async function startSlowServer({ intervalMs = 20, maxChunks = 3000 } = {}) {
  const open = new Set();
  let requests = 0;
  const server = http.createServer((req, res) => {
    if (req.method !== 'POST' || !req.url.endsWith('/chat/completions')) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
      return;
    }
    let raw = '';
    req.setEncoding('utf8').on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      requests++;
      const body = JSON.parse(raw);
      const text = lastUserText(body).trim();
      const id = `chatcmpl-bench-${requests}`;
      const created = Math.floor(Date.now() / 1000);
      const chunk = (delta, finish = null) => `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: body.model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
      res.write(chunk({ role: 'assistant', content: '' }));
      const stream = { finish: () => {} };
      const finish = () => {
        clearInterval(stream.timer);
        open.delete(stream);
        if (res.writableEnded || res.destroyed) return;
        res.write(chunk({}, 'stop'));
        res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: body.model, choices: [], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } })}\n\n`);
        res.end('data: [DONE]\n\n');
      };
      stream.finish = finish;
      const token = /^stream (\S+)$/.exec(text);
      if (!token) {
        res.write(chunk({ content: `echo: ${text}` }));
        finish();
        return;
      }
      open.add(stream);
      res.write(chunk({ content: `reply-${token[1]}` }));
      let sent = 0;
      stream.timer = setInterval(() => {
        if (++sent > maxChunks) return finish();
        res.write(chunk({ content: ` w${sent}` }));
      }, intervalMs);
      // A client that goes away (its TUI quit, its turn aborted) ends the stream.
      res.on('close', () => {
        clearInterval(stream.timer);
        open.delete(stream);
      });
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${server.address().port}/v1`,
    /** Ends every stream still open (a finished reply), so the next round starts on an idle agent. */
    finishAll: () => [...open].forEach((stream) => stream.finish()),
    close: () => {
      [...open].forEach((stream) => stream.finish());
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
    /** How many replies are streaming now. */
    get streaming() {
      return open.size;
    },
    get requests() {
      return requests;
    },
  };
}
