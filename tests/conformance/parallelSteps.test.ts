import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  InMemoryStore,
  LoadBalancedPolicy,
  Orchestrator,
  ToolRegistry,
  ValidationError,
  Worker,
  replay,
  verifyJournal,
  type JournalEvent,
} from '../../src/core/index.ts';
import { createSeededRandom, createSequentialIds, steppingClock } from '../../src/core/testing.ts';
import { Ledger, driveThroughCrashes, ledgerRegistry } from '../support/harness.ts';

// A run with `parallelSteps` runs consecutive independent steps of idempotent tools in waves:
// each member routed when ready, started in plan order, called at once, settled in plan order.

/**
 * Tools whose calls finish in the reverse of their start order, recording how many overlap: a
 * call with an even `i` waits until the call with `i + 1` has finished (or 2 s, when nothing
 * runs beside it), so with waves the odd partner always finishes first, whatever the load.
 */
function slowRegistry() {
  const state = { inFlight: 0, most: 0, order: [] as number[] };
  const finished = new Map<number, () => void>();
  const finishedPromise = new Map<number, Promise<void>>();
  const whenFinished = (i: number) => {
    let promise = finishedPromise.get(i);
    if (!promise) {
      promise = new Promise<void>((resolve) => finished.set(i, resolve));
      finishedPromise.set(i, promise);
    }
    return promise;
  };
  const registry = new ToolRegistry();
  const schema = z.object({ i: z.number() });
  const work = async (i: number) => {
    state.inFlight++;
    state.most = Math.max(state.most, state.inFlight);
    if (i % 2 === 0) await Promise.race([whenFinished(i + 1), new Promise((resolve) => setTimeout(resolve, 2_000))]);
    else await new Promise((resolve) => setTimeout(resolve, 1));
    state.inFlight--;
    state.order.push(i);
    void whenFinished(i);
    finished.get(i)!();
    return i * 10;
  };
  registry.register('p', 'slow', { description: 'slow idempotent work', parameters: schema, idempotent: true, handler: ({ i }) => work(i) });
  registry.register('p', 'double', {
    description: 'doubles a number',
    parameters: z.object({ n: z.number() }),
    idempotent: true,
    handler: ({ n }) => n * 2,
  });
  registry.register('p', 'effect', { description: 'a side effect', parameters: schema, idempotent: false, handler: ({ i }) => i * 10 });
  return { registry, state };
}

function orchestrator(registry: ToolRegistry, store: InMemoryStore, parallelSteps: number, prefix = 'par') {
  return new Orchestrator({
    registry,
    store,
    ids: createSequentialIds(prefix),
    clock: steppingClock(1_000, 3),
    workers: [new Worker({ id: 'w1' }), new Worker({ id: 'w2' })],
    routing: new LoadBalancedPolicy(),
    parallelSteps,
    autonomy: { maxRepeats: 50 },
  });
}

const types = (events: readonly JournalEvent[]) =>
  events
    .filter((e) => e.type.startsWith('tool_call') || e.type === 'route_decision')
    .map((e) => `${e.type}:${String((e.data as Record<string, unknown>)['stepId'])}`);

describe('parallel steps', () => {
  it('runs a wave at once on both workers and journals it in plan order whatever order the calls finish in', async () => {
    const { registry, state } = slowRegistry();
    const store = new InMemoryStore();
    const plan = [0, 1, 2, 3].map((i) => ({ tool: 'slow', input: { i } }));
    const outcome = await orchestrator(registry, store, 2).start('slow work', 'p', { plan });
    expect(outcome.status).toBe('completed');
    expect(outcome.outputs).toEqual({ 'step-0': 0, 'step-1': 10, 'step-2': 20, 'step-3': 30 });
    expect(state.most).toBe(2);
    // Step 1 is faster than step 0, so it finished first; the journal does not show it.
    expect(state.order.slice(0, 2)).toEqual([1, 0]);
    const journal = await store.readJournal(outcome.runId);
    expect(types(journal)).toEqual([
      'route_decision:step-0',
      'tool_call_start:step-0',
      'route_decision:step-1',
      'tool_call_start:step-1',
      'tool_call_complete:step-0',
      'tool_call_complete:step-1',
      'route_decision:step-2',
      'tool_call_start:step-2',
      'route_decision:step-3',
      'tool_call_start:step-3',
      'tool_call_complete:step-2',
      'tool_call_complete:step-3',
    ]);
    const workers = journal.filter((e) => e.type === 'route_decision').map((e) => e.data['worker']);
    expect(workers).toEqual(['w1', 'w2', 'w1', 'w2']);
    expect((journal[0]!.data as { inputs: { parallel?: number } }).inputs.parallel).toBe(2);
    expect(verifyJournal(journal).ok).toBe(true);
    expect(await replay(journal, registry)).toMatchObject({ ok: true, events: journal.length });
  });

  it('gives the same journal on every run with the same inputs and clock', async () => {
    const plan = [0, 1, 2, 3, 4, 5].map((i) => ({ tool: 'slow', input: { i } }));
    const journals = [];
    for (let k = 0; k < 2; k++) {
      const store = new InMemoryStore();
      const outcome = await orchestrator(slowRegistry().registry, store, 2).start('slow work', 'p', { plan });
      journals.push((await store.readJournal(outcome.runId)).map((e) => e.hash));
    }
    expect(journals[0]).toEqual(journals[1]);
  });

  it('keeps a step that needs an earlier output, and a non-idempotent step, out of the wave', async () => {
    const { registry } = slowRegistry();
    const store = new InMemoryStore();
    const plan = [
      { tool: 'slow', input: { i: 1 } },
      { tool: 'double', input: { n: { $ref: 'step-0' } } },
      { tool: 'slow', input: { i: 3 } },
      { tool: 'effect', input: { i: 2 } },
      { tool: 'slow', input: { i: 5 } },
    ];
    const outcome = await orchestrator(registry, store, 4).start('mixed work', 'p', { plan });
    expect(outcome.outputs).toEqual({ 'step-0': 10, 'step-1': 20, 'step-2': 30, 'step-3': 20, 'step-4': 50 });
    const journal = await store.readJournal(outcome.runId);
    const order = journal
      .filter((e) => e.type === 'tool_call_start' || e.type === 'tool_call_complete')
      .map((e) => `${e.type === 'tool_call_start' ? '>' : '<'}${String(e.data['stepId'])}`);
    expect(order).toEqual(['>step-0', '<step-0', '>step-1', '>step-2', '<step-1', '<step-2', '>step-3', '<step-3', '>step-4', '<step-4']);
  });

  it('refuses a pool size that is not a whole number from 1 to 256', () => {
    for (const parallelSteps of [0, 1.5, 257, Number.NaN])
      expect(() => orchestrator(new ToolRegistry(), new InMemoryStore(), parallelSteps)).toThrow(ValidationError);
  });

  it('routes every step before the first runs when the pool is one (journals as before)', async () => {
    const { registry } = slowRegistry();
    const store = new InMemoryStore();
    const outcome = await orchestrator(registry, store, 1).start('slow work', 'p', { plan: [1, 3].map((i) => ({ tool: 'slow', input: { i } })) });
    const journal = await store.readJournal(outcome.runId);
    expect(types(journal).slice(0, 3)).toEqual(['route_decision:step-0', 'route_decision:step-1', 'tool_call_start:step-0']);
    expect('parallel' in (journal[0]!.data as { inputs: object }).inputs).toBe(false);
  });

  it('resumes waves cut by crashes between appends: one effect per idempotent step, the mail only once unless a person approves again (200 seeded runs)', async () => {
    const goal = 'record_a(n=1) then record_b(n=2) then record_a(n=3) then send_email(to="ops@example.com") then record_b(n=5)';
    let crashes = 0;
    for (let seed = 1; seed <= 200; seed++) {
      const random = createSeededRandom(seed);
      const ledger = new Ledger();
      const registry = ledgerRegistry(ledger);
      const inner = new InMemoryStore();
      const runId = `run-${seed}`;
      const settled = await driveThroughCrashes({
        inner,
        runId,
        goal,
        profile: 'ledger',
        random,
        appendsAtRisk: 14,
        make: (store) =>
          new Orchestrator({
            registry,
            store,
            ids: createSequentialIds(`s${seed}`),
            clock: steppingClock(seed * 1000, 7),
            sleep: async () => undefined,
            workers: [new Worker({ id: 'w1' }), new Worker({ id: 'w2' })],
            routing: new LoadBalancedPolicy(),
            parallelSteps: 2,
          }),
      });
      crashes += settled.crashes;
      const journal = await inner.readJournal(runId);
      expect(verifyJournal(journal).ok).toBe(true);
      for (const step of ['step-0', 'step-1', 'step-2', 'step-4']) expect(ledger.effects.get(`${runId}:${step}`)).toBe(1);
      const mails = ledger.executions.filter((e) => e.tool === 'send_email').length;
      const approvedReruns = journal.filter((e) => e.type === 'approval_requested' && String(e.data['reason']).startsWith('unknown_outcome')).length;
      expect(mails - 1).toBeLessThanOrEqual(approvedReruns);
      if (seed % 25 === 0) expect(await replay(journal, registry)).toMatchObject({ ok: true, events: journal.length });
    }
    expect(crashes).toBeGreaterThan(100);
  });
});
