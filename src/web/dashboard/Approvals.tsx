import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { client as apiClient, unwrap, type Approval } from './api.ts';

/** One pending approval with approve, reject and edit-arguments controls. */
export function ApprovalCard({ token, approval }: { token: string; approval: Approval }) {
  const client = useQueryClient();
  const [reason, setReason] = useState('');
  const [editing, setEditing] = useState(false);
  const [args, setArgs] = useState(() => JSON.stringify(approval.args, null, 2));
  const [error, setError] = useState<string | null>(null);
  const decide = useMutation({
    mutationFn: (decision: 'approve' | 'reject' | 'edit') => {
      let parsed: Record<string, unknown> | undefined;
      if (decision === 'edit') parsed = JSON.parse(args) as Record<string, unknown>;
      return unwrap(
        apiClient(token).v1.approvals[':approvalId'].$post({
          param: { approvalId: encodeURIComponent(approval.approvalId) },
          json: { decision, reason, ...(parsed ? { args: parsed } : {}) },
        }),
      );
    },
    onSuccess: () => {
      setError(null);
      void client.invalidateQueries();
    },
    onError: (e) => setError((e as Error).message),
  });
  const id = approval.approvalId.replace(/[^a-zA-Z0-9]/g, '-');
  return (
    <article className="card" aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>
        <code>{approval.tool}</code> needs approval
      </h3>
      <p>
        {approval.reason} · run <a href={`#/runs/${encodeURIComponent(approval.runId)}`}>{approval.runId}</a>
      </p>
      {editing ? (
        <>
          <label htmlFor={`${id}-args`}>Arguments (JSON)</label>
          <textarea id={`${id}-args`} rows={5} value={args} onChange={(e) => setArgs(e.target.value)} />
        </>
      ) : (
        <pre>{JSON.stringify(approval.args, null, 2)}</pre>
      )}
      <label htmlFor={`${id}-reason`}>Reason</label>
      <input id={`${id}-reason`} value={reason} onChange={(e) => setReason(e.target.value)} />
      <div className="actions">
        {editing ? (
          <button type="button" onClick={() => decide.mutate('edit')} disabled={decide.isPending}>
            Approve edited arguments
          </button>
        ) : (
          <button type="button" onClick={() => decide.mutate('approve')} disabled={decide.isPending}>
            Approve
          </button>
        )}
        <button type="button" className="secondary" onClick={() => decide.mutate('reject')} disabled={decide.isPending}>
          Reject
        </button>
        <button type="button" className="link" onClick={() => setEditing(!editing)}>
          {editing ? 'Cancel edit' : 'Edit arguments'}
        </button>
      </div>
      {error ? (
        <p role="alert" className="bad">
          {error}
        </p>
      ) : null}
    </article>
  );
}

export function Approvals({ token }: { token: string }) {
  const pending = useQuery({
    queryKey: ['approvals', 'pending'],
    queryFn: () => unwrap(apiClient(token).v1.approvals.$get({ query: { status: 'pending' } })),
    refetchInterval: 3000,
  });
  return (
    <section aria-labelledby="approvals-title">
      <h1 id="approvals-title">Approvals</h1>
      {pending.data?.approvals.length === 0 ? <p>Nothing is waiting for you.</p> : null}
      {pending.data?.approvals.map((approval) => (
        <ApprovalCard key={approval.approvalId} token={token} approval={approval} />
      ))}
    </section>
  );
}
