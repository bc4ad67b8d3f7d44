import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, type PlanPreview, type RunOutcome } from './api.ts';

const EXAMPLES = ['add 2 and 3, then multiply the result by 4', 'calculate (2 + 3) * 4 ^ 2', 'rag_query(query="how do approvals time out")', 'send_message(to="ops", text="deploy finished")'];

export function Playground({ token }: { token: string }) {
  const initial = new URLSearchParams(window.location.hash.split('?')[1] ?? '').get('goal') ?? EXAMPLES[0]!;
  const [goal, setGoal] = useState(initial);
  const [profile, setProfile] = useState('demo');
  const plan = useMutation({ mutationFn: () => api<PlanPreview>(token, 'POST', '/v1/plan', { goal, profile }) });
  const run = useMutation({
    mutationFn: () => api<RunOutcome>(token, 'POST', '/v1/runs', { goal, profile }),
    onSuccess: (outcome) => {
      window.location.hash = `#/runs/${encodeURIComponent(outcome.runId)}`;
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    plan.mutate();
  };
  return (
    <section aria-labelledby="playground-title">
      <h1 id="playground-title">Playground</h1>
      <form onSubmit={submit} className="stack">
        <label htmlFor="goal">Goal</label>
        <textarea id="goal" rows={3} value={goal} onChange={(e) => setGoal(e.target.value)} />
        <label htmlFor="profile">Profile</label>
        <input id="profile" value={profile} onChange={(e) => setProfile(e.target.value)} />
        <div className="actions">
          <button type="submit">Preview plan</button>
          <button type="button" onClick={() => run.mutate()} disabled={run.isPending}>
            {run.isPending ? 'Running…' : 'Run'}
          </button>
          <button type="button" className="link" onClick={() => void navigator.clipboard?.writeText(`${location.origin}${location.pathname}#/playground?goal=${encodeURIComponent(goal)}`)}>
            Copy link to this goal
          </button>
        </div>
        <p className="hint">
          Try:{' '}
          {EXAMPLES.map((example) => (
            <button key={example} type="button" className="chip" onClick={() => setGoal(example)}>
              {example}
            </button>
          ))}
        </p>
      </form>
      {plan.error || run.error ? <p role="alert" className="bad">{((plan.error ?? run.error) as Error).message}</p> : null}
      {plan.data ? (
        <>
          <h2>Plan ({plan.data.stopReason})</h2>
          <ol>
            {plan.data.steps.map((step) => (
              <li key={step.name}>
                <code>
                  {step.tool}({JSON.stringify(step.input)})
                </code>
              </li>
            ))}
          </ol>
          <h2>Every candidate</h2>
          <table>
            <thead>
              <tr>
                <th scope="col">Clause</th>
                <th scope="col">Tool</th>
                <th scope="col">Similarity</th>
                <th scope="col">Cost</th>
                <th scope="col">Latency ms</th>
                <th scope="col">Score</th>
                <th scope="col">Why</th>
              </tr>
            </thead>
            <tbody>
              {plan.data.candidates.map((c) => (
                <tr key={`${c.clause}-${c.tool}`} className={c.selected ? 'selected' : undefined}>
                  <td>{c.clause}</td>
                  <td>
                    <code>{c.tool}</code>
                  </td>
                  <td>{c.similarity.toFixed(3)}</td>
                  <td>{c.cost}</td>
                  <td>{c.latency}</td>
                  <td>{c.score.toFixed(3)}</td>
                  <td>{c.reason}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      ) : null}
    </section>
  );
}
