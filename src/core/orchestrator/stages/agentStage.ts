import * as z from 'zod';
import { CugarError, ValidationError, toCugarError } from '../../errors.ts';
import { toJsonData } from '../../journal/canonicalJson.ts';
import { sha256Hex } from '../../journal/sha256.ts';
import { REFLECTION_NAMESPACE } from '../../memory/runMemory.ts';
import type { ModelAnswer } from '../../models/modelCall.ts';
import { MAX_RETRY_AFTER_MS } from '../../models/modelErrors.ts';
import { addCost, budgetExceededError, checkReservation } from '../../planning/planningAuthority.ts';
import { detectToolCalls } from '../../planning/toolCallDetector.ts';
import type { Random } from '../../ports.ts';
import type { CallPurpose, ModelToolCall } from '../../schema/agent.ts';
import type { BudgetUsage } from '../../schema/budget.ts';
import type { JournalEventData } from '../../schema/journalEvent.ts';
import { createRetryPolicy } from '../retryPolicy.ts';
import type { RunState, StepState } from '../runState.ts';
import { reviewVerdict } from './agentReview.ts';
import type { CallTiming } from './settleCall.ts';
import { entry, type Entry, type StageContext, type Stop } from './entry.ts';
import type { RecalledPlanNotes } from './planStage.ts';

/**
 * An agent run's plan: no steps yet (the model adds them turn by turn), recorded as the agent
 * path, after the reflections of earlier runs it recalled (when there are any).
 */
export function agentPlan(state: RunState, recalled: RecalledPlanNotes = { notes: [] }): Entry[] {
  const { inputs } = state;
  const planId = `${state.runId}:plan:0`;
  // Runs recorded before memory was in the loop journaled each note's id and text only.
  const notes = 'notes' in recalled ? recalled.notes.map((note) => (inputs.memory ? { ...note } : { id: note.id, text: note.text })) : [];
  return [
    ...(state.stage !== 'plan' ? [entry('stage', { stage: 'plan' })] : []),
    ...('error' in recalled ? [entry('memory_warning', { operation: 'recall', error: recalled.error })] : []),
    ...(notes.length ? [entry('memory_recalled', { namespace: REFLECTION_NAMESPACE, notes })] : []),
    entry('plan_created', {
      revision: 0,
      plan: { planId, goal: inputs.goal, profile: inputs.profile, traceId: inputs.traceId, steps: [], candidates: [], source: 'agent', stopReason: 'planned' },
    }),
    entry('plan_transition', { planId, from: 'CREATED', to: 'VALIDATED' }),
    entry('stage', { stage: 'route' }),
  ];
}

/** The next tool call of an agent run to work on: a step that neither completed nor failed for good. */
export function nextAgentStep(state: RunState): StepState | undefined {
  return state.steps.find((step) => step.status !== 'completed' && !(step.status === 'failed' && step.final));
}

/** The stop when the run has spent its token or cost ceiling, or a step was refused by the budget. */
export function agentBudgetStop(state: RunState): Stop | undefined {
  const { budget } = state.inputs;
  const over: string[] = [];
  if (budget.tokenCeiling !== undefined && state.usage.tokens >= budget.tokenCeiling && state.usage.tokens > 0) over.push('tokens');
  if (budget.costCeiling !== undefined && state.usage.cost >= budget.costCeiling && state.usage.cost > 0) over.push('cost');
  if (over.length) return { stopReason: 'budget_exceeded', error: budgetExceededError('run', over).toJSON() };
  const refused = state.steps.find((step) => step.final && step.error?.code === 'budget_exceeded');
  return refused ? { stopReason: 'budget_exceeded', error: refused.error! } : undefined;
}

/** A failure with its numbers, ids and spacing taken out, so the same failure hashes the same whatever call it came from. */
function failureHash(tool: string, code: string, message: string): string {
  const normalised = message
    .toLowerCase()
    .replace(/[0-9a-f]{8,}/g, '#')
    .replace(/\d+(?:\.\d+)?/g, '#')
    .replace(/\s+/g, ' ')
    .trim();
  return sha256Hex(`${tool}\n${code}\n${normalised}`);
}

/** The stop when two tool calls of the run failed the same way for good: the model is going round in circles. */
export function stuckStop(state: RunState): Stop | undefined {
  const seen = new Set<string>();
  for (const step of state.steps) {
    if (step.status !== 'failed' || !step.final || !step.error || step.error.code === 'approval_rejected') continue;
    const hash = failureHash(step.tool, step.error.code, step.error.message);
    if (seen.has(hash))
      return {
        stopReason: 'stuck',
        error: new CugarError(`${step.tool} failed the same way twice (${step.error.code}): the run is stuck`, {
          code: 'stuck',
          failureMode: 'AGENT',
          details: { tool: step.tool, failure: hash },
        }).toJSON(),
      };
    seen.add(hash);
  }
  return undefined;
}

/** Whether the agent run is done (an answer, a failure, a limit) before its next model call. */
export function agentStop(state: RunState): Stop | undefined {
  const agent = state.agent!;
  const settings = state.inputs.agent!;
  if (agent.failure) return { stopReason: 'model_failed', error: agent.failure };
  if (agent.answer !== undefined && (!settings.review || agent.reviewed)) return { stopReason: 'completed' };
  const budget = agentBudgetStop(state);
  if (budget) return budget;
  const stuck = stuckStop(state);
  if (stuck) return stuck;
  if (agent.invalid > settings.maxInvalidToolCalls)
    return {
      stopReason: 'invalid_tool_calls',
      error: new CugarError(`the model made ${agent.invalid} invalid tool calls (at most ${settings.maxInvalidToolCalls} are sent back)`, {
        code: 'invalid_tool_calls',
        failureMode: 'AGENT',
      }).toJSON(),
    };
  if (agent.turns.length >= settings.maxLlmCalls)
    return {
      stopReason: 'max_llm_calls',
      error: new CugarError(`the model was called ${agent.turns.length} times without answering (the limit)`, {
        code: 'max_llm_calls',
        failureMode: 'AGENT',
      }).toJSON(),
    };
  return undefined;
}

/** The model call to make next: which model, which turn and attempt, and whether it re-issues one lost in a crash. */
export function nextModelCall(state: RunState): { callId: string; turn: number; model: string; attempt: number; rerun: boolean; purpose?: CallPurpose } {
  const agent = state.agent!;
  const turn = agent.turns.length + 1;
  const model = state.inputs.agent!.models[agent.modelIndex]!;
  const rerun = agent.pending !== undefined;
  if (turn === 1 && state.inputs.agent!.prePlan) return { callId: 'preplan', turn, model, attempt: agent.nextAttempt, rerun, purpose: 'preplan' };
  // An answer waiting for its review gets it before the run may complete.
  if (agent.answer !== undefined && state.inputs.agent!.review && !agent.reviewed)
    return { callId: `review-${turn}`, turn, model, attempt: agent.nextAttempt, rerun, purpose: 'review' };
  return { callId: `model-${turn}`, turn, model, attempt: agent.nextAttempt, rerun };
}

/** Least confidence at which phase 1 answers a trivial goal itself. */
export const PREPLAN_CONFIDENCE = 0.9;
const PrePlanSchema = z.object({ trivial: z.boolean(), confidence: z.number().min(0).max(1), answer: z.string().optional() });

/** Phase 1's verdict: the answer of a trivial goal the model is sure of, else undefined (the tool loop goes on). */
export function prePlanAnswer(text: string): string | undefined {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end < start) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.slice(start, end + 1));
  } catch {
    return undefined;
  }
  const verdict = PrePlanSchema.safeParse(parsed);
  if (!verdict.success || !verdict.data.trivial || verdict.data.confidence < PREPLAN_CONFIDENCE || !verdict.data.answer?.trim()) return undefined;
  return verdict.data.answer;
}

/** JSON tool calls written in the text, for models that do not call tools natively. */
function textToolCalls(text: string, context: StageContext, profile: string, callId: string): ModelToolCall[] {
  const names = new Map(context.registry.definitions(profile).map((tool) => [tool.name, [] as string[]]));
  return detectToolCalls(text, names)
    .filter((call) => text[call.start] === '{')
    .map((call, i) => ({ toolCallId: `${callId}:text-${i}`, toolName: call.tool, input: call.input }));
}

/**
 * An answer: `model_call_complete` (at the time the answer arrived), a budget warning when the
 * tokens or cost reach the warning threshold, and `agent_turn`, where every valid tool call
 * becomes a step (checked by the profile's policy and the tool's schema) and every invalid
 * one goes back to the model as an error. An answer without tool calls is the run's answer.
 */
export function settleAnswer(
  state: RunState,
  context: StageContext,
  call: { callId: string; turn: number; model: string; attempt: number; purpose?: CallPurpose },
  answer: ModelAnswer,
  timing: CallTiming,
): { entries: Entry[]; usage: BudgetUsage } {
  const settings = state.inputs.agent!;
  const price = settings.prices?.[call.model];
  const cost = price ? (answer.usage.inputTokens * price.inputPerMillion + answer.usage.outputTokens * price.outputPerMillion) / 1e6 : 0;
  const usage: BudgetUsage = { cost, calls: 0, tokens: answer.usage.totalTokens };
  const profile = state.inputs.profile;
  const native = answer.toolCalls.length > 0;
  // Phase 1 offers no tools: its answer is a verdict, never a call.
  const toolCalls = call.purpose ? [] : native ? answer.toolCalls : textToolCalls(answer.text, context, profile, call.callId);
  const complete: JournalEventData<'model_call_complete'> = {
    ...call,
    text: answer.text,
    toolCalls: toJsonData(toolCalls),
    toolCallMode: native || toolCalls.length === 0 ? 'native' : 'text',
    finishReason: answer.finishReason,
    usage: answer.usage,
    cost,
    durationMs: timing.durationMs,
  };
  const entries: Entry[] = [entry('model_call_complete', complete, timing.finishedAt)];
  const check = checkReservation(state.inputs.budget, state.usage, usage);
  if (check.warnings.length)
    entries.push(
      entry('budget_warning', {
        scope: 'run',
        dimensions: check.warnings,
        usage: { cost: addCost(state.usage.cost, cost), calls: state.usage.calls, tokens: state.usage.tokens + usage.tokens },
        budget: state.inputs.budget,
      }),
    );
  const steps: JournalEventData<'agent_turn'>['steps'] = [];
  const rejected: JournalEventData<'agent_turn'>['rejected'] = [];
  for (const toolCall of complete.toolCalls) {
    try {
      const tool = context.registry.resolve(profile, toolCall.toolName);
      if (typeof toolCall.input !== 'object' || toolCall.input === null || Array.isArray(toolCall.input))
        throw new ValidationError(`the arguments of ${tool.name} are not a JSON object`, { code: 'invalid_tool_arguments' });
      const input = toJsonData(context.policy.checkStep(profile, tool, toolCall.input)) as Record<string, unknown>;
      const index = state.steps.length + steps.length;
      steps.push({ stepId: `t${call.turn}.call-${steps.length}`, toolCallId: toolCall.toolCallId, tool: tool.name, input, index });
    } catch (thrown) {
      const error = toCugarError(thrown, { code: 'invalid_tool_call', failureMode: 'AGENT' }).toJSON();
      rejected.push({ toolCallId: toolCall.toolCallId, tool: toolCall.toolName, input: toolCall.input, error });
    }
  }
  const final = call.purpose === 'preplan' ? prePlanAnswer(answer.text) : call.purpose ? undefined : toolCalls.length === 0 ? answer.text : undefined;
  const review = call.purpose === 'review' ? reviewVerdict(answer.text) : undefined;
  entries.push(
    entry('agent_turn', {
      turn: call.turn,
      callId: call.callId,
      steps,
      rejected,
      ...(final !== undefined ? { answer: final } : {}),
      ...(review ? { review } : {}),
    }),
  );
  // The new calls are routed in the same write: the run stays in `execute`.
  for (const step of steps) {
    try {
      const decision = context.coordinator.route(step.stepId, context.registry.resolve(profile, step.tool));
      entries.push(entry('route_decision', { stepId: step.stepId, worker: decision.worker, policy: decision.policy, reason: decision.reason }));
    } catch (thrown) {
      entries.push(entry('tool_call_error', { stepId: step.stepId, attempt: 0, error: toCugarError(thrown).toJSON(), retryable: false, final: true }));
    }
  }
  return { entries, usage };
}

/**
 * A failed call: retry it under the run's retry policy (waiting at least what `Retry-After`
 * asked), fall to the next model once the attempts are spent, or stop on a terminal failure
 * (or a cancellation, or no model left).
 */
export function settleModelFailure(
  state: RunState,
  call: { callId: string; turn: number; model: string; attempt: number },
  failure: CugarError,
  timing: CallTiming,
  cancelled: boolean,
  random: Random,
): { entries: Entry[]; delayMs: number } {
  const policy = createRetryPolicy(state.inputs.retry);
  const retryAfterMs = (failure.details as { retryAfterMs?: unknown } | undefined)?.retryAfterMs;
  const waitAsked = typeof retryAfterMs === 'number' ? retryAfterMs : 0;
  const models = state.inputs.agent!.models;
  const transient = !cancelled && failure.retryable;
  let next: 'retry' | 'fallback' | 'stop' = 'stop';
  if (transient && waitAsked <= MAX_RETRY_AFTER_MS && policy.config.strategy !== 'none' && call.attempt < state.inputs.retry.maxAttempts) next = 'retry';
  else if (transient && state.agent!.modelIndex + 1 < models.length) next = 'fallback';
  const base = { ...call, error: failure.toJSON(), next, durationMs: timing.durationMs };
  if (next !== 'retry') return { entries: [entry('model_call_error', base, timing.finishedAt)], delayMs: 0 };
  const { delayMs, jitter } = policy.delay(call.attempt, random);
  const wait = Math.max(delayMs, waitAsked);
  return { entries: [entry('model_call_error', { ...base, delayMs: wait, jitter }, timing.finishedAt)], delayMs: wait };
}
