import { MaxStepsError, ValidationError, toCugarError } from '../../errors.ts';
import { canonicalJson } from '../../journal/canonicalJson.ts';
import { sha256Hex } from '../../journal/sha256.ts';
import { addUsage, budgetExceededError, checkReservation } from '../../planning/planningAuthority.ts';
import { isStepReference } from '../../planning/slotFilling.ts';
import type { BudgetUsage } from '../../schema/budget.ts';
import type { ToolDefinition } from '../../tools/tool.ts';
import type { RunState, StepState } from '../runState.ts';
import { outputsOf } from '../runState.ts';
import { entry, type Entry, type StageContext, type Stop } from './entry.ts';

/** Replace `{ "$ref": "step-N" }` values with the outputs of earlier steps. */
export function resolveReferences(input: Record<string, unknown>, outputs: Record<string, unknown>): Record<string, unknown> {
  const resolved: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    if (isStepReference(value)) {
      if (!Object.hasOwn(outputs, value.$ref)) {
        throw new ValidationError(`input "${key}" refers to step "${value.$ref}", which has no output`, { code: 'invalid_reference' });
      }
      resolved[key] = outputs[value.$ref];
    } else resolved[key] = value;
  }
  return resolved;
}

function hasReferences(input: Record<string, unknown>): boolean {
  for (const key in input) if (isStepReference(input[key])) return true;
  return false;
}

/** The first step that has not completed. Steps complete in order, so the search resumes where it last stopped (reset by every new plan). */
export function nextStep(state: RunState): StepState | undefined {
  const steps = state.steps;
  let i = state.cursor;
  while (i < steps.length && steps[i]!.status === 'completed') i++;
  state.cursor = i;
  return steps[i];
}

/**
 * The steps that may run beside `first` in one wave, at most `max`, in plan order: the
 * consecutive steps after it that wait for their first or next attempt, call an idempotent tool
 * that needs no approval, and refer to no step that has not completed. The first step that does
 * not qualify ends the wave, so a wave never runs a step ahead of one it might depend on.
 */
export function waveMembers(state: RunState, context: StageContext, first: StepState, max: number): StepState[] {
  const members: StepState[] = [];
  const from = state.stepIndex.get(first.stepId);
  if (from === undefined) return members;
  for (let i = from + 1; i < state.steps.length && members.length < max; i++) {
    const step = state.steps[i]!;
    if (step.status === 'completed') continue;
    if (step.status !== 'pending' || step.escalated) break;
    if (dependsOnPending(state, step)) break;
    let tool: ToolDefinition;
    try {
      tool = context.registry.resolve(state.inputs.profile, step.tool);
    } catch {
      break; // its own turn reports the unknown tool
    }
    if (!tool.idempotent || tool.requiresApproval) break;
    members.push(step);
  }
  return members;
}

/** Whether `step` refers to the output of a step that has not completed. */
function dependsOnPending(state: RunState, step: StepState): boolean {
  for (const key in step.input) {
    const value = step.input[key];
    if (!isStepReference(value)) continue;
    const position = state.stepIndex.get(value.$ref);
    if (position === undefined || state.steps[position]!.status !== 'completed') return true;
  }
  return false;
}

/** The stop when starting `step` would run more steps than the run allows. */
export function stepLimit(state: RunState, step: StepState): Stop | undefined {
  if (step.attempt !== 0) return undefined;
  const executed = state.executed;
  if (executed < state.inputs.maxSteps) return undefined;
  return { stopReason: 'max_steps', error: new MaxStepsError(executed).toJSON() };
}

/** A step's arguments, ready to call: references resolved, checked by the policy and the tool's schema. */
export type PreparedInput = { ok: true; input: Record<string, unknown>; argsHash: string } | { ok: false; entries: Entry[] };

/** Resolve and check a step's input; invalid input fails the step for good, before anything runs. */
export function prepareInput(state: RunState, step: StepState, tool: ToolDefinition, context: StageContext): PreparedInput {
  try {
    const resolved = hasReferences(step.input) ? resolveReferences(step.input, outputsOf(state)) : step.input;
    // One canonical text gives both the plain-data copy and the argument hash.
    const text = canonicalJson(context.policy.checkStep(state.inputs.profile, tool, resolved));
    return { ok: true, input: JSON.parse(text) as Record<string, unknown>, argsHash: sha256Hex(text) };
  } catch (thrown) {
    const error = toCugarError(thrown, { code: 'invalid_input', failureMode: 'USER' });
    return {
      ok: false,
      entries: [entry('tool_call_error', { stepId: step.stepId, attempt: step.attempt, error: error.toJSON(), retryable: false, final: true })],
    };
  }
}

/**
 * The approval gate: the events that pause the run for a human, or nothing when the call may
 * go ahead. A non-idempotent step that started without a recorded outcome may have had its
 * effect, so only a human may let it run again.
 */
export function approvalGate(
  state: RunState,
  step: StepState,
  tool: ToolDefinition,
  input: Record<string, unknown>,
  argsHash: string,
  context: StageContext,
): Entry[] | undefined {
  const unknownOutcome = step.status === 'started' && !tool.idempotent;
  const needsApproval = unknownOutcome || tool.requiresApproval || context.requiresApproval?.({ tool, input, profile: state.inputs.profile }) === true;
  if (!needsApproval || (!unknownOutcome && step.approvedArgs.includes(argsHash))) return undefined;
  // From version 2 on the id carries the journal's head hash, which nobody outside the run can
  // predict, so no one can claim an approval id before the run requests it.
  const base = `${state.runId}:${step.stepId}:${state.head.seq + 1}`;
  const approvalId = (state.inputs.version ?? 1) >= 2 ? `${base}:${state.head.hash.slice(0, 16)}` : base;
  const timeoutMs = state.inputs.approval.timeoutMs;
  return [
    entry('approval_requested', {
      approvalId,
      stepId: step.stepId,
      tool: tool.name,
      args: input,
      argsHash,
      reason: unknownOutcome ? 'unknown_outcome: the call started but its result was never recorded' : 'tool requires approval',
      ...(timeoutMs !== undefined ? { deadline: state.updatedAt + timeoutMs } : {}),
    }),
    entry('run_paused', { reason: 'awaiting_approval', approvalId }),
  ];
}

/** A call cleared to start: the events that make it durable before its side effect, and what it reserved. */
export interface ClearedCall {
  entries: Entry[];
  reserved: BudgetUsage;
  attempt: number;
  idempotencyKey: string;
}

/**
 * The budget gate and the durable start: reserve the call's cost against the run's and the
 * profile's ceilings (`profileUsedBefore` is the profile's spending, read only when it has a
 * budget). Over a ceiling the step fails for good with `budget_exceeded`; near one a
 * `budget_warning` precedes the `tool_call_start`.
 */
export function reserveCall(
  state: RunState,
  step: StepState,
  tool: ToolDefinition,
  input: Record<string, unknown>,
  argsHash: string,
  profileUsedBefore: BudgetUsage | undefined,
): { refused: Entry[] } | ClearedCall {
  const { inputs } = state;
  const reserved: BudgetUsage = { cost: tool.cost, calls: 1, tokens: tool.tokens };
  const runCheck = checkReservation(inputs.budget, state.usage, reserved);
  const profileCheck =
    inputs.profileBudget && profileUsedBefore ? checkReservation(inputs.profileBudget, profileUsedBefore, reserved) : { exceeded: [], warnings: [] };
  const exceeded = runCheck.exceeded.length ? ('run' as const) : profileCheck.exceeded.length ? ('profile' as const) : undefined;
  if (exceeded) {
    const error = budgetExceededError(exceeded, exceeded === 'run' ? runCheck.exceeded : profileCheck.exceeded);
    const usage = exceeded === 'run' ? state.usage : profileUsedBefore!;
    return {
      refused: [
        entry('budget_exceeded', {
          stepId: step.stepId,
          scope: exceeded,
          usage,
          reserved,
          error: error.toJSON(),
          ...(profileUsedBefore ? { profileUsedBefore } : {}),
        }),
      ],
    };
  }
  const entries: Entry[] = [];
  if (runCheck.warnings.length)
    entries.push(entry('budget_warning', { scope: 'run', dimensions: runCheck.warnings, usage: addUsage(state.usage, reserved), budget: inputs.budget }));
  if (profileCheck.warnings.length)
    entries.push(
      entry('budget_warning', {
        scope: 'profile',
        dimensions: profileCheck.warnings,
        usage: addUsage(profileUsedBefore!, reserved),
        budget: inputs.profileBudget!,
      }),
    );
  const rerun = step.status === 'started';
  const attempt = rerun ? step.attempt : step.nextAttempt;
  const idempotencyKey = `${state.runId}:${step.stepId}`;
  entries.push(
    entry('tool_call_start', {
      stepId: step.stepId,
      index: step.index,
      tool: tool.name,
      input,
      argsHash,
      attempt,
      idempotencyKey,
      worker: step.worker!,
      reserved,
      ...(profileUsedBefore ? { profileUsedBefore } : {}),
      ...(rerun ? { rerun: true as const } : {}),
    }),
  );
  return { entries, reserved, attempt, idempotencyKey };
}
