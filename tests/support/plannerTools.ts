import type { z } from 'zod';
import { Planner, ToolRegistry, type Plan } from '../../src/core/index.ts';
import { createSequentialIds } from '../../src/core/testing.ts';

/** A tool written for a planner test: its description and parameters, and whether it asks for approval. */
export interface TestTool {
  description: string;
  parameters: z.ZodType;
  requiresApproval?: boolean;
  idempotent?: boolean;
}

/** The reference instant of the planner tests: Monday 2 March 2026, 09:00 UTC. */
export const PLAN_NOW = Date.UTC(2026, 2, 2, 9, 0);

/** A registry whose profile "p" holds `tools` (their handlers do nothing). */
export function toolsOf(tools: Readonly<Record<string, TestTool>>): ToolRegistry {
  const registry = new ToolRegistry();
  for (const [name, tool] of Object.entries(tools)) registry.register('p', name, { ...tool, handler: () => null });
  return registry;
}

/** Plan goals over profile "p" of `registry` at {@link PLAN_NOW}. */
export function plannerOver(registry: ToolRegistry): (goal: string) => Plan {
  const planner = new Planner({ ids: createSequentialIds('p') });
  return (goal) => planner.plan({ goal, profile: 'p', registry, traceId: 't', runId: 'r', now: PLAN_NOW });
}

/** The step a plan would run first, or the call it asks arguments for. */
export function firstCall(plan: Plan) {
  return plan.steps[0] ?? (plan.stopReason === 'input_required' ? plan.inputRequired : undefined);
}
