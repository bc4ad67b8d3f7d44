import { NoRelevantToolError, toCugarError } from '../../errors.ts';
import { toJsonData } from '../../journal/canonicalJson.ts';
import { REFLECTION_NAMESPACE, toolsToAvoid, type RecalledNote } from '../../memory/runMemory.ts';
import { transitionPlan } from '../../planning/planningAuthority.ts';
import type { ErrorInfo } from '../../schema/error.ts';
import type { Plan, PlanStage } from '../../schema/plan.ts';
import { reviseSteps, type RunState } from '../runState.ts';
import { entry, type Entry, type StageContext, type Stop } from './entry.ts';

/** What planning decided: the events to append, and why the run stops when the plan cannot run. */
export interface PlanDecision {
  entries: Entry[];
  stop?: Stop;
}

/** What a run with memory in the loop recalled before its first plan: the notes, or the error that kept it from them. */
export type RecalledPlanNotes = { notes: RecalledNote[] } | { error: ErrorInfo };

/**
 * What a run with memory in the loop recalled, as the events journaled before its first
 * `plan_created` (`memory_recalled`, or `memory_warning` when memory could not be read), and
 * the tools that failed for a near-identical goal (`toolsToAvoid`), which that plan is made
 * without unless that leaves no plan.
 */
function recallEntries(goal: string, recalled: RecalledPlanNotes | undefined): { entries: Entry[]; avoid: string[] } {
  if (!recalled) return { entries: [], avoid: [] };
  if ('error' in recalled) return { entries: [entry('memory_warning', { operation: 'recall', error: recalled.error })], avoid: [] };
  if (!recalled.notes.length) return { entries: [], avoid: [] };
  const avoid = toolsToAvoid(goal, recalled.notes);
  const notes = recalled.notes.map((note) => ({ ...note }));
  return { entries: [entry('memory_recalled', { namespace: REFLECTION_NAMESPACE, notes, ...(avoid.length ? { avoid } : {}) })], avoid };
}

/**
 * Plan a run (revision 0) or replan it without the tools in `exclude`: the caller's explicit
 * plan or the shared planner's, renamed for the revision, then validated against the profile's
 * policy. `plan_created`, its transitions and the next stage, with a stop when the plan is
 * empty or names a tool the policy refuses.
 */
export function planRun(state: RunState, context: StageContext, exclude: readonly string[] = [], reason?: string, recalled?: RecalledPlanNotes): PlanDecision {
  const { inputs } = state;
  const revision = state.plans.length;
  const planId = `${state.runId}:plan:${revision}`;
  const explicit = revision === 0 ? inputs.plan : undefined;
  const memory = recallEntries(inputs.goal, explicit ? undefined : recalled);
  const request = (without: readonly string[]) =>
    context.planner.plan({
      goal: inputs.goal,
      profile: inputs.profile,
      registry: context.registry,
      traceId: inputs.traceId,
      runId: state.runId,
      planId,
      maxSteps: inputs.maxSteps,
      // Relative dates ("tomorrow") are read against the run's start, so a replan or a replay plans alike.
      now: state.createdAt,
      ...(inputs.preferences ? { preferences: inputs.preferences } : {}),
      exclude: without,
    });
  let planned: Plan;
  if (explicit)
    planned = {
      planId,
      goal: inputs.goal,
      profile: inputs.profile,
      traceId: inputs.traceId,
      steps: explicit,
      candidates: [],
      source: 'pattern',
      stopReason: 'explicit_calls',
    };
  else if (memory.avoid.length) {
    // What failed before is left out, unless nothing else would serve the goal.
    const without = request([...exclude, ...memory.avoid]);
    planned = without.steps.length ? without : request(exclude);
  } else planned = request(exclude);
  let plan: Plan;
  try {
    // An explicit plan is the run's recorded inputs, already JSON data: renamed, it needs no second copy.
    const revised = { ...planned, steps: reviseSteps(planned.steps, revision) };
    plan = explicit ? revised : toJsonData(revised);
  } catch (thrown) {
    // A value with no JSON form (1e999 written in the goal) cannot be journaled, so the plan is never recorded.
    const error = toCugarError(thrown, { code: 'invalid_input', failureMode: 'USER' });
    return { entries: [], stop: { stopReason: 'invalid_input', error: { ...error.toJSON(), code: 'invalid_input', failureMode: 'USER' } } };
  }
  const entries: Entry[] = [];
  if (revision > 0) entries.push(entry('replanned', { revision, excluded: [...exclude], reason: reason ?? 'step failed' }));
  if (state.stage !== 'plan') entries.push(entry('stage', { stage: 'plan' }));
  entries.push(...memory.entries);
  entries.push(entry('plan_created', { revision, plan }));
  let stage: PlanStage = 'CREATED';
  const to = (next: PlanStage) => {
    transitionPlan(stage, next);
    entries.push(entry('plan_transition', { planId: plan.planId, from: stage, to: next }));
    stage = next;
  };
  if (plan.steps.length === 0) {
    return {
      entries,
      stop: {
        stopReason: plan.stopReason,
        error: new NoRelevantToolError(inputs.profile).toJSON(),
      },
    };
  }
  // Validation: every step names a tool of the profile that the profile's policy allows.
  for (const step of plan.steps) {
    try {
      context.policy.checkTool(inputs.profile, context.registry.resolve(inputs.profile, step.tool));
    } catch (thrown) {
      to('FAILED');
      return { entries, stop: { stopReason: 'plan_invalid', error: toCugarError(thrown).toJSON() } };
    }
  }
  to('VALIDATED');
  entries.push(entry('stage', { stage: 'route' }));
  return { entries };
}

/**
 * Route every step that has no worker yet, then enter `execute`. A step no worker can take
 * fails for good (and the run goes on to decide what that means).
 */
export function routeSteps(state: RunState, context: StageContext): Entry[] {
  const entries: Entry[] = [];
  // A parallel run routes each step when it is ready (stepExecution.ts), by the load then.
  for (const step of state.inputs.parallel && !state.agent ? [] : state.steps) {
    if (step.status === 'completed' || step.worker !== undefined) continue;
    const tool = context.registry.resolve(state.inputs.profile, step.tool);
    try {
      const decision = context.coordinator.route(step.stepId, tool);
      entries.push(entry('route_decision', { stepId: step.stepId, worker: decision.worker, policy: decision.policy, reason: decision.reason }));
    } catch (thrown) {
      entries.push(
        entry('tool_call_error', { stepId: step.stepId, attempt: step.attempt, error: toCugarError(thrown).toJSON(), retryable: false, final: true }),
      );
      return entries;
    }
  }
  entries.push(entry('stage', { stage: 'execute' }));
  // An agent run routes each turn's calls while its plan is already executing.
  if (state.agent && state.planStage === 'EXECUTING') return entries;
  transitionPlan(state.planStage, 'EXECUTING');
  entries.push(entry('plan_transition', { planId: state.plans.at(-1)!.planId, from: state.planStage, to: 'EXECUTING' }));
  return entries;
}
