import { useQuery } from '@tanstack/react-query';
import { api, type RunOutcome, type TraceRecord } from './api.ts';
import { ApprovalCard } from './Approvals.tsx';

interface Span {
  label: string;
  start: number;
  end: number;
  kind: 'stage' | 'tool' | 'error' | 'approval';
  detail: string;
}

/** Lifecycle stages, tool calls and approval waits as spans on one time axis. */
function spansOf(records: readonly TraceRecord[]): Span[] {
  const spans: Span[] = [];
  const starts = new Map<string, TraceRecord>();
  for (const record of records) {
    if (record.type === 'stage' && record.durationMs !== undefined) {
      spans.push({ label: `stage ${String(record.data['stage'])}`, start: record.at, end: record.at + record.durationMs, kind: 'stage', detail: '' });
    }
    if (record.type === 'tool_call_start') starts.set(`${record.stepId}:${String(record.data['attempt'])}`, record);
    if (record.type === 'tool_call_complete' || record.type === 'tool_call_error') {
      const start = starts.get(`${record.stepId}:${String(record.data['attempt'])}`);
      const tool = String(start?.data['tool'] ?? '');
      const detail = record.type === 'tool_call_complete' ? JSON.stringify(record.data['output']) : String((record.data['error'] as { message?: string }).message);
      spans.push({ label: `${record.stepId} ${tool} #${String(record.data['attempt'])}`, start: start?.at ?? record.at, end: record.at, kind: record.type === 'tool_call_error' ? 'error' : 'tool', detail });
    }
    if ((record.type === 'approval_received' || record.type === 'approval_timeout') && record.durationMs !== undefined) {
      spans.push({ label: `approval (${String(record.data['decision'] ?? record.data['action'])})`, start: record.at - record.durationMs, end: record.at, kind: 'approval', detail: `${record.durationMs} ms waiting` });
    }
  }
  return spans;
}

function Waterfall({ records }: { records: readonly TraceRecord[] }) {
  const spans = spansOf(records);
  if (spans.length === 0) return null;
  const t0 = Math.min(...spans.map((s) => s.start));
  const t1 = Math.max(...spans.map((s) => s.end), t0 + 1);
  const pct = (t: number) => ((t - t0) / (t1 - t0)) * 100;
  return (
    <ol className="waterfall" aria-label="Timeline">
      {spans.map((span, i) => (
        <li key={i}>
          <span className="span-label">{span.label}</span>
          <span className="track">
            <span className={`bar ${span.kind}`} style={{ left: `${pct(span.start)}%`, width: `max(${pct(span.end) - pct(span.start)}%, 3px)` }} title={`${span.label}: ${span.end - span.start} ms`} />
          </span>
          <span className="span-detail">
            {span.end - span.start} ms{span.detail ? ` · ${span.detail.slice(0, 80)}` : ''}
          </span>
        </li>
      ))}
    </ol>
  );
}

export function RunDetail({ token, runId }: { token: string; runId: string }) {
  const run = useQuery({ queryKey: ['run', runId], queryFn: () => api<RunOutcome>(token, 'GET', `/v1/runs/${encodeURIComponent(runId)}`), refetchInterval: 2000 });
  const trace = useQuery({ queryKey: ['trace', runId, run.data?.head.seq], queryFn: () => api<{ records: TraceRecord[] }>(token, 'GET', `/v1/runs/${encodeURIComponent(runId)}/trace`), enabled: run.isSuccess });
  const audit = useQuery({ queryKey: ['audit', runId, run.data?.head.seq], queryFn: () => api<{ ok: boolean; seq?: number; reason?: string }>(token, 'GET', `/v1/audit/runs/${encodeURIComponent(runId)}`), enabled: run.isSuccess });
  if (run.error) return <p role="alert">{(run.error as Error).message}</p>;
  if (!run.data) return <p>Loading…</p>;
  const outcome = run.data;
  return (
    <section aria-labelledby="run-title">
      <p>
        <a href="#/runs">← Runs</a>
      </p>
      <h1 id="run-title">
        Run <code>{outcome.runId}</code>
      </h1>
      <dl className="facts">
        <dt>Status</dt>
        <dd>
          <span className={`status ${outcome.status}`}>{outcome.status}</span> {outcome.stopReason ? `(${outcome.stopReason})` : ''}
        </dd>
        <dt>Profile</dt>
        <dd>{outcome.profile}</dd>
        <dt>Spent</dt>
        <dd>
          cost {outcome.usage.cost}, {outcome.usage.calls} call(s), {outcome.usage.tokens} token(s)
        </dd>
        <dt>Journal</dt>
        <dd>
          {outcome.head.seq + 1} events ·{' '}
          {audit.data ? audit.data.ok ? <span className="ok">chain verified</span> : <span className="bad">broken at seq {audit.data.seq}: {audit.data.reason}</span> : 'verifying…'} ·{' '}
          <a href={`/v1/runs/${encodeURIComponent(outcome.runId)}/journal?format=ndjson`} onClick={(e) => (e.preventDefault(), void download(token, outcome.runId))}>
            export journal
          </a>
        </dd>
      </dl>
      {outcome.error ? (
        <p role="alert" className="bad">
          {outcome.error.code}: {outcome.error.message}
        </p>
      ) : null}
      {outcome.pendingApproval ? <ApprovalCard token={token} approval={outcome.pendingApproval} /> : null}
      <h2>Outputs</h2>
      <pre className="outputs">{JSON.stringify(outcome.outputs, null, 2)}</pre>
      <h2>Timeline</h2>
      {trace.data ? <Waterfall records={trace.data.records} /> : <p>Loading…</p>}
    </section>
  );
}

async function download(token: string, runId: string): Promise<void> {
  const response = await fetch(`/v1/runs/${encodeURIComponent(runId)}/journal?format=ndjson`, { headers: { authorization: `Bearer ${token}` } });
  const url = URL.createObjectURL(new Blob([await response.text()], { type: 'application/x-ndjson' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = `${runId}.ndjson`;
  a.click();
  URL.revokeObjectURL(url);
}
