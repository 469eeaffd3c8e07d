/**
 * Run under pi's Node: opens the written session file with pi 1.6's own
 * SessionManager and prints how many context messages it builds and the
 * last one's text, so the bench knows pi reads the file as the same
 * conversation before timing its TUI on it. `node pi-check.mjs FILE`.
 */
import { SessionManager } from '@earendil-works/pi-coding-agent';

const file = process.argv[2];
const manager = SessionManager.open(file);
const { messages, model } = manager.buildSessionContext();
const last = messages.at(-1);
const text = last?.content?.filter?.((part) => part.type === 'text').map((part) => part.text).join('') ?? '';
process.stdout.write(`${JSON.stringify({ messages: messages.length, last: text, model })}\n`);
