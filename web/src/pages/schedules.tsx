// A group's scheduled jobs with their run history, and "run now".
import { useState } from 'preact/hooks';
import { call } from '../api';
import { ErrorLine, Json, time, useAction, useLoad } from '../ui';

export function SchedulesPage({ group }: { group: string }) {
  const jobs = useLoad(() => call<any[]>('schedule.list', { group }), [group]);
  const [picked, setPicked] = useState<string | null>(null);
  const history = useLoad(() => call<any>('schedule.history', { group, ...(picked ? { name: picked } : {}), limit: 50 }), [group, picked]);
  const action = useAction(() => { jobs.reload(); history.reload(); });
  const runs: any[] = Array.isArray(history.value) ? history.value : (history.value?.runs ?? []);
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
              <td><code>{job.cron ?? (job.everySeconds ? `every ${job.everySeconds} s` : time(job.at))}</code></td>
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
        <thead><tr><th>job</th><th>status</th><th>started</th><th>ended</th><th>detail</th></tr></thead>
        <tbody>
          {runs.map((run) => (
            <tr key={run.id}><td>{run.name ?? run.jobName ?? run.jobId}</td><td>{run.status}</td><td>{time(run.startedAt ?? run.scheduledAt)}</td><td>{time(run.endedAt)}</td><td>{run.error ?? run.reason ?? ''}</td></tr>
          ))}
        </tbody>
      </table>
      {runs.length === 0 && history.value && !Array.isArray(history.value) && !history.value.runs ? <Json value={history.value} /> : null}
    </section>
  );
}
