/**
 * The Eyes daemon's protocol: JSON-RPC methods over the shared socket
 * transport (core/rpc), their params (validated by the daemon) and results.
 * Every call carries the caller's policy where it matters: the workspace
 * that bounds `file://` pages and watched paths.
 */
import { z } from 'zod';
import { LIMITS } from '../../core/limits.js';

export const EYES_PROTOCOL_VERSION = 1;

const TargetName = z.string().regex(/^[A-Za-z0-9][\w.-]{0,63}$/, 'must be 1-64 letters, digits, ".", "_" or "-"');
const Workspace = z.string().min(1).max(4096).refine((value) => value.startsWith('/'), 'must be an absolute path');

export const Viewport = z
  .object({ width: z.number().int().min(16).max(LIMITS.eyesViewportMax), height: z.number().int().min(16).max(LIMITS.eyesViewportMax) })
  .strict();

export const LookParams = z
  .object({
    target: TargetName.default('main'),
    url: z.string().min(1).max(8192).optional(),
    viewport: Viewport.optional(),
    full_page: z.boolean().optional(),
    selector: z.string().min(1).max(1024).optional(),
    workspace: Workspace,
    /** The largest PNG the caller's model takes, in bytes. */
    max_bytes: z.number().int().positive().optional(),
  })
  .strict();

export const ReadParams = z
  .object({
    target: TargetName.default('main'),
    url: z.string().min(1).max(8192).optional(),
    format: z.enum(['text', 'outline']).default('text'),
    selector: z.string().min(1).max(1024).optional(),
    workspace: Workspace,
  })
  .strict();

export const TargetParams = z.object({ target: TargetName.default('main') }).strict();

export const WatchParams = z
  .object({
    kind: z.enum(['page_text', 'page_screenshot', 'file', 'command']),
    /** A URL (page kinds), a path under the workspace (file), or a shell command run in the workspace (command). */
    subject: z.string().min(1).max(8192),
    interval_seconds: z.number().int().min(LIMITS.eyesWatchMinIntervalSeconds).max(LIMITS.eyesWatchMaxIntervalSeconds),
    /** Only a change whose new content matches this (linear-time) regular expression is an observation. */
    matches: z.string().min(1).max(1024).optional(),
    selector: z.string().min(1).max(1024).optional(),
    label: z.string().max(200).optional(),
    workspace: Workspace,
  })
  .strict();

export const WatchIdParams = z.object({ id: z.string().regex(/^w_[0-9a-f]{12}$/, 'must be a watch id such as w_0123456789ab') }).strict();

export const ObservationsParams = z
  .object({ id: WatchIdParams.shape.id.optional(), after: z.number().int().min(0).default(0), limit: z.number().int().min(1).max(100).default(20) })
  .strict();

export const FollowParams = z.object({ id: WatchIdParams.shape.id, group: z.string().min(1).max(64) }).strict();

/** Claims the next observation of one follow for delivery: the cursor moves before the group sees it (never twice). */
export const ClaimParams = z.object({ group: z.string().min(1).max(64) }).strict();

/** A watch as the daemon reports it. */
export interface WatchRecord {
  id: string;
  kind: z.infer<typeof WatchParams>['kind'];
  subject: string;
  interval_seconds: number;
  matches: string | null;
  selector: string | null;
  label: string | null;
  workspace: string;
  created_at: number;
  last_check_at: number | null;
  last_error: string | null;
  observations: number;
  followers: string[];
}

/** One observed change. */
export interface ObservationRecord {
  id: number;
  watch_id: string;
  at: number;
  summary: string;
  /** A bounded line diff (text kinds) or null. */
  diff: string | null;
  /** A PNG screenshot, base64 (page_screenshot), or null. */
  screenshot: string | null;
}

/** What `status` answers. */
export interface EyesStatus {
  pid: number;
  version: string;
  started_at: number;
  socket: string;
  store: string;
  allow_hosts: string[];
  browser: { running: boolean; pid: number | null };
  targets: Array<{ name: string; url: string; status: 'open' | 'crashed'; problem: string | null }>;
  watches: number;
}

export const EYES_METHODS = ['status', 'stop', 'look', 'read', 'console', 'close', 'watch', 'list', 'cancel', 'observations', 'follow', 'unfollow', 'claim'] as const;
export type EyesMethod = (typeof EYES_METHODS)[number];
