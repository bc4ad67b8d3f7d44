import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { InMemoryStore, Orchestrator, ToolRegistry, ToolExecutionError, type JournalEvent } from '../../src/core/index.ts';
import { createSequentialIds } from '../../src/core/testing.ts';
import { applyEvent, initialRunState, type RunState } from '../../src/core/orchestrator/runState.ts';

// The run state keeps a step index, the tool list and the started-step count alongside its
// steps, so each event costs the same however long the plan. Folded one event at a time, the
// kept values must always equal what a scan of the steps gives.

function registry(): ToolRegistry {
  const tools = new ToolRegistry();
  const i = z.object({ i: z.number() });
  tools.register('p', 'noop', { description: 'does nothing', parameters: i, idempotent: true, handler: ({ i: n }) => n });
  tools.register('p', 'echo_twice', { description: 'echoes its number twice', parameters: i, idempotent: true, handler: ({ i: n }) => [n, n] });
  tools.register('p', 'broken', {
    description: 'always fails for good',
    parameters: i,
    idempotent: true,
    handler: () => {
      throw new ToolExecutionError('broken on purpose', { code: 'tool_failed', retryable: false });
    },
  });
  return tools;
}

function checkKeptValues(state: RunState): void {
  expect(state.tools).toEqual([...new Set(state.steps.map((step) => step.tool))]);
  expect(state.executed).toBe(state.steps.filter((step) => step.attempt > 0).length);
  expect(state.stepIndex.size).toBe(new Set(state.steps.map((step) => step.stepId)).size);
  for (const [stepId, position] of state.stepIndex) expect(state.steps.findIndex((step) => step.stepId === stepId)).toBe(position);
}

describe('run state kept values', () => {
  it('equal a scan of the steps after every event, through failures and replans', async () => {
    const tools = ['noop', 'echo_twice', 'broken'] as const;
    let replans = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom(...tools), { minLength: 1, maxLength: 12 }), async (plan) => {
        const store = new InMemoryStore();
        const orchestrator = new Orchestrator({ registry: registry(), store, ids: createSequentialIds('rs'), autonomy: { maxRepeats: 50 } });
        const outcome = await orchestrator.start('run the plan', 'p', { plan: plan.map((tool, i) => ({ tool, input: { i } })) });
        const events: JournalEvent[] = await store.readJournal(outcome.runId);
        const state = initialRunState(events[0]!);
        for (const event of events.slice(1)) {
          applyEvent(state, event);
          checkKeptValues(state);
        }
        expect(state.status).toBe(outcome.status);
        replans += state.replans;
      }),
      { numRuns: 40 },
    );
    // The property held through replans, not only straight runs.
    expect(replans).toBeGreaterThan(0);
  });
});
