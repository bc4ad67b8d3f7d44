import { NotFoundError } from '../errors.ts';
import { EventBus } from '../journal/eventBus.ts';
import { Planner } from '../planning/planner.ts';
import { PolicyEnforcer } from '../policy/policyEnforcer.ts';
import { redactText } from '../policy/redaction.ts';
import { createRandomIds, systemClock, type Clock, type Ids } from '../ports.ts';
import { DEFAULT_CONFIG, type Config } from '../schema/config.ts';
import type { Metadata } from '../schema/common.ts';
import type { ErrorInfo, TraceEvent } from '../schema/event.ts';
import { GoalRequestSchema, type GoalRequest, type Plan, type PlanningPreferencesInput } from '../schema/plan.ts';
import type { ExecutionResult } from '../schema/result.ts';
import { parseOrThrow } from '../schema/validate.ts';
import type { ToolRegistry } from '../tools/toolRegistry.ts';
import { Executor } from './executor.ts';

/** What a {@link Controller} is built from. Every port has a real default. */
export interface ControllerOptions {
  registry: ToolRegistry;
  ids?: Ids;
  clock?: Clock;
  bus?: EventBus;
  config?: Partial<Config>;
  policy?: PolicyEnforcer;
}

/** Options of one {@link Controller.run}. */
export interface RunOptions {
  metadata?: Metadata;
  preferences?: PlanningPreferencesInput;
  /** Continue this trace instead of starting one. */
  traceId?: string;
  signal?: AbortSignal;
}

/**
 * The entry point of a single-pass run: goal → plan → execute → result, over a sandboxed view
 * of one profile's tools. The trace id (generated through the id port when absent) is carried
 * through every event, step context and the result.
 *
 * @example
 * const registry = new ToolRegistry();
 * registerBuiltinTools(registry);
 * const controller = new Controller({ registry });
 * const result = await controller.run('add 10 and 5', 'demo');
 * result.outputs; // { 'step-0': 15 }
 */
export class Controller {
  readonly bus: EventBus;
  readonly #registry: ToolRegistry;
  readonly #ids: Ids;
  readonly #clock: Clock;
  readonly #planner: Planner;
  readonly #policy: PolicyEnforcer;
  readonly #executor: Executor;

  constructor(options: ControllerOptions) {
    const config = { ...DEFAULT_CONFIG, ...options.config };
    this.#registry = options.registry;
    this.#ids = options.ids ?? createRandomIds();
    this.#clock = options.clock ?? systemClock;
    this.bus = options.bus ?? new EventBus();
    this.#policy = options.policy ?? new PolicyEnforcer();
    this.#planner = new Planner({ ids: this.#ids, maxSteps: config.plannerMaxSteps, minSimilarity: config.plannerMinSimilarity });
    this.#executor = new Executor({ policy: this.#policy, clock: this.#clock });
  }

  /**
   * Run `goal` in `profile`. Throws `ValidationError` for a bad request and `NotFoundError`
   * for an unknown profile, before anything happens; everything after that — including a
   * failing step — is reported in the returned {@link ExecutionResult}.
   */
  /**
   * Plan `goal` in `profile` without running anything (a dry run): the plan with every
   * candidate tool, its scores and the reason it was or was not chosen. Emits no events.
   */
  plan(goal: string, profile: string, options: Omit<RunOptions, 'signal'> = {}): Plan {
    const { request } = this.#validate(goal, profile, options);
    return this.#planner.plan({
      goal: request.goal,
      profile: request.profile,
      registry: this.#registry.sandbox(request.profile),
      traceId: request.traceId ?? this.#ids.next('trace'),
      runId: this.#ids.next('dryrun'),
      ...(request.preferences ? { preferences: request.preferences } : {}),
    });
  }

  #validate(goal: string, profile: string, options: Omit<RunOptions, 'signal'>): { request: GoalRequest; metadata: Metadata } {
    const request = parseOrThrow(
      GoalRequestSchema,
      { goal, profile, metadata: options.metadata, preferences: options.preferences, traceId: options.traceId },
      'goal request',
    );
    const metadata = this.#policy.checkMetadata(request.metadata);
    if (!this.#registry.hasProfile(request.profile)) {
      throw new NotFoundError(`unknown profile "${request.profile}"`, { code: 'unknown_profile', details: { profile: request.profile } });
    }
    return { request, metadata };
  }

  async run(goal: string, profile: string, options: RunOptions = {}): Promise<ExecutionResult> {
    const { request, metadata } = this.#validate(goal, profile, options);
    const sandbox = this.#registry.sandbox(request.profile);
    const traceId = request.traceId ?? this.#ids.next('trace');
    const runId = this.#ids.next('run');
    const base = { traceId, runId, profile: request.profile };
    const events: TraceEvent[] = [];
    const emit = (event: TraceEvent): void => {
      events.push(this.bus.emit(event));
    };

    const started = this.#clock.now();
    emit({ ...base, type: 'run_started', at: started, data: { goal: request.goal, metadata } });
    const plan = this.#planner.plan({
      goal: request.goal,
      profile: request.profile,
      registry: sandbox,
      traceId,
      runId,
      ...(request.preferences ? { preferences: request.preferences } : {}),
      emit,
      now: () => this.#clock.now(),
    });

    let success: boolean;
    let outputs: Record<string, unknown> = {};
    let logs: string[] = [`planned ${plan.steps.length} step(s) [${plan.steps.map((s) => s.tool).join(', ')}]: ${plan.stopReason}`];
    let error: ErrorInfo | undefined;
    let stopReason: string;
    if (plan.steps.length === 0) {
      success = false;
      stopReason = plan.stopReason;
      error = {
        name: 'NoRelevantToolError',
        code: 'no_relevant_tool',
        message: `no tool of profile "${request.profile}" is relevant to the goal`,
        failureMode: 'USER',
        retryable: false,
      };
    } else {
      const outcome = await this.#executor.execute(plan, sandbox, { ...base, ...(options.signal ? { signal: options.signal } : {}) }, emit);
      success = outcome.success;
      outputs = outcome.outputs;
      logs = [...logs, ...outcome.logs];
      error = outcome.error;
      stopReason = outcome.success ? 'completed' : 'failed';
    }
    const finished = this.#clock.now();
    emit({ ...base, type: 'run_completed', at: finished, durationMs: Math.max(0, finished - started), data: { success, stopReason, ...(error ? { error } : {}) } });
    return {
      success,
      outputs,
      logs: logs.map(redactText),
      traceId,
      runId,
      profile: request.profile,
      plan,
      stopReason,
      ...(error ? { error } : {}),
      events,
      durationMs: Math.max(0, finished - started),
    };
  }
}
