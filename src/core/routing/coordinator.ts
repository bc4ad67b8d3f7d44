import { ValidationError } from '../errors.ts';
import type { ToolContext, ToolDefinition } from '../tools/tool.ts';
import { RoutingAuthority, type RoutingDecision, type RoutingPolicy, type WorkerInfo } from './routingAuthority.ts';

/** Options of a {@link Worker}. */
export interface WorkerOptions {
  id: string;
  /** What this worker can run; default `['*']` (anything). */
  capabilities?: readonly string[];
}

/**
 * Runs tool calls that the orchestrator routes to it, one at a time. Workers are where a call
 * runs (in-process here; a sandbox or a remote host in other adapters), never a way around the
 * journal: a plan only runs through the orchestrator.
 */
export class Worker implements WorkerInfo {
  readonly id: string;
  readonly capabilities: readonly string[];

  constructor(options: WorkerOptions) {
    if (!options.id) throw new ValidationError('a worker needs an id', { code: 'invalid_worker' });
    this.id = options.id;
    this.capabilities = Object.freeze([...(options.capabilities ?? ['*'])]);
  }

  /** Call one tool's handler. */
  async invoke(tool: ToolDefinition, input: unknown, context: ToolContext): Promise<unknown> {
    return tool.handler(input, context);
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

  /** Choose a worker for a call to `tool`, counting `placed` calls (placed, not yet running) as load. */
  route(stepId: string, tool: ToolDefinition, placed?: ReadonlyMap<string, number>): RoutingDecision {
    return this.routing.selectWorker({ stepId, tool: tool.name, capabilities: tool.capabilities }, placed);
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
