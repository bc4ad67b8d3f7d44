import { addUsage } from '../planning/planningAuthority.ts';
import { BudgetUsageSchema } from '../schema/budget.ts';
import type { JournalEvent } from '../schema/journalEvent.ts';
import type { RunState, StepState } from './runState.ts';

// Events beside a run's own steps and turns that still count in its state: the model call that
// writes its reflection, and the spending of the sub-runs it delegated to.

/**
 * What a sub-run spent, from its delegate call's result (or failure): a run that may delegate
 * counts its sub-runs' spending as its own, so its ceilings bound the whole tree.
 */
export function addSubRunUsage(state: RunState, step: StepState, carrier: unknown): void {
  if (!state.inputs.agent?.delegate || step.tool !== 'delegate' || typeof carrier !== 'object' || carrier === null) return;
  const { runId, usage } = carrier as { runId?: unknown; usage?: unknown };
  const parsed = BudgetUsageSchema.safeParse(usage);
  if (typeof runId === 'string' && runId.startsWith(`${state.runId}.`) && parsed.success) state.usage = addUsage(state.usage, parsed.data);
}

/** Fold an event of a run's reflection call (purpose `reflect`): attempts, the answer and its usage, or the failure. */
export function applyReflectEvent(state: RunState, event: JournalEvent & { type: 'model_call_start' | 'model_call_error' | 'model_call_complete' }): void {
  if (event.type === 'model_call_start') state.reflectAttempts++;
  else if (event.type === 'model_call_error') state.reflectFailed = true;
  else {
    state.reflectAnswer = event.data.text;
    state.usage = addUsage(state.usage, { cost: event.data.cost, calls: 0, tokens: event.data.usage.totalTokens });
  }
}
