import { useQuery } from '@tanstack/react-query';
import { api } from './api.ts';

export function Audit({ token }: { token: string }) {
  const audit = useQuery({ queryKey: ['audit-all'], queryFn: () => api<{ ok: boolean; runs: Array<{ runId: string; ok: boolean; seq?: number; reason?: string }> }>(token, 'GET', '/v1/audit') });
  return (
    <section aria-labelledby="audit-title">
      <h1 id="audit-title">Audit</h1>
      <p>Every journal's hash chain is checked against the head recorded when it was last written.</p>
      {audit.data ? (
        <p className={audit.data.ok ? 'ok' : 'bad'} role="status">
          {audit.data.ok ? `All ${audit.data.runs.length} journals verify.` : `${audit.data.runs.filter((r) => !r.ok).length} journal(s) are broken.`}
        </p>
      ) : (
        <p>Verifying…</p>
      )}
      <ul>
        {audit.data?.runs.map((run) => (
          <li key={run.runId}>
            <a href={`#/runs/${encodeURIComponent(run.runId)}`}>{run.runId}</a>: {run.ok ? <span className="ok">verified</span> : <span className="bad">broken at seq {run.seq} ({run.reason})</span>}
          </li>
        ))}
      </ul>
    </section>
  );
}
