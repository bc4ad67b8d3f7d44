import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent, type ReactNode } from 'react';
import { PROFILE_PATTERN, client as apiClient, currentMode, unwrap, type Plan, type RunOutcome } from './api.ts';
import { clearHistory, recentRuns, recordRun } from './history.ts';
import { TryIt, type Tool } from './Tools.tsx';

const EXAMPLES = [
  'add 2 and 3, then multiply the result by 4',
  'send a message to bob saying hi',
  'calculate (2 + 3) * 4 ^ 2',
  'rag_query(query="how do approvals time out")',
  'send_message(to="ops", text="deploy finished")',
];

/** Each filled argument of a ranked plan: its step, name, value, and where in the goal it came from and why. */
interface Filled {
  step: number;
  name: string;
  value: unknown;
  start: number;
  end: number;
  reason: string;
}

function filledArguments(plan: Plan): Filled[] {
  return plan.steps.flatMap((step) =>
    Object.entries(step.sources ?? {}).map(([name, source]) => ({ step: step.index, name, value: step.input[name], ...source })),
  );
}

/** The goal with the words each argument was read from marked and labelled with the argument. */
function MarkedGoal({ goal, marks }: { goal: string; marks: ReadonlyArray<{ label: string; start: number; end: number; reason: string }> }) {
  const parts: ReactNode[] = [];
  let at = 0;
  for (const mark of [...marks].filter((m) => m.end > m.start && m.end <= goal.length).sort((a, b) => a.start - b.start)) {
    if (mark.start < at) continue;
    parts.push(goal.slice(at, mark.start));
    parts.push(
      <mark key={`${mark.label}-${mark.start}`} title={`${mark.label}: ${mark.reason}`}>
        {goal.slice(mark.start, mark.end)}
        <sub>{mark.label}</sub>
      </mark>,
    );
    at = mark.end;
  }
  parts.push(goal.slice(at));
  return <p className="goal-text">{parts}</p>;
}

/**
 * A plan before it runs: the goal with each argument's words marked, each step's arguments with
 * the words they came from and why, the clauses no tool serves (with the closest tools), a form
 * for the arguments the goal lacks, and every candidate with its scores.
 */
function PlanPreview({
  plan,
  tools,
  token,
  profile,
  onPickTool,
  onRun,
}: {
  plan: Plan;
  tools: readonly Tool[];
  token: string;
  profile: string;
  onPickTool: (tool: string) => void;
  onRun: (outcome: RunOutcome, tool: string) => void;
}) {
  const filled = filledArguments(plan);
  const many = plan.steps.length > 1;
  const asked = plan.inputRequired;
  const askedTool = asked ? tools.find((t) => t.name === asked.tool) : undefined;
  const askedMarks = asked ? Object.entries(asked.sources).map(([name, source]) => ({ label: name, ...source })) : [];
  return (
    <section aria-labelledby="plan-title">
      <h2 id="plan-title">Plan ({plan.stopReason.replaceAll('_', ' ')})</h2>
      <MarkedGoal goal={plan.goal} marks={[...filled.map((f) => ({ ...f, label: many ? `${f.step + 1}.${f.name}` : f.name })), ...askedMarks]} />
      {plan.steps.length ? (
        <ol className="plan-steps">
          {plan.steps.map((step) => (
            <li key={step.name}>
              <code>
                {step.tool}({JSON.stringify(step.input)})
              </code>
              {filled.some((f) => f.step === step.index) ? (
                <table>
                  <caption className="visually-hidden">Arguments of {step.name}</caption>
                  <thead>
                    <tr>
                      <th scope="col">Argument</th>
                      <th scope="col">Value</th>
                      <th scope="col">From the goal</th>
                      <th scope="col">Why</th>
                    </tr>
                  </thead>
                  <tbody>
                    {filled
                      .filter((f) => f.step === step.index)
                      .map((f) => (
                        <tr key={f.name}>
                          <td>
                            <code>{f.name}</code>
                          </td>
                          <td>
                            <code>{JSON.stringify(f.value)}</code>
                          </td>
                          <td>{f.end > f.start ? <q>{plan.goal.slice(f.start, f.end)}</q> : '—'}</td>
                          <td>{f.reason}</td>
                        </tr>
                      ))}
                  </tbody>
                </table>
              ) : null}
            </li>
          ))}
        </ol>
      ) : null}
      {plan.refusals?.length ? (
        <>
          <h3>Not planned</h3>
          <ul className="refusals">
            {plan.refusals.map((refusal) => (
              <li key={refusal.clause}>
                <q>{refusal.text}</q>: {refusal.message} <span className="hint">({refusal.code.replaceAll('_', ' ')})</span>
                {refusal.suggestions.length ? (
                  <>
                    {' '}
                    Closest tools:{' '}
                    {refusal.suggestions.map((name) => (
                      <button key={name} type="button" className="chip" onClick={() => onPickTool(name)} aria-label={`Call ${name} directly`}>
                        {name}
                      </button>
                    ))}
                  </>
                ) : null}
              </li>
            ))}
          </ul>
        </>
      ) : null}
      {asked ? (
        <>
          <h3>
            <code>{asked.tool}</code> needs more
          </h3>
          <p>
            The goal does not give{' '}
            {asked.missing.map((m, i) => (
              <span key={m.name}>
                {i ? ', ' : ''}
                <code>{m.name}</code>
                {m.description ? ` (${m.description})` : ''}
              </span>
            ))}
            . Fill it in and run:
          </p>
          {askedTool ? (
            <TryIt
              key={`${plan.goal}-${asked.tool}`}
              token={token}
              profile={profile}
              tool={askedTool}
              values={asked.input}
              onRun={(outcome) => onRun(outcome, asked.tool)}
            />
          ) : null}
        </>
      ) : null}
      <h3>Every candidate</h3>
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
          {plan.candidates.map((c) => (
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
    </section>
  );
}

function ceiling(text: string): number | undefined {
  if (text.trim() === '') return undefined;
  const value = Number(text);
  return Number.isFinite(value) && value >= 0 ? value : undefined;
}

function History({ onPick }: { onPick: (goal: string, profile: string) => void }) {
  const client = useQueryClient();
  const history = useQuery({ queryKey: ['history'], queryFn: () => recentRuns(20) });
  if (!history.data?.length) return null;
  return (
    <section aria-labelledby="history-title">
      <h2 id="history-title">Your recent runs</h2>
      <p className="hint">Kept in this browser's storage.</p>
      <ul className="history">
        {history.data.map((entry) => (
          <li key={entry.id}>
            <span className={`status ${entry.status}`}>{entry.status}</span>{' '}
            {entry.mode === currentMode() && (entry.mode === 'local' || entry.origin === location.origin) ? (
              <a href={`#/runs/${encodeURIComponent(entry.runId)}`}>{entry.goal}</a>
            ) : (
              <span>{entry.goal}</span>
            )}{' '}
            <span className="hint">
              · {entry.profile} · {entry.mode === 'local' ? 'in this browser' : entry.origin} ·{' '}
              <time dateTime={new Date(entry.at).toISOString()}>{new Date(entry.at).toLocaleString()}</time>
            </span>{' '}
            <button type="button" className="link" onClick={() => onPick(entry.goal, entry.profile)} aria-label={`Reuse: ${entry.goal}`}>
              use again
            </button>
          </li>
        ))}
      </ul>
      <button type="button" className="link" onClick={() => void clearHistory().then(() => client.invalidateQueries({ queryKey: ['history'] }))}>
        Clear this list
      </button>
    </section>
  );
}

export function Playground({ token, profile: initialProfile }: { token: string; profile: string }) {
  const client = useQueryClient();
  const initial = new URLSearchParams(window.location.hash.split('?')[1] ?? '').get('goal') ?? EXAMPLES[0]!;
  const [goal, setGoal] = useState(initial);
  const [profile, setProfile] = useState(initialProfile);
  const [costCeiling, setCostCeiling] = useState('');
  const [callCeiling, setCallCeiling] = useState('');
  const [toolName, setToolName] = useState('');
  const [copied, setCopied] = useState(false);
  const tools = useQuery({
    queryKey: ['tools', profile],
    queryFn: () => unwrap(apiClient(token).v1.profiles[':profile'].tools.$get({ param: { profile: encodeURIComponent(profile) } })),
    enabled: PROFILE_PATTERN.test(profile),
  });
  const plan = useMutation({ mutationFn: () => unwrap(apiClient(token).v1.plan.$post({ json: { goal, profile } })) });
  const remember = async (outcome: Pick<RunOutcome, 'runId' | 'profile' | 'status'>, text: string) => {
    await recordRun({ goal: text, profile: outcome.profile, runId: outcome.runId, status: outcome.status, mode: currentMode() }).catch(() => undefined);
    await client.invalidateQueries({ queryKey: ['history'] });
  };
  // The API accepts the run at once (202): the run page opens and follows its events live.
  const run = useMutation({
    mutationFn: (text: string) => {
      const cost = ceiling(costCeiling);
      const calls = ceiling(callCeiling);
      const budget = { ...(cost !== undefined ? { costCeiling: cost } : {}), ...(calls !== undefined ? { callCeiling: calls } : {}) };
      return unwrap(
        apiClient(token).v1.runs.$post({ json: { goal: text, profile, ...(Object.keys(budget).length ? { budget } : {}) }, query: {}, header: {} }),
      );
    },
    onSuccess: async (answer, text) => {
      await remember({ runId: answer.runId, profile, status: answer.status }, text);
      window.location.hash = `#/runs/${encodeURIComponent(answer.runId)}`;
    },
  });
  const start = () => run.mutate(goal);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    plan.mutate();
  };
  const copyLink = () => {
    const link = `${location.origin}${location.pathname}#/playground?goal=${encodeURIComponent(goal)}`;
    void navigator.clipboard
      ?.writeText(link)
      .then(() => setCopied(true))
      .catch(() => setCopied(false));
  };
  const tool = tools.data?.tools.find((t) => t.name === toolName);
  return (
    <section aria-labelledby="playground-title">
      <h1 id="playground-title">Playground</h1>
      <form onSubmit={submit} className="stack">
        <label htmlFor="goal">Goal</label>
        <textarea id="goal" rows={3} value={goal} onChange={(e) => (setGoal(e.target.value), setCopied(false))} />
        <label htmlFor="profile">Profile</label>
        <input id="profile" value={profile} onChange={(e) => setProfile(e.target.value)} />
        <details>
          <summary>Budget for this run</summary>
          <div className="filters">
            <label>
              Cost ceiling <input type="number" min={0} step="any" value={costCeiling} onChange={(e) => setCostCeiling(e.target.value)} />
            </label>
            <label>
              Call ceiling <input type="number" min={0} step={1} value={callCeiling} onChange={(e) => setCallCeiling(e.target.value)} />
            </label>
          </div>
          <p className="hint">A warning is recorded at 80% of a ceiling; a call that would pass it is refused.</p>
        </details>
        <div className="actions">
          <button type="submit">Preview plan</button>
          <button type="button" onClick={start}>
            Run
          </button>
          <button type="button" className="link" onClick={copyLink}>
            Copy link to this goal
          </button>
          <span role="status" className="hint">
            {copied ? 'Link copied.' : ''}
          </span>
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
      {plan.error || run.error ? (
        <p role="alert" className="bad">
          {((plan.error ?? run.error) as Error).message}
        </p>
      ) : null}
      {plan.data ? (
        <PlanPreview
          plan={plan.data}
          tools={tools.data?.tools ?? []}
          token={token}
          profile={profile}
          onPickTool={setToolName}
          onRun={(outcome, tool) => void remember(outcome, `try ${tool}`).then(() => (window.location.hash = `#/runs/${encodeURIComponent(outcome.runId)}`))}
        />
      ) : null}
      <h2>Call one tool</h2>
      <label htmlFor="direct-tool">Tool</label>{' '}
      <select id="direct-tool" value={toolName} onChange={(e) => setToolName(e.target.value)}>
        <option value="">choose a tool…</option>
        {tools.data?.tools.map((t) => (
          <option key={t.name}>{t.name}</option>
        ))}
      </select>
      {tool ? (
        <>
          <p className="hint">{tool.description}</p>
          <TryIt
            key={tool.name}
            token={token}
            profile={profile}
            tool={tool}
            onRun={(outcome) => void remember(outcome, `try ${tool.name}`).then(() => (window.location.hash = `#/runs/${encodeURIComponent(outcome.runId)}`))}
          />
        </>
      ) : null}
      <History onPick={(g, p) => (setGoal(g), setProfile(p))} />
    </section>
  );
}
