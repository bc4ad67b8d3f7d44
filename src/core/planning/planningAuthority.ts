import { ConflictError, PolicyViolationError } from '../errors.ts';
import { ToolBudgetSchema, type BudgetUsage, type ToolBudget } from '../schema/budget.ts';
import type { PlanStage } from '../schema/plan.ts';
import { parseOrThrow } from '../schema/validate.ts';

const NEXT: Readonly<Record<PlanStage, readonly PlanStage[]>> = {
  CREATED: ['VALIDATED', 'FAILED'],
  VALIDATED: ['EXECUTING', 'FAILED'],
  EXECUTING: ['COMPLETED', 'FAILED'],
  COMPLETED: [],
  FAILED: [],
};

/**
 * The plan state machine: `CREATED → VALIDATED → EXECUTING → COMPLETED | FAILED`. No
 * skipping; terminal states are final; repeating the current state is a no-op (returns
 * `false`), so a replayed or resumed transition is harmless.
 */
export function transitionPlan(from: PlanStage, to: PlanStage): boolean {
  if (from === to) return false;
  if (!NEXT[from].includes(to)) {
    throw new ConflictError(`plan cannot go from ${from} to ${to}`, { code: 'invalid_plan_transition', details: { from, to } });
  }
  return true;
}

/** Parse a budget; negative or non-finite ceilings throw a `ValidationError` (`invalid_budget`). */
export function parseBudget(input: unknown): ToolBudget {
  return parseOrThrow(ToolBudgetSchema, input ?? {}, 'budget', 'invalid_budget');
}

export const ZERO_USAGE: Readonly<BudgetUsage> = Object.freeze({ cost: 0, calls: 0, tokens: 0 });

/**
 * Add two costs as money is added: to the 12th decimal, so 0.1 + 0.2 is 0.3 in every meter,
 * export and ceiling check instead of 0.30000000000000004.
 */
export function addCost(a: number, b: number): number {
  return Math.round((a + b) * 1e12) / 1e12;
}

/** Add two usages. */
export function addUsage(a: BudgetUsage, b: BudgetUsage): BudgetUsage {
  return { cost: addCost(a.cost, b.cost), calls: a.calls + b.calls, tokens: a.tokens + b.tokens };
}

type Dimension = 'cost' | 'calls' | 'tokens';
const CEILING: Record<Dimension, 'costCeiling' | 'callCeiling' | 'tokenCeiling'> = { cost: 'costCeiling', calls: 'callCeiling', tokens: 'tokenCeiling' };

/** The outcome of checking a reservation against a budget. */
export interface BudgetCheck {
  /** Dimensions whose ceiling the reservation would pass: the call must not happen. */
  exceeded: Dimension[];
  /** Dimensions that reach the warning threshold with this reservation for the first time. */
  warnings: Dimension[];
}

/**
 * Check reserving `reservation` on top of `used` against `budget`. A reservation that would
 * take any dimension past its ceiling is refused as a whole; one that reaches
 * `warnThreshold × ceiling` (and had not before) raises a warning.
 */
export function checkReservation(budget: ToolBudget, used: BudgetUsage, reservation: BudgetUsage): BudgetCheck {
  const exceeded: Dimension[] = [];
  const warnings: Dimension[] = [];
  for (const dimension of ['cost', 'calls', 'tokens'] as const) {
    const ceiling = budget[CEILING[dimension]];
    if (ceiling === undefined) continue;
    const after = used[dimension] + reservation[dimension];
    // Tolerate float dust so a ceiling of 0.3 admits 0.1 + 0.2.
    if (after > ceiling + 1e-9 * Math.max(1, ceiling)) exceeded.push(dimension);
    else if (after >= budget.warnThreshold * ceiling && used[dimension] < budget.warnThreshold * ceiling && reservation[dimension] > 0)
      warnings.push(dimension);
  }
  return { exceeded, warnings };
}

/** The error a refused reservation fails the step with. */
export function budgetExceededError(scope: 'run' | 'profile', exceeded: readonly string[]): PolicyViolationError {
  return new PolicyViolationError(`the ${scope} budget would be exceeded (${exceeded.join(', ')})`, { code: 'budget_exceeded', details: { scope, exceeded } });
}
