/** What the gateway answers to the methods the CLI calls that have no named type in the protocol (docs/protocol.md). */
import type { Checkpoint, SessionRecord, SessionState } from '../../../plugins/sessions/types.js';

/** `session.show`. */
export interface SessionShow {
  session: SessionRecord;
  state: SessionState;
  checkpoints: Checkpoint[];
}
