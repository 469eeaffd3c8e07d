/**
 * The channel state port on the claw store: one `claw_channel_state` row per
 * channel id, replaced in one statement (an upsert both SQLite and
 * PostgreSQL run), on the store's serialized connection.
 */
import { LIMITS, assertWithinLimit, utf8Bytes, type Clock } from '../../core/index.js';
import type { SessionStore } from '../sessions/tokens.js';
import type { ChannelStatePort } from './contract.js';

export function storedChannelState(store: SessionStore, clock: Clock, channel: { id: string; type: string }): ChannelStatePort {
  return {
    async load() {
      const [row] = await store.withRead((sql) => sql.all<{ type: string; state: string }>('SELECT type, state FROM claw_channel_state WHERE channel_id = :id', { id: channel.id }));
      // A channel id reused for another type starts fresh: the old type's cursor means nothing to it.
      return row && row.type === channel.type ? row.state : undefined;
    },
    async save(state) {
      assertWithinLimit(`the state of channel ${channel.id}`, utf8Bytes(state), LIMITS.channelStateBytes);
      await store.withTransaction((sql) =>
        sql.run(
          'INSERT INTO claw_channel_state (channel_id, type, state, updated_at) VALUES (:id, :type, :state, :now) ' +
            'ON CONFLICT (channel_id) DO UPDATE SET type = excluded.type, state = excluded.state, updated_at = excluded.updated_at',
          { id: channel.id, type: channel.type, state, now: clock.now() },
        ),
      );
    },
  };
}
