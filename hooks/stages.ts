/**
 * tapable stages with a meaning. Taps run in ascending stage order (default 0).
 */

/**
 * Host policy gates on `beforeToolCall` (read-only scope, plan mode) run at
 * this stage, after every ordinary tap, so they judge the arguments as any
 * earlier tap rewrote them: a rewrite cannot slip past the gate.
 */
export const POLICY_GATE_STAGE = 1000;

/**
 * The approval policy on `beforeToolCall` runs after the policy gates: what
 * read-only scope or plan mode deny is denied before anyone is asked, so an
 * approval never grants what they deny.
 */
export const APPROVAL_STAGE = 1100;

/**
 * The claw session writer's barrier on `beforeToolCall` (the assistant
 * message that asked for the call is stored before it runs) runs after the
 * gates and the approval policy: an approval asked for a call then commits
 * in the same transaction as that message.
 */
export const STORE_BARRIER_STAGE = 2000;
