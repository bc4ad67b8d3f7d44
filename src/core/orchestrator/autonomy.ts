import type { HealthReport } from '../schema/journalEvent.ts';
import type { RunState } from './runState.ts';

export type { HealthReport };

/** What the health monitor scores. */
export interface StepObservation {
  durationMs: number;
  /** The tool's declared latency in milliseconds. */
  expectedLatencyMs: number;
  output: unknown;
  /** How many times this exact call already completed in the run. */
  repeats: number;
  /** Whether the output equals the previous step's output. */
  sameOutputAsPrevious: boolean;
}

function isEmpty(output: unknown): boolean {
  if (output === null || output === undefined || output === '') return true;
  if (Array.isArray(output)) return output.length === 0;
  return typeof output === 'object' && Object.keys(output).length === 0;
}

const round = (n: number) => Math.round(n * 1000) / 1000;

/**
 * Scores each step (Sentinel MAX's health monitor): latency against the tool's declared
 * latency, repetition of identical calls or outputs, and empty outputs. A low score asks for a
 * reflection; a call repeated `maxRepeats` times asks to stop.
 */
export class HealthMonitor {
  constructor(
    readonly reflectBelow = 0.5,
    readonly maxRepeats = 3,
  ) {}

  score(observation: StepObservation): HealthReport {
    const ratio = observation.durationMs / Math.max(1, observation.expectedLatencyMs);
    const latency = ratio <= 2 ? 1 : Math.max(0, 1 - (ratio - 2) / 8);
    let repetition = observation.repeats === 0 ? 1 : observation.repeats === 1 ? 0.6 : 0.2;
    if (observation.sameOutputAsPrevious) repetition = Math.max(0, repetition - 0.2);
    const substance = isEmpty(observation.output) ? 0.3 : 1;
    const score = round(0.3 * latency + 0.4 * repetition + 0.3 * substance);
    const action = observation.repeats + 1 >= this.maxRepeats ? 'stop' : score < this.reflectBelow ? 'reflect' : 'continue';
    return { score, signals: { latency: round(latency), repetition: round(repetition), substance }, action };
  }
}

/**
 * Writes the UTC-timestamped summary of a run's trace (Sentinel MAX's reflector): what ran,
 * what it produced, how healthy it was and why it stopped.
 */
/** What an agent run adds to its reflection: its model calls, failures and answer (nothing for other runs, whose reflections stay as they were). */
function agentPart(state: RunState): string {
  const agent = state.agent;
  if (!agent) return '';
  const answer = agent.answer === undefined ? '' : `; answered: "${agent.answer.slice(0, 200)}"`;
  const failed = state.steps.filter((s) => s.status === 'failed' && s.error).map((s) => `${s.tool} failed (${s.error!.code})`);
  return `; ${agent.turns.length} model call(s)${agent.invalid ? `, ${agent.invalid} invalid tool call(s)` : ''}${failed.length ? `; ${failed.join(', ')}` : ''}${answer}`;
}

export class Reflector {
  summarize(state: RunState, at: number, trigger: string): string {
    const when = new Date(at).toISOString();
    const steps = state.steps.map((s) => `${s.stepId} ${s.tool} ${s.status}${s.attempt > 1 ? ` after ${s.attempt} attempts` : ''}`);
    const spent = `cost ${round(state.usage.cost)}, ${state.usage.calls} call(s), ${state.usage.tokens} token(s)`;
    return `[${when}] ${trigger}: run ${state.runId} in profile ${state.inputs.profile} for "${state.inputs.goal.slice(0, 200)}"; ${steps.length} step(s): ${steps.join('; ') || 'none'}; spent ${spent}${state.replans ? `; replanned ${state.replans} time(s)` : ''}${state.stopReason ? `; stop: ${state.stopReason}` : ''}${agentPart(state)}.`;
  }
}
