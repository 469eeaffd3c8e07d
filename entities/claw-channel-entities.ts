/**
 * The channels' own state (plugins/channels): one small row per configured
 * channel, which its transport reads at start and replaces as it goes (for
 * WeChat, the long-poll cursor), so a restart neither fetches again what was
 * taken nor skips what was not. Portable column types (SQLite and PostgreSQL).
 */
import { EntitySchema } from 'typeorm';
import { bigintNumber } from './columns.js';

export interface ClawChannelStateRow {
  /** The channel id (the key under `claw.channels`). */
  channelId: string;
  /** The channel type that wrote it: a row another type wrote is not handed to a new one. */
  type: string;
  /** Opaque to the store (the transport's own format), bounded by LIMITS.channelStateBytes. */
  state: string;
  updatedAt: number;
}

export const ClawChannelStateEntity = new EntitySchema<ClawChannelStateRow>({
  name: 'ClawChannelState',
  tableName: 'claw_channel_state',
  columns: {
    channelId: { name: 'channel_id', type: 'varchar', length: 64, primary: true },
    type: { type: 'varchar', length: 64 },
    state: { type: 'text' },
    updatedAt: { name: 'updated_at', type: 'bigint', transformer: bigintNumber },
  },
});

export const CLAW_CHANNEL_ENTITIES = [ClawChannelStateEntity];
