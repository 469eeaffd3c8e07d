// Usage and cost: by model and by group (usage.summary), and by day for the last two
// weeks, each day's figure the difference of two usage.summary calls (`since` its start
// and the next day's), drawn with uPlot.
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { call } from '../api';
import { ErrorLine, useLoad } from '../ui';

interface Totals {
  key: string | null;
  calls: number;
  input: number;
  output: number;
  cost: number | null;
  unpricedCalls: number;
}

const DAYS = 14;

const sum = (rows: Totals[]): number => rows.reduce((total, row) => total + (row.cost ?? 0), 0);

async function byDay(): Promise<{ days: number[]; costs: number[] }> {
  const today = new Date();
  today.setHours(0, 0, 0, 0);
  const starts = Array.from({ length: DAYS + 1 }, (_, index) => today.getTime() - (DAYS - 1 - index) * 86_400_000);
  const totals = await Promise.all(starts.map((since) => call<Totals[]>('usage.summary', { since, by: 'group' }).then(sum)));
  return { days: starts.slice(0, DAYS).map((ms) => ms / 1000), costs: totals.slice(0, DAYS).map((total, index) => Math.max(0, total - totals[index + 1])) };
}

function Table({ title, rows }: { title: string; rows: Totals[] }) {
  return (
    <>
      <h2>{title}</h2>
      <table>
        <thead><tr><th>{title.replace('By ', '')}</th><th>calls</th><th>input</th><th>output</th><th>cost (USD)</th></tr></thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.key ?? ''}>
              <td>{row.key ?? '—'}</td><td>{row.calls}</td><td>{row.input}</td><td>{row.output}</td>
              <td class="cost">{row.cost === null ? 'unknown (no price)' : `$${row.cost.toFixed(6)}`}{row.unpricedCalls ? ` + ${row.unpricedCalls} unpriced` : ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

export function UsagePage({ group }: { group: string }) {
  const models = useLoad(() => call<Totals[]>('usage.summary', { group, by: 'model' }), [group]);
  const groups = useLoad(() => call<Totals[]>('usage.summary', { by: 'group' }), []);
  const days = useLoad(byDay, []);
  const chart = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!days.value || !chart.current) return;
    const width = Math.min(720, chart.current.clientWidth || 720);
    const plot = new uPlot(
      {
        title: 'Cost per day (USD, all groups)',
        width,
        height: 240,
        series: [{}, { label: 'cost', stroke: '#2563eb', fill: 'rgba(37,99,235,0.25)', paths: uPlot.paths.bars!({ size: [0.6, 40] }), points: { show: false }, value: (_u, v) => (v == null ? '—' : `$${v.toFixed(6)}`) }],
        axes: [{}, { values: (_u, ticks) => ticks.map((tick) => `$${tick.toPrecision(2)}`), size: 70 }],
        scales: { x: { time: true } },
      },
      [days.value.days, days.value.costs],
      chart.current,
    );
    return () => plot.destroy();
  }, [days.value]);
  return (
    <section aria-label="usage">
      <h1>Usage and cost</h1>
      <ErrorLine error={models.error ?? groups.error ?? days.error} />
      <div class="chart" ref={chart} role="img" aria-label="cost per day" />
      {models.value ? <Table title={`By model (group ${group})`} rows={models.value} /> : null}
      {groups.value ? <Table title="By group" rows={groups.value} /> : null}
    </section>
  );
}
