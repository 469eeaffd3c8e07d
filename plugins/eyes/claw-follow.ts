/**
 * The claw side of Eyes: a gateway service that delivers the observations of
 * followed watches (`xdog claw eyes follow ID`) to the groups this gateway
 * serves, each as one system input to the group's active session, like a
 * scheduled run. The daemon's `claim` moves a group's cursor past an
 * observation before it is delivered, so none is ever delivered twice (a
 * delivery cut by a crash is lost, never replayed). The service never starts
 * the daemon: while none runs there is nothing to deliver.
 */
import fs from 'node:fs';
import { describeError } from '../../core/errors.js';
import type { GatewayHost, GatewayService, GroupRuntime } from '../claw-gateway/tokens.js';
import type { EyesClient } from './client.js';
import { eyesLocations } from './locations.js';
import type { ObservationRecord } from './protocol.js';

/** How often the service asks the daemon for new observations. */
const POLL_MS = 2000;

type Claimed = ObservationRecord & { label: string | null; kind: string; subject: string };

/** The system input an observation becomes. */
export function observationInput(observation: Claimed): string {
  const what = observation.label ?? `${observation.kind.replace('_', ' ')} ${observation.subject}`;
  const lines = [`[eyes observation ${observation.id} of watch ${observation.watch_id} (${what}) at ${new Date(observation.at).toISOString()}]`, observation.summary];
  if (observation.diff) lines.push('', observation.diff);
  if (observation.screenshot) lines.push('', '(the new screenshot is in the watch\'s observations: xdog eyes list)');
  return lines.join('\n');
}

export class EyesFollowService implements GatewayService {
  readonly name = 'eyes-follow';
  #host: GatewayHost | undefined;
  #timer: NodeJS.Timeout | undefined;
  #client: EyesClient | undefined;
  /** Groups with a delivery running: one observation at a time per group, in order. */
  readonly #busy = new Set<string>();
  #stopping = false;

  start(host: GatewayHost): void {
    this.#host = host;
    this.#timer = setInterval(() => void this.#poll(), POLL_MS);
    this.#timer.unref();
  }

  stopping(): void {
    this.#stopping = true;
  }

  async stop(): Promise<void> {
    this.#stopping = true;
    clearInterval(this.#timer);
    await this.#client?.close().catch(() => undefined);
    this.#client = undefined;
  }

  async #poll(): Promise<void> {
    const host = this.#host;
    if (!host || this.#stopping || !fs.existsSync(eyesLocations().socket)) return;
    const client = await this.#connect();
    if (!client) return;
    for (const group of host.groups.values()) {
      if (this.#busy.has(group.name)) continue;
      this.#busy.add(group.name);
      void this.#deliver(client, group).finally(() => this.#busy.delete(group.name));
    }
  }

  async #connect(): Promise<EyesClient | undefined> {
    if (this.#client) return this.#client;
    try {
      const { connectEyes } = await import('./client.js');
      const client = await connectEyes({ client: 'claw gateway (eyes follow)' });
      this.#client = client;
      return client;
    } catch {
      return undefined; // No daemon now; the next poll asks again.
    }
  }

  /** Claims and delivers this group's observations, oldest first, until none is left. */
  async #deliver(client: EyesClient, group: GroupRuntime): Promise<void> {
    while (!this.#stopping) {
      let observation: Claimed | null;
      try {
        observation = (await client.call('claim', { group: group.name })) as Claimed | null;
      } catch (error) {
        this.#host?.log(`eyes: asking for observations of group ${group.name} failed: ${describeError(error)}`);
        await this.#client?.close().catch(() => undefined);
        this.#client = undefined;
        return;
      }
      if (!observation) return;
      try {
        const result = await group.runSystem({ text: observationInput(observation), source: { kind: 'system', origin: 'eyes', id: `observation-${observation.id}`, name: observation.label ?? observation.watch_id } });
        if (result.status !== 'completed') this.#host?.log(`eyes: observation ${observation.id} ran in group ${group.name} with status ${result.status}${result.errorMessage ? `: ${result.errorMessage}` : ''}`);
      } catch (error) {
        // Claimed, so never retried: say so in the log.
        this.#host?.log(`eyes: observation ${observation.id} was not delivered to group ${group.name} (it is not retried): ${describeError(error)}`);
      }
    }
  }
}
