import { ValidationError } from '../errors.ts';
import { Executor, type ExecutionOutcome } from '../orchestrator/executor.ts';
import { partialResult, type PartialResult } from '../orchestrator/partialResult.ts';
import { PolicyEnforcer } from '../policy/policyEnforcer.ts';
import { createRandomIds, systemClock, type Clock } from '../ports.ts';
import type { FailureMode } from '../errors.ts';
import type { Plan, PlanStep } from '../schema/plan.ts';
import type { ToolContext, ToolDefinition } from '../tools/tool.ts';
import type { ToolRegistry } from '../tools/toolRegistry.ts';
import { RoutingAuthority, type RoutingDecision, type RoutingPolicy, type WorkerInfo } from './routingAuthority.ts';

/** Options of a {@link Worker}. */
export interface WorkerOptions {
  id: string;
  /** What this worker can run; default `['*']` (anything). */
  capabilities?: readonly string[];
  /** The memory profile: the profile steps run in when the caller names none. */
  profile?: string;
  /** Tools for `execute`; the orchestrator passes tools per call instead. */
  registry?: ToolRegistry;
  policy?: PolicyEnforcer;
  clock?: Clock;
}

/** Metadata of a standalone `execute`. */
export interface WorkerMetadata {
  profile?: string;
  traceId?: string;
  runId?: string;
  signal?: AbortSignal;
}

/** What a standalone `execute` returns: the executor's outcome plus a partial result on failure. */
export interface WorkerOutcome extends ExecutionOutcome {
  profile: string;
  traceId: string;
  partial?: PartialResult;
}

/**
 * Runs tool calls. In an orchestrated run the coordinator hands it one call at a time
 * (`invoke`); on its own it can run a list of steps (`execute`), defaulting the profile to its
 * memory profile, and continue a failed list from a {@link PartialResult}.
 */
export class Worker implements WorkerInfo {
  readonly id: string;
  readonly capabilities: readonly string[];
  readonly profile: string | undefined;
  readonly #registry: ToolRegistry | undefined;
  readonly #executor: Executor;

  constructor(options: WorkerOptions) {
    if (!options.id) throw new ValidationError('a worker needs an id', { code: 'invalid_worker' });
    this.id = options.id;
    this.capabilities = Object.freeze([...(options.capabilities ?? ['*'])]);
    this.profile = options.profile;
    this.#registry = options.registry;
    this.#executor = new Executor({ policy: options.policy ?? new PolicyEnforcer(), clock: options.clock ?? systemClock });
  }

  /** Call one tool's handler. */
  async invoke(tool: ToolDefinition, input: unknown, context: ToolContext): Promise<unknown> {
    return tool.handler(input, context);
  }

  /** Run `steps` in order in `metadata.profile`, or this worker's memory profile when absent. */
  async execute(steps: readonly PlanStep[], metadata: WorkerMetadata = {}): Promise<WorkerOutcome> {
    const profile = metadata.profile ?? this.profile;
    if (!profile) throw new ValidationError(`worker "${this.id}" has no memory profile and none was given`, { code: 'missing_profile' });
    if (!this.#registry) throw new ValidationError(`worker "${this.id}" has no registry to execute steps with`, { code: 'missing_registry' });
    const ids = createRandomIds();
    const traceId = metadata.traceId ?? ids.next('trace');
    const runId = metadata.runId ?? ids.next('run');
    const plan: Plan = { planId: `${runId}:worker`, goal: '', profile, traceId, steps: [...steps], candidates: [], source: 'pattern', stopReason: 'explicit_calls' };
    const outcome = await this.#executor.execute(plan, this.#registry.sandbox(profile), { traceId, runId, profile, ...(metadata.signal ? { signal: metadata.signal } : {}) }, () => undefined);
    const result: WorkerOutcome = { ...outcome, profile, traceId };
    if (!outcome.success) {
      const completed = steps.filter((s) => Object.hasOwn(outcome.outputs, s.name)).map((s) => s.name);
      const last = completed.at(-1);
      result.partial = partialResult(completed, last === undefined ? undefined : outcome.outputs[last], (outcome.error?.failureMode ?? 'SYSTEM') as FailureMode);
    }
    return result;
  }

  /** Continue `steps` after the ones `partial` records as completed. */
  async executeFromPartial(steps: readonly PlanStep[], partial: PartialResult, metadata: WorkerMetadata = {}): Promise<WorkerOutcome> {
    const done = new Set(partial.completedSteps);
    return this.execute(
      steps.filter((step) => !done.has(step.name)),
      metadata,
    );
  }
}

/**
 * Dispatches tool calls to workers through a {@link RoutingAuthority}, counting each call
 * in flight so load-balanced routing sees real load.
 */
export class Coordinator {
  readonly routing: RoutingAuthority;
  readonly #workers: ReadonlyMap<string, Worker>;

  constructor(workers: readonly Worker[], policy: RoutingPolicy) {
    this.routing = new RoutingAuthority(policy, workers);
    this.#workers = new Map(workers.map((w) => [w.id, w]));
  }

  /** The worker with `id`. */
  worker(id: string): Worker {
    const worker = this.#workers.get(id);
    if (!worker) throw new ValidationError(`no worker "${id}"`, { code: 'unknown_worker' });
    return worker;
  }

  /** Choose a worker for a call to `tool`. */
  route(stepId: string, tool: ToolDefinition): RoutingDecision {
    return this.routing.selectWorker({ stepId, tool: tool.name, capabilities: tool.capabilities });
  }

  /** Run one call on `decision.worker`, counted in flight while it runs. */
  async run(decision: RoutingDecision, tool: ToolDefinition, input: unknown, context: ToolContext): Promise<unknown> {
    const done = this.routing.begin(decision.worker);
    try {
      return await this.worker(decision.worker).invoke(tool, input, context);
    } finally {
      done();
    }
  }

  /** Route and run in one go (the seeds' `dispatch`). */
  async dispatch(stepId: string, tool: ToolDefinition, input: unknown, context: ToolContext): Promise<{ decision: RoutingDecision; output: unknown }> {
    const decision = this.route(stepId, tool);
    return { decision, output: await this.run(decision, tool, input, context) };
  }
}
