import type { ReactNode } from 'react';
import type { TraceRow } from './spans.ts';

type PlanRow = TraceRow & { type: 'plan_created' };
type Plan = PlanRow['data']['plan'];

/** The plan the run follows now: the newest revision among its `plan_created` records. */
export function currentPlan(records: readonly TraceRow[]): Plan | undefined {
  let newest: PlanRow | undefined;
  for (const record of records) if (record.type === 'plan_created' && (!newest || record.data.revision >= newest.data.revision)) newest = record;
  return newest?.data.plan;
}

/** The goal with the spans that filled arguments marked, each titled with its argument and reason. */
function MarkedGoal({ goal, sources }: { goal: string; sources: ReadonlyArray<{ name: string; start: number; end: number; reason: string }> }) {
  const marks = [...sources].filter((s) => s.end > s.start && s.end <= goal.length).sort((a, b) => a.start - b.start);
  const parts: ReactNode[] = [];
  let at = 0;
  for (const mark of marks) {
    if (mark.start < at) continue;
    parts.push(goal.slice(at, mark.start));
    parts.push(
      <mark key={`${mark.name}-${mark.start}`} title={`${mark.name}: ${mark.reason}`}>
        {goal.slice(mark.start, mark.end)}
        <sub>{mark.name}</sub>
      </mark>,
    );
    at = mark.end;
  }
  parts.push(goal.slice(at));
  return <p className="goal-text">{parts}</p>;
}

/**
 * The run page's account of what was asked and how it was planned: the goal, each step's tool
 * and input with why the planner chose that tool and where each argument came from in the
 * goal, and, for a plan that stopped short, the clauses no tool served and what was missing.
 */
export function RunPlan({ goal, records }: { goal: string; records: readonly TraceRow[] }) {
  const plan = currentPlan(records);
  // With several steps, a mark names its step too: "2.b" is step 2's argument b.
  const steps = plan?.steps ?? [];
  const sources = steps.flatMap((step) =>
    Object.entries(step.sources ?? {}).map(([name, source]) => ({ name: steps.length > 1 ? `${step.index + 1}.${name}` : name, ...source })),
  );
  return (
    <section aria-labelledby="run-goal">
      <h2 id="run-goal">Goal</h2>
      <MarkedGoal goal={goal} sources={sources} />
      {plan ? (
        <>
          <h2>Plan</h2>
          <p className="hint">
            {plan.source === 'pattern'
              ? 'The goal named its tool calls.'
              : plan.source === 'agent'
                ? 'A model chose the tools turn by turn.'
                : 'Tools ranked against each part of the goal.'}{' '}
            Stopped: {plan.stopReason.replaceAll('_', ' ')}.
          </p>
          {plan.steps.length ? (
            <table className="plan-steps">
              <thead>
                <tr>
                  <th scope="col">Step</th>
                  <th scope="col">Tool</th>
                  <th scope="col">Input</th>
                  <th scope="col">Why this tool</th>
                </tr>
              </thead>
              <tbody>
                {plan.steps.map((step) => {
                  const chosen = plan.candidates.find((c) => c.selected && c.tool === step.tool);
                  return (
                    <tr key={step.name}>
                      <td>{step.name}</td>
                      <td>
                        <code>{step.tool}</code>
                      </td>
                      <td>
                        <code>{JSON.stringify(step.input)}</code>
                      </td>
                      <td>
                        {chosen ? chosen.reason : plan.source === 'pattern' ? 'named in the goal' : '—'}
                        {chosen?.matched?.length ? ` (matched: ${chosen.matched.join(', ')})` : ''}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          ) : null}
          {plan.refusals?.length ? (
            <ul className="refusals">
              {plan.refusals.map((refusal) => (
                <li key={refusal.clause}>
                  “{refusal.text}”: {refusal.message}
                  {refusal.suggestions.length ? ` Closest tools: ${refusal.suggestions.join(', ')}.` : ''}
                </li>
              ))}
            </ul>
          ) : null}
          {plan.inputRequired ? (
            <p>
              <code>{plan.inputRequired.tool}</code> needs {plan.inputRequired.missing.map((m) => m.name).join(', ')}, which the goal does not give.
            </p>
          ) : null}
        </>
      ) : null}
    </section>
  );
}
