/** What the gateway answers to the methods the CLI calls (protocol v1; docs/protocol.md). */
import type { GroupStatus } from '../../../plugins/claw-gateway/protocol.js';
import type { Checkpoint, SessionRecord, SessionState, TreeNode, UsageTotals } from '../../../plugins/sessions/types.js';

export interface SessionShow {
  session: SessionRecord;
  state: SessionState;
  checkpoints: Checkpoint[];
}

export interface SessionTree {
  session: SessionRecord;
  tree: TreeNode[];
}

/** What a navigation (new, resume, fork, branch, goto) answers: the group afterwards and its active session. */
export interface NavigationResult {
  group: GroupStatus;
  session: SessionRecord;
}

export interface SessionList {
  sessions: SessionRecord[];
}

export interface UsageSummary {
  totals: UsageTotals[];
}
