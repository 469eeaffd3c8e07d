/**
 * Gateway services: the extension point of the gateway. A plugin binds a
 * `GatewayService` to `GatewayServiceContribution` in the process kernel;
 * the gateway starts it after every group loaded and before it serves
 * clients, adds its protocol methods and capability flags, and stops it
 * (in reverse order) before the groups close. The scheduler, memory,
 * channels, extensions and children are services; a third party's channel
 * is one the same way (docs/claw-services.md).
 *
 * Group kernels get `ClawGroupToken`, so a plugin's tool factory can tell
 * which group (and store) it serves; outside claw it is not bound.
 */
import type { DataSource } from 'typeorm';
import type { z } from 'zod';
import { token, type Clock, type GatewayHooks, type ImageContent, type Kernel } from '../../core/index.js';
import type { SessionStore } from '../sessions/tokens.js';
import type { GroupRuntime } from './group-runtime.js';
import type { Subscriber } from './subscriptions.js';
import type { Wakeups } from './wakeups.js';
import type { RpcJob } from '../../core/rpc/index.js';
import type { GatewayLocations } from './locations.js';
import type { ImageOrUpload } from './uploads.js';

/** The connection a method call came from (for subscriptions and per-client state). */
export type MethodConnection = Subscriber;

/** One protocol method a service adds: its params schema and its handler (params already validated). */
export interface GatewayMethod<S extends z.ZodType = z.ZodType> {
  params: S;
  /** `job.signal` fires when the client cancels the request (`jobs.cancel`, cancellable methods only) or its connection closes. */
  handle(params: z.infer<S>, connection: MethodConnection, job: RpcJob): Promise<unknown> | unknown;
  /** The method only reads or waits, so a client may cancel it (`jobs.cancel`): it is answered ABORTED at once and should stop its work on `job.signal`. */
  cancellable?: boolean;
}

/** Declares a method with its params typed from the schema; `cancellable` for a read or a wait (never a change). */
export function gatewayMethod<S extends z.ZodType>(
  params: S,
  handle: (params: z.infer<S>, connection: MethodConnection, job: RpcJob) => Promise<unknown> | unknown,
  options: { cancellable?: boolean } = {},
): GatewayMethod<S> {
  return { params, handle, ...(options.cancellable ? { cancellable: true } : {}) };
}

/** What a service sees of the gateway that started it. */
export interface GatewayHost {
  /** The process kernel (config, installed plugins, clock). */
  readonly kernel: Kernel;
  readonly store: SessionStore;
  /** The store's DataSource: a service's own tables live beside the sessions (same migrations list). */
  readonly dataSource: DataSource;
  readonly clock: Clock;
  readonly hooks: GatewayHooks<GroupRuntime>;
  readonly groups: ReadonlyMap<string, GroupRuntime>;
  /** The named group, else the default one; NOT_FOUND / INVALID_ARGUMENT with a hint otherwise. */
  group(name: string | undefined): GroupRuntime;
  /**
   * True when a client following `group` may have `feature` (a client feature
   * of its hello): one subscribed here declared it, or clients on another
   * worker follow the group (their features are not known here, so they count).
   */
  followedWith(group: string, feature: string): boolean;
  /** Sends a notification to the connections subscribed to a group (and session, when given). */
  publish(group: string, sessionId: string | null, method: string, params: unknown): void;
  log(line: string): void;
  /** Where this gateway keeps its socket, token and state (a service that is a client of the gateway connects there). */
  readonly locations: GatewayLocations;
  /** An input's images as the model gets them: inline ones checked, uploads of `connection` finished and verified, and used up (`upload:1`). */
  inputImages(connection: MethodConnection, images: readonly ImageOrUpload[]): ImageContent[];
  /** Worker mode: wake-ups to and from the other workers (LISTEN/NOTIFY on PostgreSQL); absent on a single gateway. */
  readonly wakeups?: Wakeups;
}

export interface GatewayService {
  /** Unique among services; used in messages. */
  readonly name: string;
  /** Capability flags (`name:version`) added to the `hello` answer. */
  readonly capabilities?: readonly string[];
  /** Protocol methods; a name the gateway or another service already has fails the start. */
  readonly methods?: Readonly<Record<string, GatewayMethod>>;
  /** Starts owned work (timers, listeners). A failure fails the gateway's start. */
  start?(host: GatewayHost): Promise<void> | void;
  /** The gateway is stopping and is about to end its runs: take no new work (stop follows). Must not throw. */
  stopping?(): void;
  /** Stops it; the gateway waits for it before it closes the groups. */
  stop?(): Promise<void> | void;
}

export const GatewayServiceContribution = token<GatewayService>('claw.GatewayService');

/** What a service does as the gateway's groups come and go. */
export interface GroupFollower {
  /** A group the gateway now serves (loaded, not yet given to clients when the gateway starts). */
  ready(group: GroupRuntime): Promise<void> | void;
  /** The gateway gives the group up (see the `groupClosing` hook); stop feeding it. */
  closing?(group: GroupRuntime): Promise<void> | void;
}

/**
 * Follows the gateway's groups: `ready` for each group served now, then for
 * each group it takes later (a worker's groups change while it runs), and
 * `closing` for each it gives up. Call it from `start(host)`.
 */
export async function followGroups(host: GatewayHost, name: string, follower: GroupFollower): Promise<void> {
  for (const group of host.groups.values()) await follower.ready(group);
  host.hooks.groupReady.tapPromise(name, async (group) => follower.ready(group));
  if (follower.closing) host.hooks.groupClosing.tapPromise(name, async (group) => follower.closing!(group));
}

/** What a group kernel knows of the group it serves. */
export interface ClawGroupContext {
  name: string;
  /** The absolute workspace directory. */
  workspace: string;
  store: SessionStore;
  dataSource: DataSource;
  clock: Clock;
}

export const ClawGroupToken = token<ClawGroupContext>('claw.Group');

/** The tool-context key under which a group's agents tell their tools the session they run in (a session id string). */
export const CLAW_SESSION_TOOL_CTX = 'claw_session_id';
