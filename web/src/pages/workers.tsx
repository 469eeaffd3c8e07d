// The gateway workers sharing the store and the group leases each holds (PostgreSQL scale-out).
import { call } from '../api';
import { ErrorLine, time, useLoad } from '../ui';

export function WorkersPage(_props: { group: string }) {
  const workers = useLoad(() => call<any>('workers.list'), []);
  const value = workers.value;
  return (
    <section aria-label="workers">
      <h1>Workers and leases</h1>
      <ErrorLine error={workers.error} />
      {value ? (
        <>
          <p>Lease: {value.leaseSeconds} s. Groups no live worker holds: {value.unowned.length ? value.unowned.join(', ') : 'none'}.</p>
          <table>
            <thead><tr><th>worker</th><th>pid</th><th>host</th><th>alive</th><th>heartbeat</th><th>leases</th></tr></thead>
            <tbody>
              {value.workers.map((worker: any) => (
                <tr key={worker.id}>
                  <td>{worker.name}{worker.id === value.self ? ' (this one)' : ''}</td><td>{worker.pid}</td><td>{worker.host}</td>
                  <td>{worker.alive ? 'yes' : 'no'}</td><td>{time(worker.heartbeatAt)}</td>
                  <td>{worker.groups.map((lease: any) => `${lease.group} (until ${time(lease.expiresAt)})`).join(', ')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      ) : null}
    </section>
  );
}
