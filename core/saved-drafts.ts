/**
 * Saved draft snapshots of the claw clients: a child's start task, steer or
 * follow-up written but not sent (`/agents drafts` in the TUI), or the
 * parent editor's text (`/draft saved`). Each is one private JSON file,
 * `$XDG_STATE_HOME/xdog/claw/saved-drafts/GROUP/ID.json` (0600 in 0700
 * directories), kept until deleted (`xdog claw agents drafts delete ID`).
 *
 * A save publishes a new file only (temp file, then a hard link that fails
 * if the name exists), so it never overwrites another snapshot; saves and
 * deletes of a group take its lock file, so concurrent writers cannot pass
 * LIMITS.savedDraftsPerGroup. Reads validate every file (private, bounded,
 * the schema, the id and group of its place, its SHA-256) and never trust
 * one that fails: a listing reports it as unreadable with the fix.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { writeAll, writeFileAtomic } from './atomic-file.js';
import { readRegularFileSync } from './bounded-read.js';
import { ErrorCodes, XdogError } from './errors.js';
import { LIMITS, utf8Bytes } from './limits.js';
import { stateDir } from './paths.js';

export const SAVED_DRAFT_KINDS = ['parent', 'start', 'steer', 'follow-up'] as const;
export type SavedDraftKind = (typeof SAVED_DRAFT_KINDS)[number];

const ID = /^d-[0-9a-f]{12}$/;
const LOCK = '.lock';
const LOCK_RETRY_MS = 25;

const RecordSchema = z
  .object({
    version: z.literal(1),
    id: z.string().regex(ID),
    group: z.string().min(1),
    kind: z.enum(SAVED_DRAFT_KINDS),
    child: z.string().min(1).nullable(),
    text: z.string().min(1),
    createdAt: z.string().datetime(),
    sessionId: z.string().min(1).nullable(),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
  })
  .strict();

export type SavedDraft = z.infer<typeof RecordSchema>;

/** What a listing shows of a snapshot: its metadata, never its whole text. */
export interface SavedDraftSummary {
  id: string;
  group: string;
  kind: SavedDraftKind;
  child: string | null;
  bytes: number;
  createdAt: string;
  sessionId: string | null;
  firstLine: string;
}

/** A file in the store that failed validation: what is wrong and how to fix it. */
export interface UnreadableDraft {
  group: string;
  file: string;
  /** From the file name, when it is a snapshot id (then `delete ID` removes it). */
  id: string | null;
  problem: string;
  hint: string;
}

export interface SavedDraftListing {
  drafts: SavedDraftSummary[];
  unreadable: UnreadableDraft[];
}

export interface NewSavedDraft {
  group: string;
  kind: SavedDraftKind;
  /** The child a steer or follow-up is for; none for a start task or a parent draft. */
  child?: string | null;
  text: string;
  /** The session it was written in (provenance only: restoring never returns to it). */
  sessionId?: string | null;
}

/** `$XDG_STATE_HOME/xdog/claw/saved-drafts`. */
export function savedDraftsDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(stateDir(env), 'claw', 'saved-drafts');
}

/** The digest a snapshot carries: of every field but itself, so a changed text, kind or child shows. */
function digest(record: Omit<SavedDraft, 'sha256'>): string {
  const { version, id, group, kind, child, text, createdAt, sessionId } = record;
  return crypto.createHash('sha256').update(JSON.stringify([version, id, group, kind, child, text, createdAt, sessionId])).digest('hex');
}

export function summarize(record: SavedDraft): SavedDraftSummary {
  const { id, group, kind, child, text, createdAt, sessionId } = record;
  return { id, group, kind, child, bytes: utf8Bytes(text), createdAt, sessionId, firstLine: text.trim().split('\n', 1)[0]!.slice(0, 200) };
}

/** "3m", "2h", "5d": how long ago a snapshot was saved. */
export function draftAge(createdAt: string, now = Date.now()): string {
  const seconds = Math.max(0, Math.round((now - Date.parse(createdAt)) / 1000));
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86_400)}d`;
}

/** Refuses a snapshot id that is not one before any disk work (an id never names a path). */
export function checkDraftId(id: string): void {
  if (!ID.test(id)) throw new XdogError(ErrorCodes.USAGE, `"${id}" is not a saved draft id`, { hint: 'ids look like d-0123456789ab; xdog claw agents drafts lists them' });
}

class Unreadable extends Error {
  constructor(
    message: string,
    readonly hint?: string,
  ) {
    super(message);
  }
}

export class SavedDraftStore {
  constructor(readonly root = savedDraftsDir()) {}

  #groupDir(group: string): string {
    if (!group) throw new XdogError(ErrorCodes.USAGE, 'a saved draft needs a group', { hint: 'name the group' });
    // Group names are config keys ([a-z0-9_-]); anything else is encoded, never a path.
    return path.join(this.root, encodeURIComponent(group));
  }

  async save(input: NewSavedDraft): Promise<SavedDraft> {
    const child = input.child ?? null;
    if (!input.text.trim()) throw new XdogError(ErrorCodes.USAGE, 'the draft is empty; there is nothing to save', { hint: 'type it first' });
    const bytes = utf8Bytes(input.text);
    if (bytes > LIMITS.savedDraftBytes) {
      throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `the draft is ${bytes} bytes, over the ${LIMITS.savedDraftBytes}-byte limit of a saved draft; it was not saved`, { hint: 'send it, or keep it in a file of your own' });
    }
    if ((input.kind === 'steer' || input.kind === 'follow-up') !== (child !== null)) {
      throw new XdogError(ErrorCodes.USAGE, input.kind === 'steer' || input.kind === 'follow-up' ? `a ${input.kind} draft needs the child it is for` : `a ${input.kind} draft is for no child`, { hint: 'pick the child in /agents' });
    }
    const dir = this.#groupDir(input.group);
    privateDir(this.root);
    privateDir(dir);
    return this.#locked(dir, async () => {
      const held = snapshotFiles(dir).length;
      if (held >= LIMITS.savedDraftsPerGroup) {
        throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `group ${input.group} has ${held} saved drafts, the limit is ${LIMITS.savedDraftsPerGroup}; this one was not saved`, {
          hint: `delete some first: xdog claw agents drafts --group ${input.group}, then xdog claw agents drafts delete ID`,
        });
      }
      const base = { version: 1 as const, id: `d-${crypto.randomBytes(6).toString('hex')}`, group: input.group, kind: input.kind, child, text: input.text, createdAt: new Date().toISOString(), sessionId: input.sessionId ?? null };
      const record: SavedDraft = { ...base, sha256: digest(base) };
      const data = Buffer.from(`${JSON.stringify(record, null, 2)}\n`);
      if (data.length > LIMITS.savedDraftRecordBytes) {
        throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `the saved draft would be ${data.length} bytes of JSON, over the ${LIMITS.savedDraftRecordBytes}-byte limit of a snapshot file; it was not saved`, { hint: 'send it, or keep it in a file of your own' });
      }
      // A new name only: the link fails if the (random) name exists, so another snapshot is never replaced.
      await writeFileAtomic(path.join(dir, `${record.id}.json`), (fd) => writeAll(fd, data), { overwrite: false });
      return record;
    });
  }

  /** The snapshots of `group` (every group without one), oldest first, and the files that failed validation. */
  async list(group?: string): Promise<SavedDraftListing> {
    const listing: SavedDraftListing = { drafts: [], unreadable: [] };
    for (const name of group === undefined ? this.#groups() : [group]) {
      const dir = this.#groupDir(name);
      if (!fs.lstatSync(dir, { throwIfNoEntry: false })) continue;
      privateDir(dir, false);
      const files = snapshotFiles(dir);
      for (const file of files.slice(0, LIMITS.savedDraftsPerGroup)) {
        const id = file.slice(0, -'.json'.length);
        try {
          listing.drafts.push(summarize(readRecord(path.join(dir, file), name)));
        } catch (error) {
          listing.unreadable.push(unreadable(name, path.join(dir, file), id, error));
        }
      }
      if (files.length > LIMITS.savedDraftsPerGroup) {
        listing.unreadable.push({ group: name, file: dir, id: null, problem: `${files.length - LIMITS.savedDraftsPerGroup} more files were not read (over the ${LIMITS.savedDraftsPerGroup}-draft limit of a group)`, hint: 'delete the drafts you no longer need' });
      }
    }
    listing.drafts.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
    return listing;
  }

  /** One whole snapshot, validated; NOT_FOUND without it, INVALID_STATE when its file fails validation. */
  async read(id: string, group?: string): Promise<SavedDraft> {
    const { file, group: owner } = this.#find(id, group);
    try {
      return readRecord(file, owner);
    } catch (error) {
      const bad = unreadable(owner, file, id, error);
      throw new XdogError(ErrorCodes.INVALID_STATE, `saved draft ${id} is unreadable: ${bad.problem}`, { hint: bad.hint });
    }
  }

  /** Removes one snapshot's file (readable or not: deleting is how an unreadable one is fixed); answers what it held when readable. */
  async delete(id: string, group?: string): Promise<SavedDraftSummary | null> {
    const { file, group: owner } = this.#find(id, group);
    return this.#locked(path.dirname(file), async () => {
      let record: SavedDraftSummary | null = null;
      try {
        record = summarize(readRecord(file, owner));
      } catch {
        // Unreadable: removed all the same.
      }
      try {
        fs.unlinkSync(file);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw notFound(id);
        throw error;
      }
      return record;
    });
  }

  #groups(): string[] {
    if (!fs.lstatSync(this.root, { throwIfNoEntry: false })) return [];
    privateDir(this.root, false);
    return fs
      .readdirSync(this.root, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => safeDecode(entry.name))
      .sort();
  }

  #find(id: string, group?: string): { file: string; group: string } {
    checkDraftId(id);
    for (const name of group === undefined ? this.#groups() : [group]) {
      const file = path.join(this.#groupDir(name), `${id}.json`);
      if (fs.lstatSync(file, { throwIfNoEntry: false })) return { file, group: name };
    }
    throw notFound(id, group);
  }

  /** Runs `work` holding the group's lock file; another live process's lock is waited for up to LIMITS.savedDraftLockMs. */
  async #locked<T>(dir: string, work: () => Promise<T>): Promise<T> {
    const lock = path.join(dir, LOCK);
    const deadline = Date.now() + LIMITS.savedDraftLockMs;
    for (;;) {
      try {
        fs.writeFileSync(lock, String(process.pid), { flag: 'wx', mode: 0o600 });
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      // A lock left by a process that died (killed mid-save) would refuse every save: it is removed.
      if (!lockHolderAlive(lock)) {
        fs.rmSync(lock, { force: true });
        continue;
      }
      if (Date.now() >= deadline) {
        throw new XdogError(ErrorCodes.BUSY, `another xdog process holds the lock of ${dir} (saving or deleting a draft); nothing was changed`, { hint: `try again; if no xdog process is running, remove ${lock}` });
      }
      await sleep(LOCK_RETRY_MS);
    }
    try {
      return await work();
    } finally {
      fs.rmSync(lock, { force: true });
    }
  }
}

/** False when the lock file names a process that no longer runs, or names none and is older than a holder could take to write its pid. */
function lockHolderAlive(lock: string): boolean {
  let pid: number;
  let mtimeMs: number;
  try {
    mtimeMs = fs.statSync(lock).mtimeMs;
    pid = Number(fs.readFileSync(lock, 'utf8'));
  } catch {
    return true; // Gone meanwhile: the next attempt takes it.
  }
  // Empty: just created, its pid not written yet (or torn by a crash, then it ages out).
  if (!Number.isSafeInteger(pid) || pid <= 0) return Date.now() - mtimeMs < LIMITS.savedDraftLockMs;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function safeDecode(name: string): string {
  try {
    return decodeURIComponent(name);
  } catch {
    return name;
  }
}

function notFound(id: string, group?: string): XdogError {
  return new XdogError(ErrorCodes.NOT_FOUND, `there is no saved draft ${id}${group === undefined ? '' : ` in group ${group}`}`, { hint: 'xdog claw agents drafts lists them' });
}

/** The snapshot files of a group directory, by name (temp files and the lock start with a dot). */
function snapshotFiles(dir: string): string[] {
  return fs
    .readdirSync(dir)
    .filter((name) => name.endsWith('.json') && !name.startsWith('.'))
    .sort();
}

/** Makes (when `create`) and checks a directory that holds snapshots: a real directory, the user's own, 0700. */
function privateDir(dir: string, create = true): void {
  if (create && !fs.lstatSync(dir, { throwIfNoEntry: false })) fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stat = fs.lstatSync(dir);
  if (!stat.isDirectory()) throw new XdogError(ErrorCodes.INVALID_STATE, `${dir} is not a directory (a symlink or a file); saved drafts are kept only in a private directory`, { hint: `remove it; xdog makes it again` });
  if (stat.uid !== process.getuid?.()) throw new XdogError(ErrorCodes.INVALID_STATE, `${dir} belongs to another user; saved drafts are kept only in your own directory`, { hint: 'remove it, or set XDG_STATE_HOME to a directory of yours' });
  if (stat.mode & 0o077) throw new XdogError(ErrorCodes.INVALID_STATE, `${dir} has mode ${(stat.mode & 0o777).toString(8)}; saved drafts are kept only in a private (0700) directory`, { hint: `chmod 700 ${dir}` });
}

/** Reads and validates one snapshot file of `group`; throws Unreadable with what is wrong. */
function readRecord(file: string, group: string): SavedDraft {
  const stat = fs.lstatSync(file);
  if (!stat.isFile()) throw new Unreadable('it is not a regular file (a symlink or a directory)');
  if (stat.nlink !== 1) throw new Unreadable(`it has ${stat.nlink} hard links; a snapshot file has one`);
  if (stat.uid !== process.getuid?.()) throw new Unreadable('it belongs to another user');
  if (stat.mode & 0o077) throw new Unreadable(`its mode is ${(stat.mode & 0o777).toString(8)}; a snapshot file is private (0600)`, `check who could read it, then chmod 600 ${file}`);
  if (stat.size > LIMITS.savedDraftRecordBytes) throw new Unreadable(`it is ${stat.size} bytes, over the ${LIMITS.savedDraftRecordBytes}-byte limit of a snapshot file`);
  let raw: unknown;
  try {
    raw = JSON.parse(readRegularFileSync(file, { maxBytes: LIMITS.savedDraftRecordBytes, what: 'saved draft' }).toString('utf8'));
  } catch (error) {
    throw new Unreadable(`it is not valid JSON (${(error as Error).message})`);
  }
  const parsed = RecordSchema.safeParse(raw);
  if (!parsed.success) throw new Unreadable(`it is not a saved draft (${parsed.error.issues.map((issue) => `${issue.path.join('.') || 'the file'}: ${issue.message}`).join('; ')})`);
  const record = parsed.data;
  if (`${record.id}.json` !== path.basename(file)) throw new Unreadable(`it says it is ${record.id}, not the draft its name says`);
  if (record.group !== group) throw new Unreadable(`it says it belongs to group ${record.group}, not ${group} whose directory holds it`);
  if (utf8Bytes(record.text) > LIMITS.savedDraftBytes) throw new Unreadable(`its text is over the ${LIMITS.savedDraftBytes}-byte limit of a saved draft`);
  if ((record.kind === 'steer' || record.kind === 'follow-up') !== (record.child !== null)) throw new Unreadable(`a ${record.kind} draft ${record.child === null ? 'without' : 'with'} a child`);
  const { sha256, ...rest } = record;
  if (digest(rest) !== sha256) throw new Unreadable('its SHA-256 does not match its content (it was changed after it was saved)');
  return record;
}

function unreadable(group: string, file: string, id: string, error: unknown): UnreadableDraft {
  const named = ID.test(id) ? id : null;
  const remove = named ? `xdog claw agents drafts delete ${named}` : `rm ${file}`;
  if (error instanceof Unreadable) return { group, file, id: named, problem: error.message, hint: error.hint ? `${error.hint}, or ${remove}` : remove };
  return { group, file, id: named, problem: (error as Error).message, hint: remove };
}
