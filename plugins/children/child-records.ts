/**
 * Durable child records on the claw store: what the claw child runtime
 * writes before each step it acknowledges. A child's row is committed before
 * it runs; an input is journaled ("accepted") before the caller hears it was
 * queued and marked "consumed" before the model call that sees it; usage rows
 * go into the group's usage ledger, linked to the child; the final transcript
 * is stored in chunks, however long; before each compaction the complete
 * history is archived (one row per generation, at most
 * LIMITS.childCompactionArchiveBytes). `recoverInterrupted` runs at start: a
 * child still "running" in the store was running in a process that is gone,
 * so it becomes "interrupted" (never re-run) and its accepted inputs
 * "uncertain" (the model may or may not have seen them).
 */
import { ErrorCodes, LIMITS, XdogError, type Clock, type ImageContent, type Message, type Usage } from '../../core/index.js';
import { checkUsage, insertUsage, storedJson, type SessionStore, type Sql } from '../sessions/tokens.js';
import type { ChildSpec } from './contracts.js';
import type { ChildRecord, ChildStatus } from './memory-runtime.js';

/** Characters of transcript JSON per stored chunk. */
export const TRANSCRIPT_CHUNK_CHARS = 64 * 1024;

export type DurableChildStatus = ChildStatus | 'interrupted';
/** `removed`: a client took it out of the queue before the child's model took it in. */
export type ChildInputStatus = 'accepted' | 'consumed' | 'uncertain' | 'removed';

/** A client's change to a journaled input the child has not taken in yet: new text, out of the queue, or one place earlier (-1) or later (+1) in its lane. */
export type ChildInputChange = { text: string } | { remove: true } | { move: -1 | 1 };

/** The journal rows a change touched, as they were: what `restoreInput` writes back. */
export interface ChildInputRevision {
  rows: Array<{ id: number; text: string; status: ChildInputStatus; position: number }>;
}

export interface DurableChildRecord extends Omit<ChildRecord, 'status'> {
  group: string;
  parentSessionId: string | null;
  status: DurableChildStatus;
  spec: ChildSpec;
  createdAt: number;
  endedAt: number | null;
  /** How many images its task carried (the parts: `taskImages`). */
  taskImages: number;
}

export interface ChildInputRecord {
  id: number;
  lane: 'steer' | 'followUp';
  text: string;
  status: ChildInputStatus;
  createdAt: number;
  consumedAt: number | null;
  /** How many images it carries (the parts: `inputImages`). */
  images: number;
}

export interface ChildEnd {
  status: Exclude<DurableChildStatus, 'running' | 'interrupted'>;
  result: string | null;
  error: string | null;
  transcript: readonly Message[];
}

/** One compaction archive as listed: what it holds, not its messages. */
export interface ChildCompactionArchive {
  generation: number;
  messageCount: number;
  bytes: number;
  createdAt: number;
}

interface ArchiveRow {
  generation: number | string;
  message_count: number | string;
  bytes: number | string;
  created_at: number | string;
}

function toArchive(row: ArchiveRow): ChildCompactionArchive {
  return { generation: Number(row.generation), messageCount: Number(row.message_count), bytes: Number(row.bytes), createdAt: Number(row.created_at) };
}

interface ChildRow {
  id: string;
  group_name: string;
  parent_session_id: string | null;
  label: string | null;
  task: string;
  access: string;
  config: string;
  status: string;
  result: string | null;
  error: string | null;
  model_calls: number | string;
  tokens: number | string;
  created_at: number | string;
  ended_at: number | string | null;
  task_image_count: number | string | null;
}

interface InputRow {
  id: number | string;
  lane: string;
  text: string;
  status: string;
  created_at: number | string;
  consumed_at: number | string | null;
  position: number | string | null;
  image_count: number | string | null;
}

const CHILD_COLUMNS = 'id, group_name, parent_session_id, label, task, access, config, status, result, error, model_calls, tokens, created_at, ended_at, task_image_count';
const INPUT_COLUMNS = 'id, lane, text, status, created_at, consumed_at, position, image_count';
/** Queue order: rows older than moves have no position and keep their order of arrival. */
const INPUT_ORDER = 'COALESCE(position, id), id';

function toRecord(row: ChildRow): DurableChildRecord {
  return {
    id: row.id,
    group: row.group_name,
    parentSessionId: row.parent_session_id,
    label: row.label,
    task: row.task,
    access: row.access as ChildSpec['access'],
    spec: storedJson<ChildSpec>(row.config, () => `child ${row.id}: the stored config`),
    status: row.status as DurableChildStatus,
    result: row.result,
    error: row.error,
    modelCalls: Number(row.model_calls),
    tokens: Number(row.tokens),
    createdAt: Number(row.created_at),
    endedAt: row.ended_at === null ? null : Number(row.ended_at),
    taskImages: Number(row.task_image_count ?? 0),
  };
}

function positionOf(row: InputRow): number {
  return Number(row.position ?? row.id);
}

function toInput(row: InputRow): ChildInputRecord {
  return {
    id: Number(row.id),
    lane: row.lane as ChildInputRecord['lane'],
    text: row.text,
    status: row.status as ChildInputStatus,
    createdAt: Number(row.created_at),
    consumedAt: row.consumed_at === null ? null : Number(row.consumed_at),
    images: Number(row.image_count ?? 0),
  };
}

/** Image parts as a column holds them: JSON, or NULL for none. */
function imagesColumn(images: readonly ImageContent[]): string | null {
  return images.length === 0 ? null : JSON.stringify(images);
}

/** Splits text into pieces of at most `size` characters, never between the halves of a surrogate pair. */
export function chunkText(text: string, size = TRANSCRIPT_CHUNK_CHARS): string[] {
  const chunks: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(start + size, text.length);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--;
    chunks.push(text.slice(start, end));
    start = end;
  }
  return chunks;
}

export class ChildRecordStore {
  readonly #store: SessionStore;
  readonly #clock: Clock;

  constructor(options: { store: SessionStore; clock: Clock }) {
    this.#store = options.store;
    this.#clock = options.clock;
  }

  /** Commits a new child as "running" before it starts. */
  async create(input: { id: string; group: string; parentSessionId: string | null; spec: ChildSpec; images?: readonly ImageContent[] }): Promise<DurableChildRecord> {
    const { spec } = input;
    const images = input.images ?? [];
    return this.#store.withTransaction(async (sql) => {
      const [row] = await sql.all<ChildRow>(
        `INSERT INTO claw_children (id, group_name, parent_session_id, label, task, access, config, status, result, error, model_calls, tokens, transcript_chunks, created_at, ended_at, task_images, task_image_count)
         VALUES (:id, :group, :parent, :label, :task, :access, :config, 'running', NULL, NULL, 0, 0, 0, :now, NULL, :images, :imageCount) RETURNING ${CHILD_COLUMNS}`,
        { id: input.id, group: input.group, parent: input.parentSessionId, label: spec.label ?? null, task: spec.task, access: spec.access, config: JSON.stringify(spec), now: this.#clock.now(), images: imagesColumn(images), imageCount: images.length },
      );
      return toRecord(row!);
    });
  }

  async get(group: string, id: string): Promise<DurableChildRecord> {
    // Decoded inside the read, so a damaged row is STORE_CORRUPT naming the store (as every read of it is).
    const [record] = await this.#store.withRead(async (sql) => (await sql.all<ChildRow>(`SELECT ${CHILD_COLUMNS} FROM claw_children WHERE group_name = :group AND id = :id`, { group, id })).map(toRecord));
    if (!record) throw new XdogError(ErrorCodes.NOT_FOUND, `no child "${id}" in group ${group}`, { hint: `xdog claw agents list --group ${group}` });
    return record;
  }

  /** The group's children, oldest first. */
  async list(group: string): Promise<DurableChildRecord[]> {
    return this.#store.withRead(async (sql) => (await sql.all<ChildRow>(`SELECT ${CHILD_COLUMNS} FROM claw_children WHERE group_name = :group ORDER BY created_at, id`, { group })).map(toRecord));
  }

  /** Journals an input for a running child; the caller acknowledges it only after this resolves. */
  async journalInput(group: string, id: string, lane: ChildInputRecord['lane'], text: string, images: readonly ImageContent[] = []): Promise<ChildInputRecord> {
    return this.#store.withTransaction(async (sql) => {
      await this.#requireRunning(sql, group, id);
      const [row] = await sql.all<InputRow>(
        `INSERT INTO claw_child_inputs (child_id, lane, text, status, created_at, consumed_at, images, image_count) VALUES (:id, :lane, :text, 'accepted', :now, NULL, :images, :imageCount)
         RETURNING ${INPUT_COLUMNS}`,
        { id, lane, text, now: this.#clock.now(), images: imagesColumn(images), imageCount: images.length },
      );
      // The id is unique, so positions stay unique however moves swap them.
      await sql.run('UPDATE claw_child_inputs SET position = id WHERE id = :input', { input: row!.id });
      return toInput(row!);
    });
  }

  /**
   * Records a client's edit, removal or move of an input still `accepted`,
   * and answers the rows it touched as they were, for `restoreInput` if the
   * live queue refuses the change (the child took the input in meanwhile).
   * A move swaps places with the nearest input of the lane still accepted.
   */
  async reviseInput(group: string, id: string, inputId: number, change: ChildInputChange): Promise<ChildInputRevision> {
    return this.#store.withTransaction(async (sql) => {
      await this.#requireRunning(sql, group, id);
      const [row] = await sql.all<InputRow>(`SELECT ${INPUT_COLUMNS} FROM claw_child_inputs WHERE child_id = :id AND id = :input`, { id, input: inputId });
      if (!row) throw new XdogError(ErrorCodes.NOT_FOUND, `child ${id} has no input #${inputId}`, { hint: `see its inputs with xdog claw agents inspect ${id}` });
      if (row.status !== 'accepted') throw inputTaken(id, inputId, row.status);
      const touched = [row];
      if ('remove' in change) await sql.run(`UPDATE claw_child_inputs SET status = 'removed' WHERE child_id = :id AND id = :input`, { id, input: inputId });
      else if ('text' in change) await sql.run('UPDATE claw_child_inputs SET text = :text WHERE child_id = :id AND id = :input', { id, input: inputId, text: change.text });
      else {
        const neighbour = await this.#neighbour(sql, id, row, change.move);
        await setPosition(sql, Number(row.id), positionOf(neighbour));
        await setPosition(sql, Number(neighbour.id), positionOf(row));
        touched.push(neighbour);
      }
      return { rows: touched.map((touchedRow) => ({ id: Number(touchedRow.id), text: touchedRow.text, status: touchedRow.status as ChildInputStatus, position: positionOf(touchedRow) })) };
    });
  }

  /** The input of `row`'s lane still accepted just before (-1) or after (+1) it. */
  async #neighbour(sql: Sql, id: string, row: InputRow, by: -1 | 1): Promise<InputRow> {
    const lane = await sql.all<InputRow>(`SELECT ${INPUT_COLUMNS} FROM claw_child_inputs WHERE child_id = :id AND lane = :lane AND status = 'accepted' ORDER BY ${INPUT_ORDER}`, { id, lane: row.lane });
    const neighbour = lane[lane.findIndex((candidate) => Number(candidate.id) === Number(row.id)) + by];
    if (!neighbour) {
      const laneName = row.lane === 'steer' ? 'steers' : 'follow-ups';
      throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `input #${Number(row.id)} is already the ${by < 0 ? 'first' : 'last'} of child ${id}'s queued ${laneName}`, {
        hint: `move it ${by < 0 ? 'down' : 'up'} instead; see the queue with xdog claw agents inspect ${id}`,
      });
    }
    return neighbour;
  }

  /** Undoes `reviseInput`: texts and places back, and a removal taken back unless the input was marked consumed since. */
  async restoreInput(id: string, previous: ChildInputRevision): Promise<void> {
    await this.#store.withTransaction(async (sql) => {
      for (const row of previous.rows) {
        await sql.run('UPDATE claw_child_inputs SET text = :text WHERE child_id = :id AND id = :input', { id, input: row.id, text: row.text });
        await setPosition(sql, row.id, row.position);
        if (row.status === 'accepted') await sql.run(`UPDATE claw_child_inputs SET status = 'accepted' WHERE child_id = :id AND id = :input AND status = 'removed'`, { id, input: row.id });
      }
    });
  }

  /** Marks journaled inputs consumed (before the model call that sees them). */
  async markConsumed(id: string, inputIds: readonly number[]): Promise<void> {
    if (inputIds.length === 0) return;
    await this.#store.withTransaction(async (sql) => {
      for (const inputId of inputIds) {
        // `removed` too: a removal the live queue refused (the input was taken in) is being restored.
        await sql.run(`UPDATE claw_child_inputs SET status = 'consumed', consumed_at = :now WHERE child_id = :id AND id = :input AND status IN ('accepted', 'removed')`, { id, input: inputId, now: this.#clock.now() });
      }
    });
  }

  /** The images of the child's task, as the model got them. */
  async taskImages(group: string, id: string): Promise<ImageContent[]> {
    await this.get(group, id);
    const [row] = await this.#store.withRead((sql) => sql.all<{ task_images: string | null }>('SELECT task_images FROM claw_children WHERE id = :id', { id }));
    return row?.task_images ? storedJson<ImageContent[]>(row.task_images, () => `child ${id}: the stored task images`) : [];
  }

  /** The images of one journaled input (kept whatever its status, so a removed or uncertain input can be recovered whole). */
  async inputImages(group: string, id: string, inputId: number): Promise<ImageContent[]> {
    await this.get(group, id);
    const [row] = await this.#store.withRead((sql) => sql.all<{ images: string | null }>('SELECT images FROM claw_child_inputs WHERE child_id = :id AND id = :input', { id, input: inputId }));
    if (!row) throw new XdogError(ErrorCodes.NOT_FOUND, `child ${id} has no input #${inputId}`, { hint: `see its inputs with xdog claw agents inspect ${id}` });
    return row.images ? storedJson<ImageContent[]>(row.images, () => `child ${id}: the stored images of input #${inputId}`) : [];
  }

  async inputs(group: string, id: string): Promise<ChildInputRecord[]> {
    await this.get(group, id);
    const rows = await this.#store.withRead((sql) => sql.all<InputRow>(`SELECT ${INPUT_COLUMNS} FROM claw_child_inputs WHERE child_id = :id ORDER BY ${INPUT_ORDER}`, { id }));
    return rows.map(toInput);
  }

  /** One model call of the child: a usage ledger row (the parent's session, if any) linked to the child, and its counters. */
  async recordUsage(child: DurableChildRecord, call: { model: string; usage: Usage; cost: number | null; durationMs: number }): Promise<void> {
    const row = checkUsage({ group: child.group, sessionId: child.parentSessionId, model: call.model, usage: call.usage, cost: call.cost, durationMs: call.durationMs, at: this.#clock.now(), origin: { kind: 'child', id: child.id } });
    await this.#store.withTransaction(async (sql) => {
      const usageId = await insertUsage(sql, row);
      await sql.run('INSERT INTO claw_child_usage (usage_id, child_id) VALUES (:usageId, :id)', { usageId, id: child.id });
      await sql.run('UPDATE claw_children SET model_calls = model_calls + 1, tokens = tokens + :tokens WHERE id = :id', { id: child.id, tokens: call.usage.input + call.usage.output });
    });
  }

  /** The child's usage ledger totals. */
  async usage(group: string, id: string): Promise<{ calls: number; input: number; output: number }> {
    await this.get(group, id);
    const [row] = await this.#store.withRead((sql) =>
      sql.all<{ calls: number | string; input: number | string | null; output: number | string | null }>(
        `SELECT COUNT(*) AS calls, SUM(u.input_tokens) AS input, SUM(u.output_tokens) AS output
         FROM claw_child_usage c JOIN claw_usage u ON u.id = c.usage_id WHERE c.child_id = :id`,
        { id },
      ),
    );
    return { calls: Number(row?.calls ?? 0), input: Number(row?.input ?? 0), output: Number(row?.output ?? 0) };
  }

  /** Records how a running child ended, with its final transcript in chunks. A child already ended keeps its first ending. */
  async finish(id: string, end: ChildEnd): Promise<DurableChildRecord> {
    const chunks = chunkText(JSON.stringify(end.transcript));
    return this.#store.withTransaction(async (sql) => {
      const changed = await sql.run(
        `UPDATE claw_children SET status = :status, result = :result, error = :error, transcript_chunks = :chunks, ended_at = :now WHERE id = :id AND status = 'running'`,
        { id, status: end.status, result: end.result, error: end.error, chunks: chunks.length, now: this.#clock.now() },
      );
      if (changed === 1) {
        for (const [seq, body] of chunks.entries()) await sql.run('INSERT INTO claw_child_transcript_chunks (child_id, seq, body) VALUES (:id, :seq, :body)', { id, seq, body });
      }
      const [row] = await sql.all<ChildRow>(`SELECT ${CHILD_COLUMNS} FROM claw_children WHERE id = :id`, { id });
      return toRecord(row!);
    });
  }

  /** The child's final transcript (empty while it runs, or if it was interrupted). */
  async transcript(group: string, id: string): Promise<Message[]> {
    await this.get(group, id);
    return this.#store.withRead(async (sql) => {
      const rows = await sql.all<{ body: string }>('SELECT body FROM claw_child_transcript_chunks WHERE child_id = :id ORDER BY seq', { id });
      return rows.length === 0 ? [] : storedJson<Message[]>(rows.map((row) => row.body).join(''), () => `child ${id}: the stored transcript`);
    });
  }

  /**
   * Keeps a running child's complete history before its compaction number
   * `generation`; the compaction asks for its summary only after this
   * resolves. A failed compaction's retry has the same number and replaces
   * that archive (its history only grew). Over the size limit nothing is
   * written and the compaction fails (LIMIT_EXCEEDED).
   */
  async archiveCompaction(id: string, generation: number, messages: readonly Message[]): Promise<ChildCompactionArchive> {
    const json = JSON.stringify(messages);
    const bytes = Buffer.byteLength(json);
    if (bytes > LIMITS.childCompactionArchiveBytes) {
      throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `child ${id}: its history before compaction #${generation} is ${bytes} bytes of JSON, over the ${LIMITS.childCompactionArchiveBytes}-byte archive limit, so it was not archived and not compacted`, {
        hint: 'the child goes on with its full history; give it a smaller task, or fewer tools with large results',
      });
    }
    return this.#store.withTransaction(async (sql) => {
      const [row] = await sql.all<{ status: string }>('SELECT status FROM claw_children WHERE id = :id', { id });
      if (!row) throw new XdogError(ErrorCodes.NOT_FOUND, `no child "${id}" to archive a compaction of`);
      if (row.status !== 'running') throw new XdogError(ErrorCodes.INVALID_STATE, `child ${id} is ${row.status}; only a running child compacts`);
      await sql.run('DELETE FROM claw_child_compaction_archives WHERE child_id = :id AND generation = :generation', { id, generation });
      const [stored] = await sql.all<ArchiveRow>(
        `INSERT INTO claw_child_compaction_archives (child_id, generation, messages, message_count, bytes, created_at) VALUES (:id, :generation, :json, :count, :bytes, :now)
         RETURNING generation, message_count, bytes, created_at`,
        { id, generation, json, count: messages.length, bytes, now: this.#clock.now() },
      );
      return toArchive(stored!);
    });
  }

  /** The child's compaction archives, oldest first (what they hold, without the messages). */
  async compactionArchives(group: string, id: string): Promise<ChildCompactionArchive[]> {
    await this.get(group, id);
    const rows = await this.#store.withRead((sql) =>
      sql.all<ArchiveRow>('SELECT generation, message_count, bytes, created_at FROM claw_child_compaction_archives WHERE child_id = :id ORDER BY generation', { id }),
    );
    return rows.map(toArchive);
  }

  /** One archive with the complete history it kept; a missing generation is NOT_FOUND naming those kept. */
  async compactionArchive(group: string, id: string, generation: number): Promise<ChildCompactionArchive & { messages: Message[] }> {
    await this.get(group, id);
    const [found] = await this.#store.withRead(async (sql) =>
      (
        await sql.all<ArchiveRow & { messages: string }>('SELECT generation, message_count, bytes, created_at, messages FROM claw_child_compaction_archives WHERE child_id = :id AND generation = :generation', { id, generation })
      ).map((row) => ({ ...toArchive(row), messages: storedJson<Message[]>(row.messages, () => `child ${id}: compaction archive #${generation}`) })),
    );
    if (!found) {
      const kept = (await this.compactionArchives(group, id)).map((archive) => archive.generation);
      throw new XdogError(ErrorCodes.NOT_FOUND, `child ${id} has no compaction archive #${generation}`, { hint: kept.length ? `its archives: ${kept.map((n) => `#${n}`).join(', ')}` : 'it has not compacted' });
    }
    return found;
  }

  /** Forgets an ended child with its inputs, transcript, compaction archives and usage links (the ledger rows stay). */
  async close(group: string, id: string): Promise<void> {
    await this.#store.withTransaction(async (sql) => {
      const [row] = await sql.all<{ status: string }>('SELECT status FROM claw_children WHERE group_name = :group AND id = :id', { group, id });
      if (!row) throw new XdogError(ErrorCodes.NOT_FOUND, `no child "${id}" in group ${group}`, { hint: `xdog claw agents list --group ${group}` });
      if (row.status === 'running') throw new XdogError(ErrorCodes.BUSY, `child ${id} is still running`, { hint: `cancel it first: xdog claw agents cancel ${id}` });
      await removeChild(sql, id);
    });
  }

  /** Removes the record of a spawn that was refused after it was written: it never ran, so it is no child. */
  async discard(id: string): Promise<void> {
    await this.#store.withTransaction((sql) => removeChild(sql, id));
  }

  /** Marks every child still "running" in these groups interrupted, and its accepted inputs uncertain. Answers the ids. */
  async recoverInterrupted(groups: readonly string[]): Promise<string[]> {
    if (groups.length === 0) return [];
    return this.#store.withTransaction(async (sql) => {
      const ids: string[] = [];
      for (const group of groups) {
        const rows = await sql.all<{ id: string }>(`SELECT id FROM claw_children WHERE group_name = :group AND status = 'running'`, { group });
        for (const { id } of rows) {
          await sql.run(`UPDATE claw_child_inputs SET status = 'uncertain' WHERE child_id = :id AND status = 'accepted'`, { id });
          await sql.run(`UPDATE claw_children SET status = 'interrupted', error = :error, ended_at = :now WHERE id = :id`, {
            id,
            error: 'the gateway stopped while this child ran; it is not run again',
            now: this.#clock.now(),
          });
          ids.push(id);
        }
      }
      return ids;
    });
  }

  /** How many of the group's children are running (in the store, whichever process runs them). */
  async runningCount(group: string): Promise<number> {
    const [row] = await this.#store.withRead((sql) => sql.all<{ count: number | string }>(`SELECT COUNT(*) AS count FROM claw_children WHERE group_name = :group AND status = 'running'`, { group }));
    return Number(row?.count ?? 0);
  }

  async #requireRunning(sql: Sql, group: string, id: string): Promise<void> {
    const [row] = await sql.all<{ status: string }>('SELECT status FROM claw_children WHERE group_name = :group AND id = :id', { group, id });
    if (!row) throw new XdogError(ErrorCodes.NOT_FOUND, `no child "${id}" in group ${group}`, { hint: `xdog claw agents list --group ${group}` });
    if (row.status !== 'running') throw new XdogError(ErrorCodes.INVALID_STATE, `child ${id} is ${row.status}, not running`, { hint: 'steer and follow-up reach only a running child' });
  }
}

/** An input the child's model already took in (or that was removed or is uncertain) cannot be changed. */
function setPosition(sql: Sql, inputId: number, position: number): Promise<unknown> {
  return sql.run('UPDATE claw_child_inputs SET position = :position WHERE id = :input', { input: inputId, position });
}

/** A move the live queue refused: the input it would pass was taken in meanwhile. */
export function neighbourTaken(id: string, inputId: number): XdogError {
  return new XdogError(ErrorCodes.INVALID_STATE, `input #${inputId} of child ${id} cannot move past an input the child is taking in; nothing changed`, {
    hint: 'see the queue again with xdog claw agents inspect, then move it if it still needs to',
  });
}

export function inputTaken(id: string, inputId: number, status: string): XdogError {
  return new XdogError(ErrorCodes.INVALID_STATE, `input #${inputId} of child ${id} is ${status === 'accepted' ? 'being taken in by the child' : status}; it can no longer be changed`, {
    hint: 'send a new steer or follow-up instead',
  });
}

/** Deletes a child's record with its inputs, transcript, compaction archives and usage links (the ledger rows stay). */
async function removeChild(sql: Sql, id: string): Promise<void> {
  await sql.run('DELETE FROM claw_child_usage WHERE child_id = :id', { id });
  await sql.run('DELETE FROM claw_child_transcript_chunks WHERE child_id = :id', { id });
  await sql.run('DELETE FROM claw_child_compaction_archives WHERE child_id = :id', { id });
  await sql.run('DELETE FROM claw_child_inputs WHERE child_id = :id', { id });
  await sql.run('DELETE FROM claw_children WHERE id = :id', { id });
}
