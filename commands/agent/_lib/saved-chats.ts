/**
 * Chats that `xdog agent chat --session NAME` keeps: one file per chat under
 * `$XDG_CONFIG_HOME/xdog/chat/sessions/ID.jsonl` (0600, in a 0700 directory),
 * replaced atomically at each save. Line 1 is a small header (what
 * `/sessions` reads, bounded), line 2 the agent's snapshot. A file over
 * LIMITS.chatSessionBytes or one that does not decode is refused, never cut or
 * reset: the chat is not resumed and the file is left as it is.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ErrorCodes, LIMITS, XdogError, readRegularFileSync, z, type Agent } from '../../../core/index.js';
import { configDir } from '../../../core/paths.js';
import { checkSessionName } from '../../../plugins/sessions/names.js';
import { writeAll, writeFileAtomic } from '../../claw/_lib/atomic-file.js';

const FORMAT = 'xdog.chat/v1';

const HeaderSchema = z
  .object({
    format: z.literal(FORMAT),
    id: z.string().uuid(),
    name: z.string().min(1),
    model: z.string().min(1),
    messages: z.number().int().nonnegative(),
    /** The chat's read-only scope (/readonly): a header that does not decode is never resumed, so it fails closed. */
    readOnly: z.boolean(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .strict();

export type ChatHeader = z.infer<typeof HeaderSchema>;

/** A listed chat, or a file that could not be read (named, never hidden). */
export type ListedChat = { header: ChatHeader; file: string } | { problem: string; file: string };

function corrupt(file: string, why: string): XdogError {
  return new XdogError(ErrorCodes.STORE_CORRUPT, `the saved chat ${file} cannot be read: ${why}; it was not resumed and was left as it is`, { hint: 'start a chat under another --session name, or move the file away' });
}

function parseHeader(line: string, file: string): ChatHeader {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    throw corrupt(file, 'its header is not JSON');
  }
  const parsed = HeaderSchema.safeParse(json);
  if (!parsed.success) throw corrupt(file, `its header does not match ${FORMAT} (${parsed.error.issues[0]?.path.join('.') || 'root'}: ${parsed.error.issues[0]?.message})`);
  return parsed.data;
}

/** The first line of a file, reading at most LIMITS.chatSessionHeaderBytes. */
function readHeaderLine(file: string): string {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | fs.constants.O_NOCTTY);
  try {
    if (!fs.fstatSync(fd).isFile()) throw corrupt(file, 'it is not a regular file');
    const buffer = Buffer.alloc(LIMITS.chatSessionHeaderBytes);
    const read = fs.readSync(fd, buffer, 0, buffer.length, 0);
    const end = buffer.subarray(0, read).indexOf(0x0a);
    if (end < 0) throw corrupt(file, `its header line is missing or over ${LIMITS.chatSessionHeaderBytes} bytes`);
    return buffer.subarray(0, end).toString('utf8');
  } finally {
    fs.closeSync(fd);
  }
}

export class SavedChats {
  constructor(readonly dir = path.join(configDir(), 'chat', 'sessions')) {}

  fileOf(id: string): string {
    return path.join(this.dir, `${id}.jsonl`);
  }

  /** Every saved chat's header (or why it cannot be read), newest first; each read is bounded. */
  #all(): ListedChat[] {
    const names = fs.existsSync(this.dir) ? fs.readdirSync(this.dir).filter((name) => name.endsWith('.jsonl')) : [];
    const chats = names.map((name): ListedChat => {
      const file = path.join(this.dir, name);
      try {
        return { header: parseHeader(readHeaderLine(file), file), file };
      } catch (error) {
        return { problem: (error as Error).message, file };
      }
    });
    const when = (chat: ListedChat): string => ('header' in chat ? chat.header.updatedAt : '');
    return chats.sort((a, b) => when(b).localeCompare(when(a)));
  }

  /** The saved chats, newest first, at most LIMITS.chatSessionsListed; `more` counts the rest. */
  list(): { chats: ListedChat[]; more: number } {
    const chats = this.#all();
    return { chats: chats.slice(0, LIMITS.chatSessionsListed), more: Math.max(0, chats.length - LIMITS.chatSessionsListed) };
  }

  /** The chat whose id or name is `key` (a name is unique among saved chats). */
  find(key: string): ChatHeader | undefined {
    for (const chat of this.#all()) if ('header' in chat && (chat.header.id === key.toLowerCase() || chat.header.name === key)) return chat.header;
    return undefined;
  }

  /** A new chat's header (nothing is written until the first save). */
  create(name: string, model: string): ChatHeader {
    const now = new Date().toISOString();
    return { format: FORMAT, id: crypto.randomUUID(), name: checkSessionName(name)!, model, messages: 0, readOnly: false, createdAt: now, updatedAt: now };
  }

  /** Refuses a name another saved chat has. */
  checkName(name: string, id: string): string {
    const checked = checkSessionName(name)!;
    const other = this.find(checked);
    if (other && other.id !== id) throw new XdogError(ErrorCodes.CONFLICT, `another saved chat is named "${checked}"`, { hint: '/sessions lists them; choose another name' });
    return checked;
  }

  /** The header and snapshot of a saved chat, whole, bounded and checked. */
  read(id: string): { header: ChatHeader; snapshot: unknown } {
    const file = this.fileOf(id);
    const text = readRegularFileSync(file, { maxBytes: LIMITS.chatSessionBytes, what: 'saved chat', sizeHint: 'start a chat under another --session name; this one is over the limit of a saved chat' }).toString('utf8');
    const cut = text.indexOf('\n');
    const header = parseHeader(cut < 0 ? text : text.slice(0, cut), file);
    if (header.id !== id) throw corrupt(file, `its header names chat ${header.id}`);
    let snapshot: unknown;
    try {
      snapshot = JSON.parse(text.slice(cut + 1));
    } catch {
      throw corrupt(file, 'its snapshot is not JSON');
    }
    return { header, snapshot };
  }

  /** Saves the agent's conversation under `header` (idle only); refused, and nothing written, over LIMITS.chatSessionBytes. */
  async save(header: ChatHeader, agent: Agent): Promise<ChatHeader> {
    const snapshot = agent.dump();
    const next: ChatHeader = { ...header, model: agent.config.model, messages: snapshot.messages.length, updatedAt: new Date().toISOString() };
    const data = Buffer.from(`${JSON.stringify(next)}\n${JSON.stringify(snapshot)}\n`, 'utf8');
    if (data.length > LIMITS.chatSessionBytes) {
      throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `the chat is ${data.length} bytes, over the ${LIMITS.chatSessionBytes}-byte limit of a saved chat; it was not saved`, { hint: '/compact shrinks it; the file keeps the last save' });
    }
    await writeFileAtomic(this.fileOf(header.id), (fd) => writeAll(fd, data), { overwrite: true, createParent: true });
    return next;
  }
}
