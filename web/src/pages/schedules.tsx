// A group's scheduled jobs with their run history, and "run now".
import { useEffect, useState } from 'preact/hooks';
import { call, reloadOn } from '../api';
import { ErrorLine, time, useAction, useLoad } from '../ui';

/** A job's timing as a person reads it. */
function when(timing: any): string {
  if (timing?.kind === 'cron') return `${timing.cron} (${timing.timezone})`;
  if (timing?.kind === 'every') return `every ${timing.everySeconds} s`;
  return timing?.runAt ? `once at ${time(timing.runAt)}` : '—';
}

export function SchedulesPage({ group }: { group: string }) {
  const jobs = useLoad(() => call<any[]>('schedule.list', { group }), [group]);
  const [picked, setPicked] = useState<string | null>(null);
  const history = useLoad(() => call<any[]>('schedule.history', { group, ...(picked ? { name: picked } : {}), limit: 50 }), [group, picked]);
  const action = useAction(() => { jobs.reload(); history.reload(); });
  // A run's progress (queued, running, its end) arrives as schedule.run events.
  useEffect(() => reloadOn(group, ['schedule.run', 'run.end'], () => { history.reload(); jobs.reload(); }), [group]);
  const runs: any[] = history.value ?? [];
  const names = new Map((jobs.value ?? []).map((job) => [job.id, job.name]));
  return (
    <section aria-label="schedules">
      <h1>Schedules</h1>
      <ErrorLine error={jobs.error ?? history.error ?? action.error} />
      {(jobs.value ?? []).length === 0 ? <p>No scheduled jobs in this group (add one with <code>xdog claw schedule add</code>).</p> : null}
      <table>
        <thead><tr><th>job</th><th>when</th><th>next run</th><th>state</th><th /></tr></thead>
        <tbody>
          {(jobs.value ?? []).map((job) => (
            <tr key={job.name}>
              <td>{job.name}</td>
              <td><code>{when(job.timing)}</code></td>
              <td>{time(job.nextRunAt)}</td>
              <td>{job.paused ? 'paused' : 'active'}</td>
              <td>
                <button disabled={action.busy} onClick={() => void action.run(() => call('schedule.run_now', { group, name: job.name }))}>Run now</button>{' '}
                <button onClick={() => setPicked(job.name)}>History</button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <h2>Run history{picked ? ` of ${picked}` : ''}</h2>
      <table>
        <thead><tr><th>job</th><th>trigger</th><th>status</th><th>started</th><th>ended</th><th>error</th></tr></thead>
        <tbody>
          {runs.map((run) => (
            <tr key={run.id} data-status={run.status}><td>{names.get(run.jobId) ?? run.jobId}</td><td>{run.trigger}</td><td>{run.status}</td><td>{time(run.startedAt)}</td><td>{time(run.endedAt)}</td><td>{run.error ?? ''}</td></tr>
          ))}
        </tbody>
      </table>
      {runs.length === 0 ? <p>No runs yet.</p> : null}
    </section>
  );
}
