import type { RunNote } from '../memory/runMemory.ts';
import type { ModelProvider } from '../models/model.ts';
import type { RunInputs } from '../schema/journalEvent.ts';
import { canonicalJson } from '../journal/canonicalJson.ts';
import { redact } from '../policy/redaction.ts';
import { failureModeOf, type RunState, type StepState } from './runState.ts';
import type { Stop } from './stages/entry.ts';

/** Longest summary a run keeps, in characters (a model's summary is cut to it too). */
export const MAX_REFLECTION_CHARS = 4000;

const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

function preview(output: unknown): string {
  if (output === undefined) return 'no output';
  let text: string;
  try {
    text = typeof output === 'string' ? output : canonicalJson(output);
  } catch {
    text = String(output);
  }
  return clip(text.replace(/\s+/g, ' '), 120);
}

function failure(step: StepState): string {
  const error = step.error;
  const attempts = step.attempt > 1 ? ` after ${step.attempt} attempts` : '';
  return `${step.tool} (${step.stepId})${attempts}: ${error ? `${error.code} — ${clip(error.message, 160)}` : 'did not run'}`;
}

/**
 * A finished run's reflection, from its journal alone: what was asked, what worked (each
 * completed call with a preview of its output), what failed and why (each failed call's error),
 * and how the run ended. Deterministic: the same journal gives the same text; the time is the
 * run's last event's, in UTC.
 */
export function journalReflection(state: RunState, stop: Stop): string {
  const when = new Date(state.updatedAt).toISOString();
  const worked = state.steps.filter((s) => s.status === 'completed').map((s) => `${s.tool} (${s.stepId}) → ${preview(s.output)}`);
  const failed = [...state.replaced, ...state.steps.filter((s) => s.status === 'failed')].map(failure);
  const skipped = state.steps.filter((s) => s.status !== 'completed' && s.status !== 'failed').map((s) => `${s.tool} (${s.stepId})`);
  const answer = state.agent?.answer;
  const outcome =
    stop.error === undefined
      ? stop.stopReason === 'completed'
        ? 'completed'
        : `completed (${stop.stopReason})`
      : `stopped: ${stop.stopReason} — ${stop.error.code}: ${clip(stop.error.message, 200)} (${failureModeOf(stop.error)})`;
  const parts = [
    `[${when}] run ${state.runId} in profile ${state.inputs.profile}.`,
    `Asked: "${clip(state.inputs.goal, 300)}".`,
    `Worked: ${worked.join('; ') || 'nothing'}.`,
    `Failed: ${failed.join('; ') || 'nothing'}.`,
    ...(skipped.length ? [`Not run: ${skipped.join('; ')}.`] : []),
    ...(state.replans ? [`Replanned ${state.replans} time(s).`] : []),
    ...(state.agent ? [`${state.agent.turns.length} model call(s)${answer === undefined ? '' : `; answered: "${clip(answer, 300)}"`}.`] : []),
    `Outcome: ${outcome}.`,
  ];
  return clip(parts.join(' '), MAX_REFLECTION_CHARS);
}

/** What a finished run keeps in memory: its goal, plan, step results, the tools that failed (AGENT failures) and worked, and the summary. */
export function runNote(state: RunState, stop: Stop, summary: string): RunNote {
  const plan = state.plans.at(-1);
  const failed = new Set<string>();
  const succeeded = new Set<string>();
  const steps = [...state.replaced, ...state.steps];
  for (const step of steps) {
    if (step.status === 'completed') succeeded.add(step.tool);
    else if (step.status === 'failed' && step.final && failureModeOf(step.error) === 'AGENT') failed.add(step.tool);
  }
  return {
    runId: state.runId,
    goal: state.inputs.goal,
    summary,
    success: stop.error === undefined,
    plan: {
      source: plan?.source ?? 'none',
      steps: state.steps.map(({ stepId, tool, input }) => ({ stepId, tool, input: redact(input) })),
      ...(state.plans.length > 1 ? { revisions: state.plans.length } : {}),
    },
    results: steps.map((s) => ({
      stepId: s.stepId,
      tool: s.tool,
      status: s.status,
      attempts: s.attempt,
      ...(s.error ? { error: { code: s.error.code, message: clip(s.error.message, 500) } } : {}),
    })),
    failed: [...failed].sort(),
    succeeded: [...succeeded].sort(),
  };
}

/**
 * The memory settings new runs record (`inputs.memory`), given an agent run's first model:
 * none without a memory port; a `summaryModel` (the run's first model, or the host's first for
 * a lexical run) when `reflectWithModel` is set and models are configured.
 */
export function memorySettings(options: {
  memory?: unknown;
  models?: ModelProvider;
  reflectWithModel?: boolean;
}): ((agentModel: string | undefined) => NonNullable<RunInputs['memory']>) | undefined {
  if (!options.memory) return undefined;
  const models = options.reflectWithModel ? options.models : undefined;
  return (agentModel) => {
    const summaryModel = agentModel ?? models?.models[0];
    return summaryModel && models ? { summaryModel } : {};
  };
}
