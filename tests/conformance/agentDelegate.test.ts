import { describe, expect, it } from 'vitest';
import { InMemoryStore, Orchestrator, eventsOf, forkRun, replay, staticModels, type Store } from '../../src/core/index.ts';
import { createSequentialIds, steppingClock } from '../../src/core/testing.ts';
import { CrashOnce } from '../support/crashOnce.ts';
import { Crash } from '../support/harness.ts';
import { scriptedModel, type ScriptedTurn } from '../support/scriptedModel.ts';
import { delegationRegistry } from '../support/delegationTools.ts';

// Delegation (phase 2's `delegate`, seed 003) in each runtime: an agent run hands a sub-goal to
// the agent of another profile as a linked sub-run; the step that delegated, re-run after a
// crash, reads the sub-run it already started instead of starting another.

const registry = delegationRegistry;

const SCRIPT: ScriptedTurn[] = [
  { calls: [{ tool: 'delegate', input: { profile: 'travel', goal: 'Find the price of flight LH1' } }] },
  { calls: [{ tool: 'lookup_price', input: { flight: 'LH1' } }] },
  { text: 'LH1 costs 320.' },
  { text: 'LH1 costs 320, says the travel agent.' },
];

function orchestrator(store: Store, model: ReturnType<typeof scriptedModel>, prices: string[], maxDepth = 2) {
  return new Orchestrator({
    registry: registry(prices),
    store,
    ids: createSequentialIds('dlgc'),
    clock: steppingClock(Date.UTC(2026, 0, 4), 5),
    sleep: async () => undefined,
    models: staticModels([['m1', model]]),
    delegation: { profiles: ['travel', 'lead'], maxDepth },
  });
}

describe('delegation in the agent loop', () => {
  it('runs the sub-goal as a linked sub-run of the other profile and answers with its result', async () => {
    const model = scriptedModel(SCRIPT, 'm1');
    const prices: string[] = [];
    const store = new InMemoryStore();
    const outcome = await orchestrator(store, model, prices).start('Ask the travel agent what LH1 costs', 'lead', { runId: 'lead-1' });
    expect(outcome).toMatchObject({ status: 'completed', outputs: { answer: 'LH1 costs 320, says the travel agent.' } });
    const child = await store.readJournal('lead-1.t1.call-0');
    expect(child[0]!.type === 'stage' && child[0]!.data.inputs).toMatchObject({
      profile: 'travel',
      delegatedBy: { runId: 'lead-1', stepId: 't1.call-0', depth: 1 },
      // One level below the lead, the travel agent may still delegate — back to the lead only.
      agent: { delegate: { profiles: ['lead'], maxDepth: 2 } },
    });
    expect(prices).toEqual(['LH1']);
    // The result the lead's model got back names the sub-run and its answer.
    expect(JSON.stringify(model.calls[3]!.prompt)).toContain('lead-1.t1.call-0');
    const journal = await store.readJournal('lead-1');
    expect(await replay(journal, registry())).toMatchObject({ ok: true, events: journal.length });
    // A fork cannot replay a delegation: forking after it is refused, with a typed error.
    const answer = eventsOf(journal, 'model_call_complete').at(-1)!;
    await expect(
      forkRun(journal, { registry: registry(), runId: 'lead-fork', at: answer.seq, edit: { kind: 'model_answer', text: 'edited' } }),
    ).rejects.toMatchObject({ code: 'invalid_fork', message: expect.stringContaining('delegated to a sub-run') });
  });

  it('after a crash before the delegate call was recorded, reads the finished sub-run instead of starting another', async () => {
    const model = scriptedModel(SCRIPT, 'm1');
    const prices: string[] = [];
    const inner = new InMemoryStore();
    const crashing = new CrashOnce(inner, (events) => events.some((e) => e.runId === 'lead-2' && e.type === 'tool_call_complete'));
    await expect(orchestrator(crashing, model, prices).start('Ask the travel agent what LH1 costs', 'lead', { runId: 'lead-2' })).rejects.toThrow(Crash);
    expect((await inner.getRun('lead-2.t1.call-0'))?.status).toBe('completed');
    const outcome = await orchestrator(inner, model, prices).resume('lead-2');
    expect(outcome.status).toBe('completed');
    // The sub-run ran once: one lookup, four model calls in all.
    expect(prices).toEqual(['LH1']);
    expect(model.calls).toHaveLength(4);
    const journal = await inner.readJournal('lead-2');
    expect(eventsOf(journal, 'tool_call_start').map((e) => [e.data.tool, e.data.attempt, e.data.rerun ?? false])).toEqual([
      ['delegate', 1, false],
      ['delegate', 1, true],
    ]);
    expect(await replay(journal, registry())).toMatchObject({ ok: true, events: journal.length });
  });
});
