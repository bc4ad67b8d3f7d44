import { useQuery } from '@tanstack/react-query';
import { client, unwrap } from './api.ts';

export interface Usage {
  cost: number;
  calls: number;
  tokens: number;
}

export interface Ceilings {
  costCeiling?: number;
  callCeiling?: number;
  tokenCeiling?: number;
  warnThreshold?: number;
}

const DIMENSIONS = [
  { key: 'cost', ceiling: 'costCeiling', label: 'Cost' },
  { key: 'calls', ceiling: 'callCeiling', label: 'Calls' },
  { key: 'tokens', ceiling: 'tokenCeiling', label: 'Tokens' },
] as const;

const round = (n: number) => Math.round(n * 1000) / 1000;

/**
 * One meter per budget dimension: spent against the ceiling, turning amber at the warning
 * threshold (the orchestrator's `budget_warning` point) so the warning shows before the
 * ceiling refuses a call. Dimensions without a ceiling show what was spent.
 */
export function BudgetMeters({ title, usage, budget }: { title: string; usage: Usage; budget?: Ceilings | undefined }) {
  const warnAt = budget?.warnThreshold ?? 0.8;
  const id = title.replace(/[^a-zA-Z0-9]/g, '-').toLowerCase();
  return (
    <div className="meters" role="group" aria-labelledby={`${id}-meters`}>
      <h3 id={`${id}-meters`}>{title}</h3>
      {DIMENSIONS.map(({ key, ceiling: field, label }) => {
        const used = usage[key];
        const ceiling = budget?.[field];
        if (ceiling === undefined) {
          return (
            <p key={key} className="meter-row">
              <span className="meter-label">{label}</span> {round(used)} <span className="hint">(no ceiling)</span>
            </p>
          );
        }
        const share = ceiling > 0 ? used / ceiling : used > 0 ? Infinity : 0;
        const level = share >= 1 ? 'over' : share >= warnAt ? 'warn' : 'ok';
        return (
          <p key={key} className={`meter-row ${level}`}>
            <label htmlFor={`${id}-${key}`} className="meter-label">
              {label}
            </label>{' '}
            <meter id={`${id}-${key}`} min={0} max={Math.max(ceiling, used)} low={warnAt * ceiling} high={warnAt * ceiling} optimum={0} value={used} />{' '}
            {round(used)} of {round(ceiling)}
            {level === 'warn' ? (
              <strong className="warn-text">
                {' '}
                · {Math.round(share * 100)}% used, past the {Math.round(warnAt * 100)}% warning
              </strong>
            ) : null}
            {level === 'over' ? <strong className="bad"> · ceiling reached</strong> : null}
          </p>
        );
      })}
    </div>
  );
}

/** The profile's shared budget, refreshed while the page is open. */
export function ProfileBudget({ token, profile }: { token: string; profile: string }) {
  const budget = useQuery({
    queryKey: ['budget', profile],
    queryFn: () => unwrap(client(token).v1.profiles[':profile'].budget.$get({ param: { profile: encodeURIComponent(profile) } })),
    refetchInterval: 5000,
  });
  if (!budget.data) return null;
  return <BudgetMeters title={`Profile ${profile}`} usage={budget.data.usage} budget={budget.data.budget} />;
}
