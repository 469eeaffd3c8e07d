/**
 * The read-only access scope: a host-owned switch that narrows what an
 * agent's tools may do. Only the host changes it (a user command such as
 * `xdog claw readonly on`); no model, skill, tool annotation or extension
 * can. The gate asks the scope on every tool call, so a change takes effect
 * exactly when the host's copy (in claw: the store row) changed.
 */
import type { AccessMode } from '../sessions/tokens.js';

export type { AccessMode };

/** Where a gate reads the current mode. */
export interface AccessScope {
  /** The current mode; rejects when it cannot be read, and the gate then denies (fail closed). */
  mode(): Promise<AccessMode>;
}

/** A scope held in memory, for SDK hosts with no store (e.g. `xdog agent chat --read-only`). */
export class MemoryAccessScope implements AccessScope {
  #mode: AccessMode;

  constructor(mode: AccessMode = 'full') {
    this.#mode = mode;
  }

  async mode(): Promise<AccessMode> {
    return this.#mode;
  }

  /** Host-side only: never hand this object to a tool or a model-facing API. */
  set(mode: AccessMode): void {
    this.#mode = mode;
  }
}
