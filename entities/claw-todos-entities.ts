/**
 * The todo list of each claw session (plugins/todos): one row per session
 * that has one, replaced whole by `todo_write`. Portable column types
 * (SQLite and PostgreSQL).
 */
import { EntitySchema } from 'typeorm';
import { bigintNumber } from './columns.js';

export interface ClawTodosRow {
  sessionId: string;
  /** The items as a JSON array of { text, status }, in order. */
  items: string;
  /** Counts the writes (1 after the first). */
  revision: number;
  /** Epoch ms of the last write (the gateway clock). */
  updatedAt: number;
}

export const ClawTodosEntity = new EntitySchema<ClawTodosRow>({
  name: 'ClawTodos',
  tableName: 'claw_todos',
  columns: {
    sessionId: { name: 'session_id', type: 'varchar', length: 36, primary: true },
    items: { type: 'text' },
    revision: { type: 'integer' },
    updatedAt: { name: 'updated_at', type: 'bigint', transformer: bigintNumber },
  },
  foreignKeys: [{ target: 'ClawSession', columnNames: ['session_id'], referencedColumnNames: ['id'], name: 'fk_claw_todos_session', onDelete: 'CASCADE' }],
});

export const CLAW_TODOS_ENTITIES = [ClawTodosEntity];
