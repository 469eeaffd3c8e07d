// A group's sessions: list and search, and for the active one its checkpoints and tree
// with fork, goto, branch, name and export. Every control sends the active session this
// page saw (expectedSessionId): the gateway refuses it (STALE, BUSY) when that changed.
import { useState } from 'preact/hooks';
import { call } from '../api';
import { ErrorLine, textOf, time, useAction, useLoad } from '../ui';

interface Session {
  id: string;
  name: string | null;
  summary: string | null;
  messageCount: number;
  updatedAt: number;
  parentSessionId: string | null;
}

interface Shown {
  session: Session;
  checkpoints: Array<{ index: number; entryId: number; role: string; valid: boolean; preview: string }>;
}

interface TreeEntry {
  id: number;
  parentId: number | null;
  kind: string;
  payload: any;
  onPath: boolean;
}

/** Reads a transcript in its chunks and offers it as a download. */
interface TranscriptChunk {
  data: string;
  offset: number;
  nextOffset: number;
  totalBytes: number;
  done: boolean;
  untilEntryId: number;
  sha256?: string;
}

/** Reads the transcript in chunks and checks them (offsets, size, the final SHA-256): only a whole, verified file is saved. */
async function exportTranscript(group: string, sessionId: string): Promise<void> {
  const parts: Uint8Array[] = [];
  let offset = 0;
  let first: TranscriptChunk | undefined;
  for (;;) {
    const chunk = await call<TranscriptChunk>('transcript.read', { group, sessionId, offset, ...(first === undefined ? {} : { untilEntryId: first.untilEntryId }) });
    const bytes = Uint8Array.from(atob(chunk.data), (char) => char.charCodeAt(0));
    if (chunk.offset !== offset || chunk.nextOffset !== offset + bytes.length || (first && (chunk.totalBytes !== first.totalBytes || chunk.untilEntryId !== first.untilEntryId))) {
      throw new Error(`the transcript read failed: the chunk at byte ${offset} does not follow the ones before; nothing was saved, try again`);
    }
    first ??= chunk;
    parts.push(bytes);
    offset = chunk.nextOffset;
    if (chunk.done) {
      if (offset !== chunk.totalBytes) throw new Error(`the transcript read failed: it ended at byte ${offset} of ${chunk.totalBytes}; nothing was saved`);
      const whole = new Uint8Array(offset);
      let at = 0;
      for (const part of parts) {
        whole.set(part, at);
        at += part.length;
      }
      const digest = Array.from(new Uint8Array(await crypto.subtle.digest('SHA-256', whole)), (byte) => byte.toString(16).padStart(2, '0')).join('');
      if (digest !== chunk.sha256) throw new Error(`the transcript read failed: its SHA-256 is ${digest} but the gateway sent ${chunk.sha256 ?? 'none'}; nothing was saved`);
      const link = document.createElement('a');
      link.href = URL.createObjectURL(new Blob([whole], { type: 'application/jsonl' }));
      link.download = `${sessionId}.jsonl`;
      link.click();
      URL.revokeObjectURL(link.href);
      return;
    }
  }
}

export function SessionsPage({ group }: { group: string }) {
  const [query, setQuery] = useState('');
  const status = useLoad(() => call<{ activeSessionId: string | null; busy: boolean }>('group.status', { group }), [group]);
  const list = useLoad(() => (query.trim() ? call<Session[]>('session.search', { group, query: query.trim() }) : call<Session[]>('session.list', { group })), [group, query]);
  const active = status.value?.activeSessionId ?? null;
  const shown = useLoad(() => (active ? call<Shown>('session.show', { group, sessionId: active }) : Promise.resolve(null)), [group, active]);
  const tree = useLoad(() => (active ? call<{ entries: TreeEntry[] }>('session.tree', { group, sessionId: active }) : Promise.resolve(null)), [group, active]);
  const [name, setName] = useState('');
  const reloadAll = (): void => {
    status.reload();
    list.reload();
    shown.reload();
    tree.reload();
  };
  const action = useAction(reloadAll);
  const expected = { group, expectedSessionId: active };

  return (
    <section aria-label="sessions" class="sessions">
      <h1>Sessions</h1>
      <ErrorLine error={status.error ?? list.error ?? action.error} />
      <label>
        Search <input type="search" value={query} onInput={(event) => setQuery((event.target as HTMLInputElement).value)} />
      </label>
      <button disabled={action.busy} onClick={() => void action.run(() => call('session.new', expected))}>New session</button>
      <table>
        <thead><tr><th>session</th><th>name</th><th>messages</th><th>updated</th><th /></tr></thead>
        <tbody>
          {(list.value ?? []).map((session) => (
            <tr key={session.id} class={session.id === active ? 'active' : ''}>
              <td><code>{session.id.slice(0, 8)}</code>{session.parentSessionId ? <small> fork of {session.parentSessionId.slice(0, 8)}</small> : null}</td>
              <td>{session.name ?? session.summary ?? ''}</td>
              <td>{session.messageCount}</td>
              <td>{time(session.updatedAt)}</td>
              <td>
                {session.id === active ? <strong>active</strong> : <button onClick={() => void action.run(() => call('session.resume', { ...expected, sessionId: session.id }))}>Resume</button>}{' '}
                <button onClick={() => void action.run(() => exportTranscript(group, session.id))}>Export</button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {shown.value ? (
        <>
          <h2>Active session {shown.value.session.name ? `“${shown.value.session.name}”` : shown.value.session.id.slice(0, 8)}</h2>
          <form
            onSubmit={(event) => {
              event.preventDefault();
              void action.run(() => call('session.name', { ...expected, sessionId: active, name: name.trim() || null }));
            }}
          >
            <label>Name <input value={name} onInput={(event) => setName((event.target as HTMLInputElement).value)} /></label> <button type="submit">Set name</button>
          </form>
          <h3>Checkpoints</h3>
          <ol class="checkpoints">
            {shown.value.checkpoints.map((point) => (
              <li key={point.index} data-index={point.index}>
                <span class="who">{point.role}</span> {point.preview}{' '}
                <button disabled={!point.valid} onClick={() => void action.run(() => call('session.fork', { ...expected, index: point.index }))} aria-label={`fork at ${point.index}`}>Fork here</button>{' '}
                <button disabled={!point.valid} onClick={() => void action.run(() => call('session.goto', { ...expected, index: point.index }))} aria-label={`go to ${point.index}`}>Go to</button>
              </li>
            ))}
          </ol>
          <h3>Tree</h3>
          <ul class="tree">
            {(tree.value?.entries ?? []).map((entry) => (
              <li key={entry.id} class={entry.onPath ? 'on-path' : 'off-path'}>
                <code>#{entry.id}</code> {entry.parentId === null ? 'root' : `← #${entry.parentId}`} <span class="who">{entry.kind === 'message' ? entry.payload.message.role : entry.kind}</span>{' '}
                {entry.kind === 'message' ? textOf(entry.payload.message.content).slice(0, 120) : ''}{' '}
                <button onClick={() => void action.run(() => call('session.branch', { ...expected, entryId: entry.id }))} aria-label={`branch to ${entry.id}`}>Branch here</button>
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </section>
  );
}
