// The gateway's groups and their state, live: busy or idle, waiting inputs, model, session.
import { useEffect } from 'preact/hooks';
import { call, reloadOn } from '../api';
import { ErrorLine, time, useLoad } from '../ui';

interface GroupStatus {
  name: string;
  workspace: string;
  model: string;
  activeSessionId: string | null;
  busy: boolean;
  runStartedAt: number | null;
  queued: number;
}

export function GroupsPage({ group }: { group: string }) {
  const status = useLoad(() => call<{ pid: number; version: string; startedAt: number; groups: GroupStatus[] }>('gateway.status'), []);
  const groups = useLoad(() => call<GroupStatus[]>('group.list'), []);
  useEffect(() => reloadOn(group, ['group.changed', 'run.end'], groups.reload), [group]);
  return (
    <section aria-label="groups">
      <h1>Groups</h1>
      <ErrorLine error={status.error ?? groups.error} />
      {status.value ? <p>Gateway pid {status.value.pid}, version {status.value.version}, up since {time(status.value.startedAt)}</p> : null}
      <table>
        <thead><tr><th>group</th><th>state</th><th>waiting</th><th>model</th><th>workspace</th><th>active session</th></tr></thead>
        <tbody>
          {(groups.value ?? []).map((entry) => (
            <tr key={entry.name} data-group={entry.name}>
              <td>{entry.name}</td>
              <td class={entry.busy ? 'busy' : 'idle'}>{entry.busy ? `running since ${time(entry.runStartedAt)}` : 'idle'}</td>
              <td>{entry.queued}</td>
              <td>{entry.model}</td>
              <td><code>{entry.workspace}</code></td>
              <td><code>{entry.activeSessionId?.slice(0, 8) ?? '—'}</code></td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
