// Chat with a group's active session: history from session.tree (the path to the leaf),
// the running turn streamed from the group's events, the queue, steering and abort.
import { useEffect, useRef, useState } from 'preact/hooks';
import { call, follow, idempotencyKey } from '../api';
import { ErrorLine, textOf, useAction } from '../ui';

interface Line {
  key: string;
  role: string;
  text: string;
  live?: boolean;
}

interface Status {
  activeSessionId: string | null;
  busy: boolean;
  queued: number;
  model: string;
}

async function history(group: string, sessionId: string | null): Promise<Line[]> {
  if (!sessionId) return [];
  const tree = await call<{ entries: Array<{ id: number; kind: string; payload: any; onPath: boolean }> }>('session.tree', { group, sessionId });
  return tree.entries
    .filter((entry) => entry.onPath && entry.kind === 'message')
    .map((entry) => ({ key: `e${entry.id}`, role: entry.payload.message.role, text: textOf(entry.payload.message.content) || (entry.payload.message.role === 'toolResult' ? '(tool result)' : '') }));
}

export function ChatPage({ group }: { group: string }) {
  const [lines, setLines] = useState<Line[]>([]);
  const [status, setStatus] = useState<Status | null>(null);
  const [queue, setQueue] = useState<Array<{ id: string; lane: string; text: string }>>([]);
  const [text, setText] = useState('');
  const [notice, setNotice] = useState('');
  const action = useAction();
  const bottom = useRef<HTMLDivElement>(null);

  const refresh = async (): Promise<void> => {
    const next = await call<Status>('group.status', { group });
    setStatus(next);
    setQueue(await call('queue.list', { group }));
    return void setLines(await history(group, next.activeSessionId));
  };

  useEffect(() => {
    return follow(group, (name, data) => {
      // State is read once subscribed (first and after a reconnect), so no event falls between the read and the stream.
      if (name === 'subscribed') void refresh().catch((error) => setNotice(String(error.message)));
      else if (name === 'event') {
        const event = data.event;
        if (event.type === 'message_start' && event.message?.role === 'assistant') {
          setLines((all) => [...all, { key: `live-${data.inputId}-${all.length}`, role: 'assistant', text: '', live: true }]);
        } else if (event.type === 'message_update' && event.delta?.type === 'text_delta') {
          setLines((all) => {
            const last = all.at(-1);
            if (!last?.live) return [...all, { key: `live-${data.inputId}-${all.length}`, role: 'assistant', text: event.delta.delta, live: true }];
            return [...all.slice(0, -1), { ...last, text: last.text + event.delta.delta }];
          });
        } else if (event.type === 'message_end') {
          const message = event.message;
          setLines((all) => {
            const last = all.at(-1);
            const done = { key: `m-${data.inputId}-${all.length}`, role: message.role, text: textOf(message.content) || (message.role === 'toolResult' ? '(tool result)' : '') };
            return last?.live && message.role === 'assistant' ? [...all.slice(0, -1), { ...done, key: last.key }] : [...all, done];
          });
        } else if (event.type === 'tool_start') {
          setLines((all) => [...all, { key: `t-${event.toolCallId}`, role: 'tool', text: `running ${event.toolName}…` }]);
        }
      } else if (name === 'run.end') {
        if (data.status !== 'completed') setNotice(`the run ${data.status}${data.errorMessage ? `: ${data.errorMessage}` : ''}`);
        void refresh();
      } else if (name === 'group.changed') {
        setStatus((current) => (current ? { ...current, busy: data.busy, queued: data.queued, activeSessionId: data.activeSessionId } : current));
        void call('queue.list', { group }).then(setQueue);
      } else if (name === 'notice') {
        setNotice(data.message);
      } else if (name === 'gone' || name === 'cut') {
        setNotice(data.message);
      }
    });
  }, [group]);

  useEffect(() => bottom.current?.scrollIntoView({ block: 'end' }), [lines]);

  const send = (lane: 'prompt' | 'steer'): void => {
    const body = text.trim();
    if (!body) return;
    void action.run(async () => {
      if (lane === 'steer') await call('steer', { group, text: body });
      else {
        // The user's line appears with its message_end event, when the gateway committed it.
        await call('prompt', { group, text: body, idempotencyKey: idempotencyKey(), ...(status?.activeSessionId ? { expectedSessionId: status.activeSessionId } : {}) });
      }
      setText('');
      setQueue(await call('queue.list', { group }));
    });
  };

  return (
    <section class="chat" aria-label="chat">
      <p class="status" role="status">
        {status ? `${status.model} · ${status.busy ? 'running' : 'idle'} · ${status.queued} waiting · session ${status.activeSessionId?.slice(0, 8) ?? 'none yet'}` : 'loading…'}
      </p>
      <ol class="transcript" aria-live="polite">
        {lines.map((line) => (
          <li key={line.key} class={`msg ${line.role}${line.live ? ' live' : ''}`} data-role={line.role}>
            <span class="who">{line.role}</span>
            <span class="text">{line.text}</span>
          </li>
        ))}
      </ol>
      <div ref={bottom} />
      {notice ? <p class="notice" role="status">{notice}</p> : null}
      <ErrorLine error={action.error} />
      {queue.length ? (
        <section aria-label="queue" class="queue">
          <h2>Waiting</h2>
          <ol>
            {queue.map((item) => (
              <li key={item.id}>
                <span class="lane">{item.lane}</span> {item.text}{' '}
                <button onClick={() => void action.run(async () => setQueue(await call('queue.remove', { group, id: item.id })))} aria-label={`remove ${item.text}`}>remove</button>
              </li>
            ))}
          </ol>
        </section>
      ) : null}
      <form
        class="composer"
        onSubmit={(event) => {
          event.preventDefault();
          send('prompt');
        }}
      >
        <textarea
          aria-label="message"
          value={text}
          rows={3}
          placeholder="Message (Enter sends, Shift+Enter for a new line, Esc aborts)"
          onInput={(event) => setText((event.target as HTMLTextAreaElement).value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter' && !event.shiftKey) {
              event.preventDefault();
              send('prompt');
            } else if (event.key === 'Escape' && status?.busy) {
              void action.run(() => call('abort', { group }));
            }
          }}
        />
        <div class="buttons">
          <button type="submit" disabled={action.busy}>{status?.busy ? 'Queue' : 'Send'}</button>
          <button type="button" disabled={!status?.busy} onClick={() => send('steer')}>Steer</button>
          <button type="button" class="danger" disabled={!status?.busy} onClick={() => void action.run(() => call('abort', { group }))}>Abort</button>
        </div>
      </form>
    </section>
  );
}
