import { PolicyViolationError, ValidationError } from '../errors.ts';

/** What the router knows of a worker. `*` among capabilities means "any". */
export interface WorkerInfo {
  readonly id: string;
  readonly capabilities: readonly string[];
}

/** One step to place on a worker. */
export interface RoutingRequest {
  stepId: string;
  tool: string;
  /** Capabilities the tool requires. */
  capabilities: readonly string[];
}

/** Where a step goes and why; recorded in the journal as `route_decision`. */
export interface RoutingDecision {
  worker: string;
  policy: string;
  reason: string;
}

/** A pluggable way to choose a worker. `select` is synchronous, so a choice and its bookkeeping never interleave with another. */
export interface RoutingPolicy {
  readonly name: string;
  select(request: RoutingRequest, workers: readonly WorkerInfo[], load: ReadonlyMap<string, number>): RoutingDecision;
}

function byId(a: WorkerInfo, b: WorkerInfo): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/**
 * Workers in turn. The turn counter advances inside the synchronous `select`, so under any
 * number of concurrent dispatches the per-worker counts over any run of calls differ by at most one.
 */
export class RoundRobinPolicy implements RoutingPolicy {
  readonly name = 'round_robin';
  #turn = 0;
  select(_request: RoutingRequest, workers: readonly WorkerInfo[]): RoutingDecision {
    const index = this.#turn % workers.length;
    const dispatch = ++this.#turn;
    const worker = workers[index]!;
    return { worker: worker.id, policy: this.name, reason: `in turn: worker ${index + 1} of ${workers.length} (dispatch ${dispatch})` };
  }
}

/** Whether `worker` offers every capability in `required`. */
function isCapable(worker: WorkerInfo, required: readonly string[]): boolean {
  return worker.capabilities.includes('*') || required.every((capability) => worker.capabilities.includes(capability));
}

/** Only workers whose capabilities include the tool's requirements, in turn; none capable is a `POLICY` failure. */
export class CapabilityBasedPolicy implements RoutingPolicy {
  readonly name = 'capability';
  #turn = 0;
  select(request: RoutingRequest, workers: readonly WorkerInfo[]): RoutingDecision {
    const capable = workers.filter((worker) => isCapable(worker, request.capabilities));
    if (capable.length === 0) {
      throw new PolicyViolationError(`no worker offers [${request.capabilities.join(', ')}] for tool "${request.tool}"`, {
        code: 'no_capable_worker',
        details: { tool: request.tool, required: [...request.capabilities] },
      });
    }
    const worker = capable[this.#turn++ % capable.length]!;
    return {
      worker: worker.id,
      policy: this.name,
      reason: `${capable.length} of ${workers.length} workers offer [${request.capabilities.join(', ') || 'nothing special'}]`,
    };
  }
}

/** The worker with the fewest calls in flight; ties go to the smallest id. */
export class LoadBalancedPolicy implements RoutingPolicy {
  readonly name = 'load_balanced';
  select(_request: RoutingRequest, workers: readonly WorkerInfo[], load: ReadonlyMap<string, number>): RoutingDecision {
    const sorted = [...workers].sort((a, b) => (load.get(a.id) ?? 0) - (load.get(b.id) ?? 0) || byId(a, b));
    const worker = sorted[0]!;
    return { worker: worker.id, policy: this.name, reason: `${load.get(worker.id) ?? 0} in flight, the fewest` };
  }
}

/** The routing policies by name. */
export type RoutingPolicyName = 'round_robin' | 'capability' | 'load_balanced';

/** A fresh policy of the named kind. */
export function createRoutingPolicy(name: RoutingPolicyName): RoutingPolicy {
  switch (name) {
    case 'round_robin':
      return new RoundRobinPolicy();
    case 'capability':
      return new CapabilityBasedPolicy();
    case 'load_balanced':
      return new LoadBalancedPolicy();
  }
}

/**
 * The one place routing decisions are made: a policy over a fixed set of workers, with the
 * in-flight count of each (for load balancing). Nothing else picks workers.
 */
export class RoutingAuthority {
  readonly policy: RoutingPolicy;
  readonly #workers: readonly WorkerInfo[];
  readonly #load = new Map<string, number>();

  constructor(policy: RoutingPolicy, workers: readonly WorkerInfo[]) {
    if (workers.length === 0) throw new ValidationError('routing needs at least one worker', { code: 'no_workers' });
    const ids = new Set(workers.map((w) => w.id));
    if (ids.size !== workers.length) throw new ValidationError('worker ids must be unique', { code: 'duplicate_worker' });
    this.policy = policy;
    this.#workers = [...workers].sort(byId);
  }

  get workers(): readonly WorkerInfo[] {
    return this.#workers;
  }

  /** Choose a worker for `request`; `placed` counts calls placed but not yet running, seen as load beside those in flight. */
  selectWorker(request: RoutingRequest, placed?: ReadonlyMap<string, number>): RoutingDecision {
    if (!placed?.size) return this.policy.select(request, this.#workers, this.#load);
    const load = new Map(this.#load);
    for (const [worker, count] of placed) load.set(worker, (load.get(worker) ?? 0) + count);
    return this.policy.select(request, this.#workers, load);
  }

  /** Count a call in flight on `worker` until the returned function is called. */
  begin(worker: string): () => void {
    this.#load.set(worker, (this.#load.get(worker) ?? 0) + 1);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.#load.set(worker, (this.#load.get(worker) ?? 1) - 1);
    };
  }

  /** Calls in flight per worker. */
  load(): ReadonlyMap<string, number> {
    return new Map(this.#load);
  }
}
