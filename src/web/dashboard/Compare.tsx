import { useQuery } from '@tanstack/react-query';
import { client as apiClient, unwrap } from './api.ts';
import { firstDivergence } from './compare.ts';
import { duration } from './format.ts';
import { currentPlan } from './RunPlan.tsx';
import type { TraceRow } from './spans.ts';

/** The two runs named in the address: `#/compare?a=<runId>&b=<runId>`. */
function namedRuns(): [string, string] {
  const params = new URLSearchParams(window.location.hash.split('?')[1] ?? '');
  return [params.get('a') ?? '', params.get('b') ?? ''];
}

function useRun(token: string, runId: string) {
  const param = { runId: encodeURIComponent(runId) };
  const run = useQuery({
    queryKey: ['run', runId],
    queryFn: () => unwrap(apiClient(token).v1.runs[':runId'].$get({ param })),
    enabled: runId !== '',
    retry: false,
  });
  const trace = useQuery({
    queryKey: ['trace', runId, run.data?.head.seq],
    queryFn: () => unwrap(apiClient(token).v1.runs[':runId'].trace.$get({ param })),
    enabled: run.isSuccess,
  });
  return { run, records: trace.data?.records as readonly TraceRow[] | undefined };
}

type Loaded = ReturnType<typeof useRun>;

/** One run's column: what it was asked, what it planned, what it spent and what it gave. */
function Column({ label, loaded }: { label: string; loaded: Loaded }) {
  const outcome = loaded.run.data;
  if (loaded.run.error)
    return (
      <div>
        <h2>{label}</h2>
        <p role="alert">{(loaded.run.error as Error).message}</p>
      </div>
    );
  if (!outcome) return <p role="status">Loading…</p>;
  const plan = loaded.records ? currentPlan(loaded.records) : undefined;
  const settled = outcome.status !== 'running' && outcome.status !== 'paused';
  return (
    <div>
      <h2>
        {label}: <a href={`#/runs/${encodeURIComponent(outcome.runId)}`}>{outcome.runId}</a>
      </h2>
      <dl className="facts">
        <dt>Goal</dt>
        <dd>{outcome.goal}</dd>
        <dt>Status</dt>
        <dd>
          <span className={`status ${outcome.status}`}>{outcome.status}</span>
          {outcome.error ? <code className="bad"> {outcome.error.code}</code> : null}
        </dd>
        <dt>Latency</dt>
        <dd>{settled ? duration(outcome.updatedAt - outcome.createdAt) : '—'}</dd>
        <dt>Spent</dt>
        <dd>
          cost {outcome.usage.cost}, {outcome.usage.calls} call(s), {outcome.usage.tokens} token(s)
        </dd>
        <dt>Events</dt>
        <dd>{outcome.head.seq + 1}</dd>
      </dl>
      <h3>Plan</h3>
      {plan?.steps.length ? (
        <ol>
          {plan.steps.map((step) => (
            <li key={step.name}>
              <code>{step.tool}</code> <code>{JSON.stringify(step.input)}</code>
            </li>
          ))}
        </ol>
      ) : (
        <p>{plan ? `No steps (${plan.stopReason.replaceAll('_', ' ')}).` : 'Loading…'}</p>
      )}
      <h3>Outputs</h3>
      <pre className="outputs">{JSON.stringify(outcome.outputs, null, 2)}</pre>
    </div>
  );
}

/**
 * Two runs side by side — inputs, plans, outputs, timings — and the first event at which they
 * did something different (ids, times and hashes aside), the way a journal diff finds it.
 */
export function Compare({ token }: { token: string }) {
  const [a, b] = namedRuns();
  const left = useRun(token, a);
  const right = useRun(token, b);
  if (!a || !b)
    return (
      <section aria-labelledby="compare-title">
        <h1 id="compare-title">Compare runs</h1>
        <p>
          Pick two runs in the <a href="#/runs">runs list</a> (the Compare boxes), or open <code>#/compare?a=RUN&amp;b=RUN</code>.
        </p>
      </section>
    );
  const difference = left.records && right.records ? firstDivergence(left.records, right.records) : undefined;
  return (
    <section aria-labelledby="compare-title">
      <h1 id="compare-title">Compare runs</h1>
      <div className="side-by-side compare">
        <Column label="A" loaded={left} />
        <Column label="B" loaded={right} />
      </div>
      <h2>First divergence</h2>
      {!left.records || !right.records ? (
        <p role="status">Reading both journals…</p>
      ) : difference ? (
        <div className="divergence">
          <p>
            At event {difference.seq}: A has <code>{difference.a?.type ?? 'nothing (it ended)'}</code>, B has{' '}
            <code>{difference.b?.type ?? 'nothing (it ended)'}</code>.
          </p>
          {difference.fields.length ? (
            <table>
              <thead>
                <tr>
                  <th scope="col">Field</th>
                  <th scope="col">A</th>
                  <th scope="col">B</th>
                </tr>
              </thead>
              <tbody>
                {difference.fields.map((field) => (
                  <tr key={field.path}>
                    <td>
                      <code>{field.path}</code>
                    </td>
                    <td>
                      <code>{field.a ?? '—'}</code>
                    </td>
                    <td>
                      <code>{field.b ?? '—'}</code>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : null}
        </div>
      ) : (
        <p className="ok">The two runs did the same things, event for event ({left.records.length} events; ids and times aside).</p>
      )}
    </section>
  );
}
