import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { client as apiClient, readEvents, transportFetch, unwrap } from './api.ts';
import { updateRunStatus } from './history.ts';
import { ApprovalCard } from './Approvals.tsx';
import { BudgetMeters, ProfileBudget } from './Budget.tsx';
import type { TraceRecord } from '../../core/index.ts';
import { DeleteRun, FeedbackBox } from './RunFeedback.tsx';
import { GeneratedFiles } from './GeneratedFiles.tsx';
import { RunPlan } from './RunPlan.tsx';
import { TraceView, type ForkRequest } from './TraceView.tsx';

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

/**
 * Follow a run's server-sent events while it is live (in both modes, through the current
 * transport), refreshing the run as events land; `setOpen` tells whether the stream is open.
 */
function useRunEvents(
  token: string,
  runId: string,
  live: boolean,
  setOpen: (open: boolean) => void,
  setStreaming: (update: (text: string) => string) => void,
): void {
  const client = useQueryClient();
  useEffect(() => {
    if (!live) return;
    const abort = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    // Bursts of events refresh once.
    const refresh = () => {
      clearTimeout(timer);
      timer = setTimeout(() => void client.invalidateQueries({ queryKey: ['run', runId] }), 100);
    };
    void (async () => {
      try {
        const response = await apiClient(token).v1.runs[':runId'].events.$get(
          { param: { runId: encodeURIComponent(runId) }, query: {}, header: {} },
          { headers: { accept: 'text/event-stream' }, init: { signal: abort.signal } },
        );
        if (!response.ok) return;
        setOpen(true);
        await readEvents(response, (event) => {
          // A streamed model answer arrives piece by piece; the journal event that follows holds it whole.
          if (event.event === 'model_delta') {
            const { delta } = JSON.parse(event.data) as { delta: string };
            setStreaming((text) => text + delta);
            return;
          }
          if (event.event === 'model_call_complete' || event.event === 'model_call_error') setStreaming(() => '');
          refresh();
        });
      } catch {
        // Aborted on leaving the page, or the connection dropped: polling carries on.
      } finally {
        if (!abort.signal.aborted) {
          setOpen(false);
          refresh();
        }
      }
    })();
    return () => {
      abort.abort();
      clearTimeout(timer);
    };
  }, [token, runId, live, client, setOpen, setStreaming]);
}

export function RunDetail({ token, runId }: { token: string; runId: string }) {
  const [live, setLive] = useState(false);
  const run = useQuery({
    queryKey: ['run', runId],
    // A run is durable before the API accepts it, so the page finds it at once.
    queryFn: () => unwrap(apiClient(token).v1.runs[':runId'].$get({ param: { runId: encodeURIComponent(runId) } })),
    retry: (count) => count < 1,
    // Polling only stands in for the event stream when it is not open.
    // A run that is not there (404) is not polled again: the page says so once.
    refetchInterval: (query) => (live || query.state.status === 'error' || (query.state.data && TERMINAL.has(query.state.data.status)) ? false : 2000),
  });
  const [streaming, setStreaming] = useState('');
  useRunEvents(token, runId, run.isSuccess && !TERMINAL.has(run.data.status), setLive, setStreaming);
  // The playground's history shows where its runs ended up.
  const status = run.data?.status;
  useEffect(() => {
    if (status) void updateRunStatus(runId, status).catch(() => undefined);
  }, [runId, status]);
  // A fork is a new run: once it completes, fails or pauses, its page opens.
  const fork = async (request: ForkRequest) => {
    const forked = await unwrap(apiClient(token).v1.runs[':runId'].forks.$post({ param: { runId: encodeURIComponent(runId) }, json: request }));
    location.hash = `#/runs/${encodeURIComponent(forked.runId)}`;
  };
  const trace = useQuery({
    queryKey: ['trace', runId, run.data?.head.seq],
    queryFn: () => unwrap(apiClient(token).v1.runs[':runId'].trace.$get({ param: { runId: encodeURIComponent(runId) } })),
    enabled: run.isSuccess,
    placeholderData: keepPreviousData,
  });
  const audit = useQuery({
    queryKey: ['audit', runId, run.data?.head.seq],
    queryFn: () => unwrap(apiClient(token).v1.audit.runs[':runId'].$get({ param: { runId: encodeURIComponent(runId) } })),
    enabled: run.isSuccess,
  });
  if (run.error)
    return (
      <section className="stack">
        <p role="alert">{(run.error as Error).message}</p>
        <p>
          <a href="#/runs">Back to the runs</a>
        </p>
      </section>
    );
  if (!run.data) return <p role="status">Loading…</p>;
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
          <span className={`status ${outcome.status}`}>{outcome.status}</span>{' '}
          {outcome.stopReason && outcome.stopReason !== outcome.status ? `(${outcome.stopReason})` : ''}
          {live ? <span className="live"> · live</span> : null}
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
          {audit.data ? (
            audit.data.ok ? (
              <span className="ok">chain verified</span>
            ) : (
              <span className="bad">
                broken at seq {audit.data.seq}: {audit.data.reason}
              </span>
            )
          ) : (
            'verifying…'
          )}{' '}
          ·{' '}
          <button type="button" className="link" onClick={() => void download(token, outcome.runId, 'journal')}>
            export journal
          </button>{' '}
          ·{' '}
          <button type="button" className="link" onClick={() => void download(token, outcome.runId, 'otlp')}>
            export OTLP
          </button>
        </dd>
      </dl>
      {outcome.error ? (
        <p role="alert" className="bad">
          {outcome.error.code}: {outcome.error.message}
        </p>
      ) : null}
      {outcome.pendingApproval ? <ApprovalCard token={token} approval={outcome.pendingApproval} /> : null}
      {outcome.waitingFor ? (
        <p role="status">
          Waiting for its sub-run <a href={`#/runs/${encodeURIComponent(outcome.waitingFor.runId)}`}>{outcome.waitingFor.runId}</a>, which waits for a person
          (see Approvals); this run goes on when that one ends.
        </p>
      ) : null}
      {/* The client types the rows as JSON (hono's JSONValue for recorded metadata); they are the core's trace records. */}
      <RunPlan goal={outcome.goal} records={(trace.data?.records ?? []) as readonly TraceRecord[]} />
      {streaming ? (
        <>
          <h2>The model is answering</h2>
          <pre className="outputs streaming" aria-live="polite">
            {streaming}
          </pre>
        </>
      ) : null}
      <h2>Outputs</h2>
      <pre className="outputs">{JSON.stringify(outcome.outputs, null, 2)}</pre>
      <GeneratedFiles outputs={outcome.outputs} />
      <h2>Budget</h2>
      <div className="side-by-side">
        <BudgetMeters title="This run" usage={outcome.usage} budget={outcome.budget?.run} />
        <ProfileBudget token={token} profile={outcome.profile} />
      </div>
      <h2>Feedback</h2>
      <FeedbackBox token={token} runId={outcome.runId} label="Feedback on this run" />
      {TERMINAL.has(outcome.status) ? <DeleteRun token={token} runId={outcome.runId} /> : null}
      <h2>Timeline</h2>
      {/* The client types the rows as JSON (hono's JSONValue for recorded metadata); they are the core's trace records. */}
      {trace.data ? (
        <TraceView
          records={trace.data.records as readonly TraceRecord[]}
          onFork={fork}
          spanExtra={(span) => (
            <FeedbackBox key={`feedback-${span.seqs.join(',')}`} token={token} runId={outcome.runId} seq={span.seqs.at(-1)} label="Feedback on this span" />
          )}
        />
      ) : (
        <p>Loading…</p>
      )}
    </section>
  );
}

/** Save the run's journal (NDJSON) or its OTLP JSON; works in both modes through the current transport. */
async function download(token: string, runId: string, kind: 'journal' | 'otlp'): Promise<void> {
  const path = kind === 'journal' ? `/v1/runs/${encodeURIComponent(runId)}/journal?format=ndjson` : `/v1/runs/${encodeURIComponent(runId)}/otlp`;
  const response = await transportFetch(path, { headers: { authorization: `Bearer ${token}` } });
  const url = URL.createObjectURL(new Blob([await response.text()], { type: kind === 'journal' ? 'application/x-ndjson' : 'application/json' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = kind === 'journal' ? `${runId}.ndjson` : `${runId}.otlp.json`;
  a.click();
  URL.revokeObjectURL(url);
}
