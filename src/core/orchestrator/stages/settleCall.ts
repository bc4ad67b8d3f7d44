import type { CugarError } from '../../errors.ts';
import { canonicalJson } from '../../journal/canonicalJson.ts';
import type { Random } from '../../ports.ts';
import type { HealthReport } from '../../schema/journalEvent.ts';
import type { ToolDefinition } from '../../tools/tool.ts';
import { HealthMonitor } from '../autonomy.ts';
import { createRetryPolicy } from '../retryPolicy.ts';
import type { RunState, StepState } from '../runState.ts';
import { entry, type Entry } from './entry.ts';

/** When and how long a call ran, from journal times so replays reproduce them. */
export interface CallTiming {
  finishedAt: number;
  durationMs: number;
}

/**
 * A failed attempt: `tool_call_error`, and `retry_scheduled` with its seeded, jittered delay
 * when the retry policy allows another attempt (never after a cancellation).
 */
export function settleFailure(
  state: RunState,
  step: StepState,
  attempt: number,
  failure: CugarError,
  timing: CallTiming,
  cancelled: boolean,
  random: Random,
  recorded?: boolean,
): { entries: Entry[]; delayMs: number } {
  const policy = createRetryPolicy(state.inputs.retry);
  const retry = recorded ?? (!cancelled && policy.shouldRetry(failure, attempt) && attempt < state.inputs.retry.maxAttempts);
  const entries: Entry[] = [
    entry(
      'tool_call_error',
      { stepId: step.stepId, attempt, error: failure.toJSON(), retryable: retry, final: !retry, durationMs: timing.durationMs },
      timing.finishedAt,
    ),
  ];
  if (!retry) return { entries, delayMs: 0 };
  const { delayMs, jitter } = policy.delay(attempt, random);
  entries.push(entry('retry_scheduled', { stepId: step.stepId, attempt: attempt + 1, delayMs, jitter }));
  return { entries, delayMs };
}

/**
 * The canonical text of each run's last settled output, so the repeated-output check compares
 * a step's output with the one before it without serialising that one again. One entry per run
 * (steps settle in order, so the step before is almost always the last settled): an entry per
 * step would grow a weak table by a key for every step. Outputs are journal data, frozen once
 * appended, so a text never goes stale.
 */
const lastSettled = new WeakMap<RunState, { step: StepState; text: string }>();

function outputText(state: RunState, step: StepState): string {
  const last = lastSettled.get(state);
  return last !== undefined && last.step === step ? last.text : canonicalJson(step.output);
}

/** The completed step just before `step`, if any. */
function lastCompleted(state: RunState, step: StepState): StepState | undefined {
  const position = state.stepIndex.get(step.stepId);
  const index = position !== undefined && state.steps[position] === step ? position : state.steps.indexOf(step);
  for (let i = index - 1; i >= 0; i--) if (state.steps[i]!.status === 'completed') return state.steps[i];
  return undefined;
}

/**
 * A successful attempt: `tool_call_complete` with the step's health, scored with the run's
 * recorded autonomy settings (latency against the tool's declared latency, repeated calls and
 * outputs, empty output). The report says whether to go on, reflect or stop. `outputJson` is
 * the output's canonical text when the caller already has it.
 */
export function settleSuccess(
  state: RunState,
  step: StepState,
  tool: ToolDefinition,
  attempt: number,
  argsHash: string,
  output: unknown,
  timing: CallTiming,
  outputJson: string = canonicalJson(output),
): { entries: Entry[]; health: HealthReport } {
  const { autonomy } = state.inputs;
  const previous = lastCompleted(state, step);
  const sameOutputAsPrevious = previous !== undefined && outputText(state, previous) === outputJson;
  const last = lastSettled.get(state);
  if (last === undefined) lastSettled.set(state, { step, text: outputJson });
  else {
    last.step = step;
    last.text = outputJson;
  }
  const health = new HealthMonitor(autonomy.reflectBelow, autonomy.maxRepeats).score({
    durationMs: timing.durationMs,
    expectedLatencyMs: tool.latency,
    output,
    repeats: state.calls.get(`${tool.name}:${argsHash}`) ?? 0,
    sameOutputAsPrevious,
  });
  return {
    entries: [entry('tool_call_complete', { stepId: step.stepId, attempt, argsHash, output, durationMs: timing.durationMs, health }, timing.finishedAt)],
    health,
  };
}
