import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  Coordinator,
  PolicyEnforcer,
  Planner,
  RoundRobinPolicy,
  ToolRegistry,
  Worker,
  registerBuiltinTools,
  type JournalEvent,
  type RunInputs,
} from '../../src/core/index.ts';
import { createSequentialIds, sealEvent } from '../../src/core/testing.ts';
import { Reflector } from '../../src/core/orchestrator/autonomy.ts';
import { applyEvent, initialRunState, type RunState } from '../../src/core/orchestrator/runState.ts';
import type { Entry, StageContext } from '../../src/core/orchestrator/stages/entry.ts';
import { finishRun, afterFinalFailure } from '../../src/core/orchestrator/stages/finishStage.ts';
import { planRun, routeSteps } from '../../src/core/orchestrator/stages/planStage.ts';
import { approvalGate, nextStep, prepareInput, reserveCall } from '../../src/core/orchestrator/stages/stepGate.ts';

// The stage decisions are functions from a run's state to the events to append: these tests
// drive them by hand, folding their entries into the state, with no store and no orchestrator.

function inputs(over: Partial<RunInputs> = {}): RunInputs {
  return {
    goal: 'add 2 and 3 then multiply the result by 4',
    profile: 'demo',
    traceId: 't1',
    context: { traceId: 't1', runId: 'r1', requestId: 'r1', userIntent: 'x', profile: 'demo' },
    metadata: {},
    budget: { warnThreshold: 0.8 },
    retry: { strategy: 'none', maxAttempts: 1, baseDelay: 0, maxDelay: 0, multiplier: 1, jitter: 0 },
    approval: { onTimeout: 'reject' },
    autonomy: { replan: true, maxReplans: 1, reflectBelow: 0.5, maxRepeats: 3 },
    seed: 1,
    maxSteps: 10,
    ...over,
  };
}

function context(register?: (registry: ToolRegistry) => void): StageContext {
  const registry = new ToolRegistry();
  registerBuiltinTools(registry);
  register?.(registry);
  return {
    policy: new PolicyEnforcer(),
    planner: new Planner({ ids: createSequentialIds('p') }),
    coordinator: new Coordinator([new Worker({ id: 'w1' })], new RoundRobinPolicy()),
    registry: registry.sandbox('demo'),
  };
}

/** Fold entries into the state as the session would, with a clock that ticks by 1 ms. */
function fold(state: RunState, entries: readonly Entry[]): JournalEvent[] {
  const events: JournalEvent[] = [];
  for (const [type, data, at] of entries) {
    const event = sealEvent(state.head, state.runId, type, at ?? state.updatedAt + 1, data as never) as JournalEvent;
    applyEvent(state, event);
    events.push(event);
  }
  return events;
}

function start(over: Partial<RunInputs> = {}): RunState {
  return initialRunState(sealEvent(undefined, 'r1', 'stage', 1_000, { stage: 'initialize', inputs: inputs(over) }));
}

describe('stage decisions, without a store', () => {
  it('plan then route: a validated plan, a worker per step, and the execute stage', () => {
    const state = start();
    const ctx = context();
    const planned = planRun(state, ctx);
    expect(planned.stop).toBeUndefined();
    expect(planned.entries.map(([type]) => type)).toEqual(['stage', 'plan_created', 'plan_transition', 'stage']);
    fold(state, planned.entries);
    expect(state.steps.map((s) => s.tool)).toEqual(['add', 'multiply']);
    fold(state, routeSteps(state, ctx));
    expect(state.stage).toBe('execute');
    expect(state.planStage).toBe('EXECUTING');
    expect(state.steps.every((s) => s.worker === 'w1')).toBe(true);
  });

  it('an empty plan stops the run with no_relevant_tool; finishing records why', () => {
    const state = start({ goal: 'book a table for two in Rome' });
    const planned = planRun(state, context());
    expect(planned.stop).toMatchObject({ stopReason: 'no_relevant_tool', error: { code: 'no_relevant_tool' } });
    fold(state, planned.entries);
    fold(state, finishRun(state, planned.stop!, new Reflector()));
    expect(state).toMatchObject({ status: 'failed', stopReason: 'no_relevant_tool' });
  });

  it('the approval gate pauses a guarded call until its exact arguments are approved', () => {
    const ctx = context((r) =>
      r.register('demo', 'pay', { description: 'pay an invoice', parameters: z.object({ amount: z.number() }), requiresApproval: true, handler: () => 'paid' }),
    );
    const state = start({ plan: [{ name: 'step-0', tool: 'pay', input: { amount: 3 }, index: 0 }] });
    fold(state, planRun(state, ctx).entries);
    fold(state, routeSteps(state, ctx));
    const step = nextStep(state)!;
    const prepared = prepareInput(state, step, ctx.registry.resolve('demo', 'pay'), ctx);
    if (!prepared.ok) throw new Error('input should be valid');
    const gate = approvalGate(state, step, ctx.registry.resolve('demo', 'pay'), prepared.input, prepared.argsHash, ctx)!;
    expect(gate.map(([type]) => type)).toEqual(['approval_requested', 'run_paused']);
    fold(state, gate);
    expect(state.status).toBe('paused');
    fold(state, [['approval_received', { approvalId: state.pendingApprovalId!, decision: 'approve', argsHash: prepared.argsHash, reason: '', by: 'ada' }]]);
    expect(approvalGate(state, step, ctx.registry.resolve('demo', 'pay'), prepared.input, prepared.argsHash, ctx)).toBeUndefined();
  });

  it('approval ids of version-2 journals carry the head hash, so no one can claim one in advance; older journals keep theirs', () => {
    const ctx = context((r) =>
      r.register('demo', 'pay', { description: 'pay an invoice', parameters: z.object({ amount: z.number() }), requiresApproval: true, handler: () => 'paid' }),
    );
    const idOf = (version: number | undefined) => {
      const state = start({ ...(version ? { version } : {}), plan: [{ name: 'step-0', tool: 'pay', input: { amount: 3 }, index: 0 }] });
      fold(state, planRun(state, ctx).entries);
      fold(state, routeSteps(state, ctx));
      const step = nextStep(state)!;
      const tool = ctx.registry.resolve('demo', 'pay');
      const prepared = prepareInput(state, step, tool, ctx);
      if (!prepared.ok) throw new Error('input should be valid');
      const [requested] = approvalGate(state, step, tool, prepared.input, prepared.argsHash, ctx)!;
      return { id: (requested![1] as { approvalId: string }).approvalId, head: state.head };
    };
    const v2 = idOf(2);
    expect(v2.id).toBe(`r1:step-0:${v2.head.seq + 1}:${v2.head.hash.slice(0, 16)}`);
    const v1 = idOf(undefined);
    expect(v1.id).toBe(`r1:step-0:${v1.head.seq + 1}`);
  });

  it('the budget gate warns near a ceiling and refuses past it, before anything starts', () => {
    const ctx = context();
    const state = start({
      budget: { callCeiling: 1, warnThreshold: 0.5 },
      plan: [
        { name: 'step-0', tool: 'add', input: { a: 1, b: 1 }, index: 0 },
        { name: 'step-1', tool: 'add', input: { a: 2, b: 2 }, index: 1 },
      ],
    });
    fold(state, planRun(state, ctx).entries);
    fold(state, routeSteps(state, ctx));
    const add = ctx.registry.resolve('demo', 'add');
    const first = reserveCall(state, nextStep(state)!, add, { a: 1, b: 1 }, 'h1', undefined);
    if ('refused' in first) throw new Error('the first call fits the budget');
    expect(first.entries.map(([type]) => type)).toEqual(['budget_warning', 'tool_call_start']);
    fold(state, first.entries);
    fold(state, [
      [
        'tool_call_complete',
        {
          stepId: 'step-0',
          attempt: 1,
          argsHash: 'h1',
          output: 2,
          durationMs: 0,
          health: { score: 1, signals: { latency: 1, repetition: 1, substance: 1 }, action: 'continue' },
        },
      ],
    ]);
    const second = reserveCall(state, nextStep(state)!, add, { a: 2, b: 2 }, 'h2', undefined);
    expect('refused' in second && second.refused.map(([type]) => type)).toEqual(['budget_exceeded']);
  });

  it('a final AGENT failure asks for a replan without the failed tool; a POLICY one stops', () => {
    const ctx = context();
    const state = start();
    fold(state, planRun(state, ctx).entries);
    fold(state, routeSteps(state, ctx));
    const step = nextStep(state)!;
    fold(state, [
      [
        'tool_call_error',
        {
          stepId: step.stepId,
          attempt: 0,
          error: { name: 'E', code: 'broken', message: 'x', failureMode: 'AGENT', retryable: false },
          retryable: false,
          final: true,
        },
      ],
    ]);
    expect(afterFinalFailure(state, step)).toEqual({ replan: { exclude: ['add'], reason: 'step-0 (add) failed: broken' } });
    step.error = { name: 'E', code: 'denied', message: 'x', failureMode: 'POLICY', retryable: false };
    expect(afterFinalFailure(state, step)).toMatchObject({ stop: { stopReason: 'failed', error: { code: 'denied' } } });
  });
});
