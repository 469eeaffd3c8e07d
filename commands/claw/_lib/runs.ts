/** The plain-text view of `xdog claw runs`. */
import type { RunRecord } from '../../../plugins/claw-runs/index.js';
import { clean, table } from './render.js';

export function renderRunLog(runs: readonly RunRecord[]): string {
  if (runs.length === 0) return 'no runs recorded';
  return table(
    ['RUN', 'GROUP', 'STARTED', 'DURATION', 'SOURCE', 'STATUS', 'INPUT', 'OWNER', 'SESSION', 'ERROR'],
    runs.map((run) => [
      String(run.id),
      run.group,
      new Date(run.startedAt).toISOString(),
      `${run.endedAt - run.startedAt} ms`,
      `${run.source} ${clean(run.sourceId, 40)}`,
      run.status,
      run.inputId,
      clean(run.owner, 40),
      run.sessionId,
      run.error ? clean(run.error, 120) : '',
    ]),
  );
}
