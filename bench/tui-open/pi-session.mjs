/**
 * Writes the bench's conversation as a pi 1.6 session file, in the format
 * @earendil-works/pi-coding-agent's SessionManager writes (dist/core/
 * session-manager.js, docs/session-format.md): a `session` header (version 3,
 * id, ISO timestamp, cwd), then one JSON line per entry, each with an 8-hex
 * `id` and the previous entry as `parentId`. As pi does on a new session, the
 * model and thinking level come first as `model_change` and
 * `thinking_level_change`; then `message` entries: the user prompt as pi's
 * interactive prompt stores it (a text block) and the assistant answer with
 * api, provider, model, zero usage and `stopReason: "stop"`. The texts are
 * the ones xdog's faux model gives the same prompts ("m<i>", "echo: m<i>").
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const USAGE = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };

/**
 * Writes `prompts` prompt/answer pairs into `sessionDir` for a session whose
 * working directory is `cwd`; the model is `provider/model`. Returns the file.
 */
export function writePiSession({ sessionDir, cwd, prompts, provider, model, api }) {
  const start = Date.parse('2026-12-01T10:00:00.000Z');
  const sessionId = randomUUID();
  const stamp = new Date(start).toISOString();
  fs.mkdirSync(sessionDir, { recursive: true });
  const file = path.join(sessionDir, `${stamp.replace(/[:.]/g, '-')}_${sessionId}.jsonl`);
  const fd = fs.openSync(file, 'wx');
  let parentId = null;
  let count = 0;
  const lines = [];
  const append = (entry, at) => {
    const id = count.toString(16).padStart(8, '0'); // unique, 8 hex characters like pi's generateId
    lines.push(JSON.stringify({ type: entry.type, id, parentId, timestamp: new Date(at).toISOString(), ...entry }));
    parentId = id;
    count++;
    if (lines.length >= 1000) fs.writeSync(fd, `${lines.splice(0).join('\n')}\n`);
  };
  try {
    fs.writeSync(fd, `${JSON.stringify({ type: 'session', version: 3, id: sessionId, timestamp: stamp, cwd })}\n`);
    append({ type: 'model_change', provider, modelId: model }, start);
    append({ type: 'thinking_level_change', thinkingLevel: 'off' }, start);
    for (let i = 0; i < prompts; i++) {
      const at = start + 1000 * (i + 1);
      append({ type: 'message', message: { role: 'user', content: [{ type: 'text', text: `m${i}` }], timestamp: at } }, at);
      const message = { role: 'assistant', content: [{ type: 'text', text: `echo: m${i}` }], api, provider, model, usage: USAGE, stopReason: 'stop', timestamp: at + 5 };
      append({ type: 'message', message }, at + 5);
    }
    if (lines.length) fs.writeSync(fd, `${lines.join('\n')}\n`);
  } finally {
    fs.closeSync(fd);
  }
  return file;
}
