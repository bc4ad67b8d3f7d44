import { afterEach, describe, expect, it } from 'vitest';
import { openAICompatibleModels } from '../../src/api/models.ts';
import type { ToolRegistry } from '../../src/core/index.ts';
import { InMemoryStore, Orchestrator, eventsOf, replay, type JournalEvent } from '../../src/core/index.ts';
import { createSequentialIds, steppingClock } from '../../src/core/testing.ts';
import { startModelServer, type ModelServer, type Reply } from '../support/modelServer.ts';
import { delegationRegistry } from '../support/delegationTools.ts';

// Phase 2's third choice (seed 003): besides answering and calling a tool, the model may
// delegate a sub-goal to the agent of another profile. The sub-run is a run of its own, linked
// to its parent, under the parent's remaining budget, nested at most maxDepth deep; the parent
// replays its delegation from its own journal, with the model server stopped.

const KEY = 'sk-delegate-canary-4242';
let server: ModelServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

const registry = delegationRegistry;

function orchestrator(tools: ToolRegistry, store: InMemoryStore, maxDepth?: number) {
  return new Orchestrator({
    registry: tools,
    store,
    ids: createSequentialIds('dlg'),
    clock: steppingClock(Date.UTC(2026, 0, 3), 5),
    sleep: async () => undefined,
    models: openAICompatibleModels({ url: server!.url, models: ['small'], stream: false, callTimeoutMs: 5_000 }, KEY),
    delegation: { profiles: ['lead', 'travel'], ...(maxDepth !== undefined ? { maxDepth } : {}) },
    budget: { tokenCeiling: 10_000 },
  });
}

const DELEGATING: Reply[] = [
  // The lead's model first names a profile it may not delegate to: the call goes back as invalid.
  { calls: [{ name: 'delegate', args: { profile: 'billing', goal: 'Price of LH1' } }] },
  { calls: [{ name: 'delegate', args: { profile: 'travel', goal: 'Find the price of flight LH1' } }] },
  // The travel agent's run, inside the lead's delegate call.
  { calls: [{ name: 'lookup_price', args: { flight: 'LH1' } }] },
  { text: 'LH1 costs 320.' },
  // The lead answers with what came back.
  { text: 'The travel agent found that LH1 costs 320.' },
];

describe('delegation in the agent loop (over the wire)', () => {
  it('hands a sub-goal to the agent of another profile as a linked sub-run, and replays it from the parent journal', async () => {
    server = await startModelServer(DELEGATING);
    const prices: string[] = [];
    const store = new InMemoryStore();
    const o = orchestrator(registry(prices), store, 1);
    const outcome = await o.start('How much is flight LH1? Ask the travel agent.', 'lead');
    expect(outcome).toMatchObject({ status: 'completed', outputs: { answer: 'The travel agent found that LH1 costs 320.' } });
    expect(prices).toEqual(['LH1']);

    const journal = await store.readJournal(outcome.runId);
    const inputs = journal[0]!.type === 'stage' ? journal[0]!.data.inputs! : undefined;
    expect(inputs!.agent!.delegate).toEqual({ profiles: ['travel'], maxDepth: 1 });
    const turns = eventsOf(journal, 'agent_turn');
    expect(turns[0]!.data.rejected[0]).toMatchObject({ tool: 'delegate', error: { code: 'invalid_input', message: expect.stringContaining('profile') } });
    expect(turns[1]!.data.steps).toMatchObject([{ stepId: 't2.call-0', tool: 'delegate', input: { profile: 'travel', goal: 'Find the price of flight LH1' } }]);
    const childId = `${outcome.runId}.t2.call-0`;
    const [done] = eventsOf(journal, 'tool_call_complete');
    expect(done!.data.output).toMatchObject({ runId: childId, profile: 'travel', status: 'completed', answer: 'LH1 costs 320.' });
    // The model was offered the delegate tool; the sub-run, at the depth limit, was not.
    expect(server.requests[0]!.body.tools!.map((t) => t.function.name)).toEqual(['delegate', 'take_note']);
    expect(server.requests[2]!.body.tools!.map((t) => t.function.name)).toEqual(['lookup_price']);

    const child: JournalEvent[] = await store.readJournal(childId);
    const childInputs = child[0]!.type === 'stage' ? child[0]!.data.inputs! : undefined;
    expect(childInputs).toMatchObject({
      profile: 'travel',
      goal: 'Find the price of flight LH1',
      delegatedBy: { runId: outcome.runId, stepId: 't2.call-0', depth: 1 },
    });
    expect(childInputs!.agent!.delegate).toBeUndefined();
    // The sub-run spends at most what the parent had left when it delegated.
    const usedBefore = eventsOf(journal, 'model_call_complete')
      .slice(0, 2)
      .reduce((n, e) => n + e.data.usage.totalTokens, 0);
    expect(childInputs!.budget.tokenCeiling).toBe(10_000 - usedBefore);
    expect(child.at(-1)).toMatchObject({ type: 'run_completed', data: { success: true } });
    // The parent counts what its sub-run spent as its own.
    const childTokens = eventsOf(child, 'model_call_complete').reduce((n, e) => n + e.data.usage.totalTokens, 0);
    const ownTokens = eventsOf(journal, 'model_call_complete').reduce((n, e) => n + e.data.usage.totalTokens, 0);
    expect(childTokens).toBeGreaterThan(0);
    expect(done!.data.output).toMatchObject({ usage: { tokens: childTokens } });
    expect(outcome.usage.tokens).toBe(ownTokens + childTokens);

    // With the server stopped, both journals replay; the parent's delegation comes from its own journal.
    await server.close();
    server = undefined;
    expect(await replay(journal, registry())).toMatchObject({ ok: true, events: journal.length });
    expect(await replay(child, registry())).toMatchObject({ ok: true, events: child.length });
    expect(JSON.stringify([journal, child])).not.toContain(KEY);
  });

  it('fails the delegate call when the sub-run fails, and the parent model sees why', async () => {
    server = await startModelServer([
      { calls: [{ name: 'delegate', args: { profile: 'travel', goal: 'Find the price of flight LH1' } }] },
      { status: 400, body: JSON.stringify({ error: { message: 'context too long' } }) },
      { text: 'The travel agent could not answer.' },
    ]);
    const store = new InMemoryStore();
    const outcome = await orchestrator(registry(), store).start('How much is flight LH1? Ask the travel agent.', 'lead');
    expect(outcome.status).toBe('completed');
    const journal = await store.readJournal(outcome.runId);
    const [failed] = eventsOf(journal, 'tool_call_error');
    expect(failed!.data.error).toMatchObject({ code: 'delegate_failed', failureMode: 'AGENT' });
    expect(failed!.data.error.message).toContain('of profile travel failed (model_request_refused)');
    // The failure went back to the model as the delegate call's result.
    expect(JSON.stringify(server.requests[2]!.body.messages)).toContain('delegate_failed');
    expect(await replay(journal, registry())).toMatchObject({ ok: true, events: journal.length });
  });

  it('refuses a delegation depth outside 1..4', () => {
    server = undefined;
    expect(
      () =>
        new Orchestrator({
          registry: registry(),
          store: new InMemoryStore(),
          delegation: { profiles: ['travel'], maxDepth: 9 },
        }),
    ).toThrow(expect.objectContaining({ code: 'invalid_option' }));
  });
});
