import { CugarError } from '../../errors.ts';
import { transitionPlan } from '../../planning/planningAuthority.ts';
import type { ErrorInfo } from '../../schema/error.ts';
import type { PlanStage } from '../../schema/plan.ts';
import type { Reflector } from '../autonomy.ts';
import { partialResult } from '../partialResult.ts';
import { failureModeOf, outputsOf, type RunState, type StepState } from '../runState.ts';
import { entry, type Entry, type Stop } from './entry.ts';

function transitionAllowed(from: PlanStage, to: PlanStage): boolean {
  try {
    return transitionPlan(from, to);
  } catch {
    return false;
  }
}

/**
 * Aggregate and complete, appended as one atomic batch: the closing reflection (`summary`,
 * written by the session: the journal's account or a model's for runs with memory in the loop;
 * given a {@link Reflector}, its one-line summary, as runs recorded before that finish), the plan's terminal state and `run_completed`.
 */
export function finishRun(state: RunState, stop: Stop, summary: string | Reflector): Entry[] {
  const { stopReason, error } = stop;
  const success = error === undefined;
  const text = typeof summary === 'string' ? summary : summary.summarize({ ...state, stopReason }, state.updatedAt, success ? 'completed' : 'stopped');
  const entries: Entry[] = [];
  if (state.stage !== 'aggregate' && state.stage !== 'complete') entries.push(entry('stage', { stage: 'aggregate' }));
  const outputs = outputsOf(state);
  entries.push(entry('reflection', { trigger: 'run_end', summary: text }));
  entries.push(entry('stage', { stage: 'complete' }));
  const target: PlanStage = success ? 'COMPLETED' : 'FAILED';
  if (state.plans.length && state.planStage !== target && transitionAllowed(state.planStage, target)) {
    entries.push(entry('plan_transition', { planId: state.plans.at(-1)!.planId, from: state.planStage, to: target }));
  }
  const completed = state.steps.filter((s) => s.status === 'completed');
  const partial = success
    ? undefined
    : partialResult(
        completed.map((s) => s.stepId),
        completed.at(-1)?.output ?? null,
        failureModeOf(error),
      );
  entries.push(entry('run_completed', { success, stopReason, outputs, ...(error ? { error } : {}), ...(partial ? { partial } : {}) }));
  return entries;
}

/**
 * What a step that failed for good means for its run: an AGENT failure replans without the
 * failed tools while replans remain; anything else stops the run.
 */
export function afterFinalFailure(state: RunState, step: StepState): { replan: { exclude: string[]; reason: string } } | { stop: Stop } {
  const error: ErrorInfo = step.error ?? new CugarError(`${step.stepId} failed`, { code: 'step_failed', failureMode: 'AGENT' }).toJSON();
  const { autonomy } = state.inputs;
  if (failureModeOf(error) === 'AGENT' && autonomy.replan && state.replans < autonomy.maxReplans) {
    const exclude = [...new Set(state.steps.filter((s) => s.status === 'failed').map((s) => s.tool))];
    return { replan: { exclude, reason: `${step.stepId} (${step.tool}) failed: ${error.code}` } };
  }
  return { stop: { stopReason: error.code === 'approval_rejected' ? 'approval_rejected' : 'failed', error } };
}
