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
async function exportTranscript(group: string, sessionId: string): Promise<void> {
  const parts: BlobPart[] = [];
  let offset = 0;
  let untilEntryId: number | undefined;
  for (;;) {
    const chunk = await call<{ data: string; nextOffset: number; done: boolean; untilEntryId: number }>('transcript.read', { group, sessionId, offset, ...(untilEntryId === undefined ? {} : { untilEntryId }) });
    untilEntryId = chunk.untilEntryId;
    parts.push(Uint8Array.from(atob(chunk.data), (char) => char.charCodeAt(0)));
    if (chunk.done) break;
    offset = chunk.nextOffset;
  }
  const link = document.createElement('a');
  link.href = URL.createObjectURL(new Blob(parts, { type: 'application/jsonl' }));
  link.download = `${sessionId}.jsonl`;
  link.click();
  URL.revokeObjectURL(link.href);
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
