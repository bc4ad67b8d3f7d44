import type { JournalEvent } from '../schema/journalEvent.ts';
import type { Plan } from '../schema/plan.ts';
import { Planner, type PlanRequest } from './planner.ts';

/**
 * A planner that hands back the plans a journal recorded, by plan id, and plans afresh only
 * past the recording. A replay checks what a run did with its plan; a planner that has since
 * learned to rank or fill differently must not make an old journal diverge, just as recorded
 * model answers stand in for a model.
 */
export class RecordedPlanner extends Planner {
  readonly #plans: ReadonlyMap<string, Plan>;

  constructor(journal: readonly JournalEvent[], options: ConstructorParameters<typeof Planner>[0]) {
    super(options);
    const plans = new Map<string, Plan>();
    for (const event of journal) if (event.type === 'plan_created') plans.set(event.data.plan.planId, event.data.plan);
    this.#plans = plans;
  }

  override plan(request: PlanRequest): Plan {
    const recorded = request.planId === undefined ? undefined : this.#plans.get(request.planId);
    return recorded ? structuredClone(recorded) : super.plan(request);
  }
}
