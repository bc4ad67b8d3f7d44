import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  InMemoryStore,
  Orchestrator,
  ToolRegistry,
  eventsOf,
  forkRun,
  registerBuiltinTools,
  replay,
  staticModels,
  verifyJournal,
} from '../../src/core/index.ts';
import { createSequentialIds } from '../../src/core/testing.ts';
import { scriptedModel } from '../support/scriptedModel.ts';

// Forks ("time travel"): a new run from any model answer, approval decision or goal of a
// recorded run, with one change. Up to the fork point it follows the recording without calling
// a tool or a provider; from there it runs live. Its journal names the source head and replays.

function setup() {
  const effects: string[] = [];
  const registry = new ToolRegistry();
  registerBuiltinTools(registry);
  registry.register('demo', 'book_flight', {
    description: 'Book a flight by its number',
    parameters: z.object({ flight: z.string() }),
    requiresApproval: true,
    handler: ({ flight }) => (effects.push(flight), { booked: flight }),
  });
  registry.register('demo', 'lookup_price', {
    description: 'Price of a flight',
    parameters: z.object({ flight: z.string() }),
    idempotent: true,
    handler: ({ flight }) => (effects.push(`price ${flight}`), { flight, price: flight === 'LH1' ? 320 : 280 }),
  });
  return { registry, effects };
}

async function recorded() {
  const { registry, effects } = setup();
  const store = new InMemoryStore();
  const model = scriptedModel(
    [{ calls: [{ tool: 'lookup_price', input: { flight: 'LH1' } }] }, { calls: [{ tool: 'book_flight', input: { flight: 'LH1' } }] }, { text: 'Booked LH1.' }],
    'm1',
  );
  const o = new Orchestrator({ registry, store, ids: createSequentialIds('src'), sleep: async () => undefined, models: staticModels([['m1', model]]) });
  const paused = await o.start('book the flight to Paris', 'demo');
  const done = await o.resolveApproval(paused.pendingApproval!.approvalId, { decision: 'approve', by: 'ada' });
  expect(done.status).toBe('completed');
  return { journal: await store.readJournal(done.runId), effects };
}

describe('forks', () => {
  it('fork from a model answer: the prefix is fed back, the edited answer taken, the rest runs live', async () => {
    const { journal } = await recorded();
    const { registry, effects } = setup();
    const answer = eventsOf(journal, 'model_call_complete')[1]!;
    const live = scriptedModel([{ text: 'Checked AF2 instead: 280.' }], 'm1');
    const store = new InMemoryStore();
    const fork = await forkRun(journal, {
      registry,
      store,
      runId: 'fork-1',
      models: staticModels([['m1', live]]),
      sleep: async () => undefined,
      at: answer.seq,
      edit: { kind: 'model_answer', toolCalls: [{ toolCallId: 'edited', toolName: 'lookup_price', input: { flight: 'AF2' } }] },
    });
    expect(fork).toMatchObject({
      status: 'completed',
      outputs: { 't1.call-0': { price: 320 }, 't2.call-0': { price: 280 }, answer: 'Checked AF2 instead: 280.' },
    });
    // The recorded lookup was not run again; only the forked call ran, and the live model saw one call.
    expect(effects).toEqual(['price AF2']);
    expect(live.calls).toHaveLength(1);
    const forked = await store.readJournal('fork-1');
    expect(verifyJournal(forked).ok).toBe(true);
    const inputs = forked[0]!.type === 'stage' ? forked[0]!.data.inputs : undefined;
    expect(inputs?.forkOf).toEqual({ runId: journal[0]!.runId, seq: journal.at(-1)!.seq, hash: journal.at(-1)!.hash, at: answer.seq });
    expect(await replay(forked, setup().registry)).toMatchObject({ ok: true, events: forked.length });
  });

  it('fork from an approval with another decision, and from the goal', async () => {
    const { journal } = await recorded();
    const { registry, effects } = setup();
    const decision = eventsOf(journal, 'approval_received')[0]!;
    const live = scriptedModel([{ text: 'The booking was refused, so nothing is booked.' }], 'm1');
    const rejected = await forkRun(journal, {
      registry,
      runId: 'fork-2',
      models: staticModels([['m1', live]]),
      sleep: async () => undefined,
      at: decision.seq,
      edit: { kind: 'approval', decision: 'reject', reason: 'too expensive' },
    });
    expect(rejected).toMatchObject({ status: 'completed', outputs: { answer: 'The booking was refused, so nothing is booked.' } });
    expect(effects).toEqual([]);
    expect(JSON.stringify(live.calls[0]!.prompt)).toContain('approval_rejected');

    const regoal = scriptedModel([{ text: 'Rome it is.' }], 'm1');
    const other = await forkRun(journal, {
      registry,
      runId: 'fork-3',
      models: staticModels([['m1', regoal]]),
      at: 0,
      edit: { kind: 'goal', goal: 'book the flight to Rome' },
    });
    expect(other).toMatchObject({ status: 'completed', outputs: { answer: 'Rome it is.' } });
    expect(JSON.stringify(regoal.calls[0]!.prompt)).toContain('Rome');
    await expect(forkRun(journal, { registry, runId: 'fork-4', at: 1, edit: { kind: 'goal', goal: 'x' } })).rejects.toMatchObject({ code: 'invalid_fork' });
  });
});
