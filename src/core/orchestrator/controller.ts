import { NotFoundError } from '../errors.ts';
import { redact, redactText } from '../policy/redaction.ts';
import type { Metadata } from '../schema/common.ts';
import { eventsOf, type JournalEvent } from '../schema/journalEvent.ts';
import { GoalRequestSchema, type Plan, type PlanningPreferencesInput } from '../schema/plan.ts';
import type { ExecutionResult } from '../schema/result.ts';
import { parseOrThrow } from '../schema/validate.ts';
import type { ToolRegistry } from '../tools/toolRegistry.ts';
import type { OrchestratorOptions } from './options.ts';
import { Orchestrator } from './orchestrator.ts';

/** What a {@link Controller} is built from: the orchestrator's options. Every port has a real default, the store an in-memory one. */
export type ControllerOptions = OrchestratorOptions;

/** Options of one {@link Controller.run}. */
export interface RunOptions {
  metadata?: Metadata;
  preferences?: PlanningPreferencesInput;
  /** Continue this trace instead of starting one. */
  traceId?: string;
  /** Cancels the run: the current call's signal is aborted and the run ends `cancelled`. */
  signal?: AbortSignal;
}

/**
 * The seed's entry point, `run(goal, profile, { metadata, preferences })` → result, as a small
 * facade over the journaled {@link Orchestrator}: the run is planned, validated and executed
 * with retries, budgets, approvals and its hash-chained journal like any other, and the result
 * adds the plan, readable logs and the run's redacted journal events.
 *
 * @example
 * const registry = new ToolRegistry();
 * registerBuiltinTools(registry);
 * const controller = new Controller({ registry });
 * const result = await controller.run('add 10 and 5', 'demo');
 * result.outputs; // { 'step-0': 15 }
 */
export class Controller {
  /** The engine underneath; its store holds every run's journal. */
  readonly orchestrator: Orchestrator;
  readonly #registry: ToolRegistry;

  constructor(options: ControllerOptions) {
    this.#registry = options.registry;
    this.orchestrator = new Orchestrator(options);
  }

  /** Receive every journal event, redacted, as it becomes durable. */
  subscribe(listener: (event: JournalEvent) => void): () => void {
    return this.orchestrator.subscribe(listener);
  }

  /**
   * Plan `goal` in `profile` without running anything (a dry run): the plan with every
   * candidate tool, its scores and the reason it was or was not chosen. Writes nothing.
   */
  plan(goal: string, profile: string, options: Omit<RunOptions, 'signal'> = {}): Plan {
    const request = parseOrThrow(
      GoalRequestSchema,
      { goal, profile, metadata: options.metadata, preferences: options.preferences, traceId: options.traceId },
      'goal request',
    );
    if (!this.#registry.hasProfile(request.profile)) {
      throw new NotFoundError(`unknown profile "${request.profile}"`, { code: 'unknown_profile', details: { profile: request.profile } });
    }
    return this.orchestrator.planner.plan({
      goal: request.goal,
      profile: request.profile,
      registry: this.#registry.sandbox(request.profile),
      traceId: request.traceId ?? 'dry-run',
      runId: 'dry-run',
      planId: 'dry-run:plan',
      ...(request.preferences ? { preferences: request.preferences } : {}),
    });
  }

  /**
   * Run `goal` in `profile`. Throws `ValidationError` for a bad request and `NotFoundError`
   * for an unknown profile, before anything is written; everything after that — including a
   * failing step — is reported in the returned {@link ExecutionResult}. A run that needs a
   * human returns `status: 'paused'`; approve it through {@link orchestrator}.
   */
  async run(goal: string, profile: string, options: RunOptions = {}): Promise<ExecutionResult> {
    const { signal, metadata, preferences, traceId } = options;
    const launched = await this.orchestrator.launch(goal, profile, {
      ...(metadata ? { metadata } : {}),
      ...(preferences ? { preferences } : {}),
      ...(traceId ? { traceId } : {}),
    });
    const onAbort = () => void this.orchestrator.cancel(launched.runId, 'aborted by the caller').catch(() => undefined);
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
    let outcome;
    try {
      outcome = await launched.outcome;
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
    const journal = await this.orchestrator.store.readJournal(outcome.runId);
    const plan = eventsOf(journal, 'plan_created').at(-1)?.data.plan ?? emptyPlan(goal, outcome.profile, outcome.traceId, outcome.runId);
    return {
      success: outcome.success,
      status: outcome.status,
      outputs: outcome.outputs,
      logs: logsOf(journal).map(redactText),
      traceId: outcome.traceId,
      runId: outcome.runId,
      profile: outcome.profile,
      plan,
      stopReason: outcome.stopReason ?? outcome.status,
      ...(outcome.error ? { error: outcome.error } : {}),
      events: redact(journal),
      durationMs: Math.max(0, (journal.at(-1)?.at ?? 0) - (journal[0]?.at ?? 0)),
    };
  }
}

function emptyPlan(goal: string, profile: string, traceId: string, runId: string): Plan {
  return { planId: `${runId}:plan:0`, goal, profile, traceId, steps: [], candidates: [], source: 'ranking', stopReason: 'no_relevant_tool' };
}

/** One readable line per plan and per finished call, from the journal. */
function logsOf(journal: readonly JournalEvent[]): string[] {
  const logs: string[] = [];
  const tools = new Map<string, string>();
  for (const event of journal) {
    if (event.type === 'plan_created') {
      const { steps, stopReason } = event.data.plan;
      for (const step of steps) tools.set(step.name, step.tool);
      logs.push(`planned ${steps.length} step(s) [${steps.map((s) => s.tool).join(', ')}]: ${stopReason}`);
    } else if (event.type === 'tool_call_complete') {
      logs.push(`${event.data.stepId} ${tools.get(event.data.stepId) ?? ''} ok in ${event.data.durationMs} ms`);
    } else if (event.type === 'tool_call_error') {
      logs.push(`${event.data.stepId} ${tools.get(event.data.stepId) ?? ''} failed: ${event.data.error.code}: ${event.data.error.message}`);
    } else if (event.type === 'approval_requested') {
      logs.push(`${event.data.stepId} ${event.data.tool} waits for approval ${event.data.approvalId}`);
    }
  }
  return logs;
}
