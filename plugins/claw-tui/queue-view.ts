/**
 * How the queues read on screen: the compact preview line above the editor
 * (the client's turns, each cut to a few words; the full text stays in the
 * queue), the `/queue` listing of the client's `qN` turns beside the
 * gateway's `iN` inputs, and the notices that say whether the queue is held.
 */
import type { QueuedTurn } from './input-queue.js';

/** One input waiting on the gateway (`queue.list`). */
export interface GatewayQueued {
  id: string;
  lane: string;
  text: string;
  images?: unknown[];
  state?: string;
}

const PREVIEW_CHARS = 32;

const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim();

function cut(text: string, length: number): string {
  const line = oneLine(text);
  return line.length > length ? `${line.slice(0, length - 1)}…` : line;
}

/** The line above the editor: `queued q1 first words… · q2 …` (empty when nothing waits). */
export function queuePreview(turns: readonly QueuedTurn[], held: boolean): string {
  if (!turns.length) return '';
  const items = turns.slice(0, 3).map((turn) => `${turn.id} ${cut(turn.text, PREVIEW_CHARS)}${turn.images.length ? ` [${turn.images.length} image(s)]` : ''}`);
  const more = turns.length > 3 ? ` · +${turns.length - 3} more` : '';
  return `queued ${items.join(' · ')}${more}${held ? ' · held: /queue resume sends them' : ''}`;
}

/** `/queue`: the gateway's inputs first (they run first), then the client's. */
export function queueListing(turns: readonly QueuedTurn[], gateway: readonly GatewayQueued[] | undefined, held: boolean): string {
  const lines: string[] = [];
  if (gateway === undefined) lines.push('gateway: (this gateway does not list its queue)');
  else if (!gateway.length) lines.push('gateway: nothing queued');
  else for (const input of gateway) lines.push(`${input.id} ${input.lane}${input.state ? ` (${input.state})` : ''} ${cut(input.text, 100)}${input.images?.length ? ` [${input.images.length} image(s)]` : ''}`);
  if (!turns.length) lines.push('client: the queue is empty');
  else {
    lines.push(`client${held ? ' (held: /queue resume sends them)' : ''}:`);
    for (const turn of turns) lines.push(`${turn.id} ${cut(turn.text, 100)}${turn.images.length ? ` [${turn.images.length} image(s)]` : ''}`);
  }
  return lines.join('\n');
}

/** The notice of a turn just queued, true about whether it will be sent by itself. */
export function queuedNotice(turn: QueuedTurn, size: number, held: boolean): string {
  return held ? `queued ${turn.id} (${size} waiting); the queue is held: /queue resume sends it` : `queued ${turn.id} (${size} waiting); it is sent when the running turn ends`;
}

/** What `/queue resume` says when there is nothing to resume, else undefined. */
export function resumeRefusal(size: number, held: boolean): string | undefined {
  if (!size) return 'the queue is empty; there is nothing to resume';
  if (!held) return `the queue is not held; its ${size} turn(s) are sent when the group is idle`;
  return undefined;
}

/** Texts that go back into the editor, oldest first, ahead of what is typed there. */
export function restoredDraft(texts: readonly string[], draft: string): string {
  return [...texts.filter((text) => text.length > 0), ...(draft ? [draft] : [])].join('\n');
}
