// Tool calls waiting for a person: approve, edit the arguments (the gateway checks them
// against the tool's schema) or deny with a reason. New ones arrive as events.
import { useEffect, useState } from 'preact/hooks';
import { call, reloadOn } from '../api';
import { ErrorLine, Json, time, useAction, useLoad } from '../ui';

interface Approval {
  id: string;
  toolName: string;
  args: unknown;
  reason: string | null;
  status: string;
  createdAt: number;
  expiresAt: number;
}

function ApprovalCard({ approval, onDone }: { approval: Approval; onDone: () => void }) {
  const [reason, setReason] = useState('');
  const [args, setArgs] = useState(JSON.stringify(approval.args, null, 2));
  const action = useAction(onDone);
  return (
    <li class="approval" data-id={approval.id}>
      <h2>{approval.toolName}</h2>
      {approval.reason ? <p>{approval.reason}</p> : null}
      <p><small>asked {time(approval.createdAt)}, expires {time(approval.expiresAt)}</small></p>
      <Json value={approval.args} />
      <ErrorLine error={action.error} />
      <div class="buttons">
        <button disabled={action.busy} onClick={() => void action.run(() => call('approvals.approve', { id: approval.id, by: 'web' }))}>Approve</button>
      </div>
      <label>Edited arguments (JSON)<textarea rows={4} value={args} onInput={(event) => setArgs((event.target as HTMLTextAreaElement).value)} /></label>
      <button disabled={action.busy} onClick={() => void action.run(async () => call('approvals.edit', { id: approval.id, args: JSON.parse(args), by: 'web' }))}>Run with these arguments</button>
      <label>Reason <input value={reason} onInput={(event) => setReason((event.target as HTMLInputElement).value)} /></label>
      <button class="danger" disabled={action.busy || !reason.trim()} onClick={() => void action.run(() => call('approvals.deny', { id: approval.id, reason: reason.trim(), by: 'web' }))}>Deny</button>
    </li>
  );
}

export function ApprovalsPage({ group }: { group: string }) {
  const pending = useLoad(() => call<{ approvals: Approval[] }>('approvals.list', { group }), [group]);
  useEffect(() => reloadOn(group, ['approval.requested', 'approval.resolved'], pending.reload), [group]);
  const list = pending.value?.approvals ?? [];
  return (
    <section aria-label="approvals">
      <h1>Approvals</h1>
      <ErrorLine error={pending.error} />
      {list.length === 0 ? <p>Nothing waits for an answer.</p> : null}
      <ol class="approvals">
        {list.map((approval) => <ApprovalCard key={approval.id} approval={approval} onDone={pending.reload} />)}
      </ol>
    </section>
  );
}
