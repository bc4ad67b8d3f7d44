import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  InMemoryStore,
  Orchestrator,
  ToolRegistry,
  eventsOf,
  registerBuiltinTools,
  replay,
  staticModels,
  toOtlp,
  toTraceRecords,
  verifyJournal,
  type JournalEvent,
  type Model,
  type Store,
} from '../../src/core/index.ts';
import { createSequentialIds, sealEvent, steppingClock } from '../../src/core/testing.ts';
import { Crash, CrashingStore } from '../support/harness.ts';
import { apiCallError, scriptedModel, type ScriptedTurn } from '../support/scriptedModel.ts';

// The agent loop over the AI SDK's LanguageModelV2 port, in every runtime the core runs in:
// each model call is journaled, tool calls go through the engine's usual path, and the journal
// replays without the model.

function registry(): ToolRegistry {
  const tools = new ToolRegistry();
  registerBuiltinTools(tools);
  tools.register('demo', 'transfer', {
    description: 'Move money between accounts',
    parameters: z.object({ amount: z.number().positive(), to: z.string() }),
    requiresApproval: true,
    handler: ({ amount, to }) => ({ moved: amount, to }),
  });
  return tools;
}

function orchestrator(
  models: ReadonlyArray<readonly [string, Model]>,
  store: Store = new InMemoryStore(),
  more: Partial<ConstructorParameters<typeof Orchestrator>[0]> = {},
) {
  return new Orchestrator({
    registry: more.registry ?? registry(),
    store,
    ids: createSequentialIds('agent'),
    clock: steppingClock(1_000, 5),
    sleep: async () => undefined,
    models: staticModels(models),
    ...more,
  });
}

const ADD_THEN_ANSWER: ScriptedTurn[] = [{ calls: [{ tool: 'add', input: { a: 2, b: 3 } }] }, { text: 'The sum is 5.' }];

describe('agent runs', () => {
  it('call tools turn by turn until the model answers, journaling every call, and replay without the model', async () => {
    const model = scriptedModel(ADD_THEN_ANSWER, 'm1');
    const o = orchestrator([['m1', model]]);
    const outcome = await o.start('what is 2 plus 3?', 'demo');
    expect(outcome.status).toBe('completed');
    const journal = await o.store.readJournal(outcome.runId);
    expect(verifyJournal(journal).ok).toBe(true);
    expect(eventsOf(journal, 'plan_created')[0]!.data.plan.source).toBe('agent');
    const starts = eventsOf(journal, 'model_call_start');
    const completes = eventsOf(journal, 'model_call_complete');
    expect(starts.map((e) => e.data.turn)).toEqual([1, 2]);
    expect(completes.map((e) => e.data.model)).toEqual(['m1', 'm1']);
    expect(eventsOf(journal, 'tool_call_complete').map((e) => e.data.output)).toEqual([5]);
    const done = journal.at(-1)!;
    expect(done.type === 'run_completed' && done.data.outputs).toEqual({ 't1.call-0': 5, answer: 'The sum is 5.' });
    // The second request carried the tool's result back to the model, with the registry's JSON Schemas as tools.
    expect(model.calls).toHaveLength(2);
    expect(JSON.stringify(model.calls[1]!.prompt)).toContain('"tool-result"');
    expect(model.calls[0]!.tools!.map((t) => t.name)).toContain('add');
    expect(starts[0]!.data.requestHash).toMatch(/^[0-9a-f]{64}$/);
    // Tokens from the provider's usage are the run's token spending.
    expect(outcome.status === 'completed' && (await o.inspect(outcome.runId)).usage.tokens).toBe(30);

    // Model calls are spans named by the OpenTelemetry GenAI conventions.
    const spans = toOtlp(journal).resourceSpans[0]!.scopeSpans[0]!.spans;
    const chats = spans.filter((span) => span.name === 'chat m1');
    expect(chats).toHaveLength(2);
    const attributes = Object.fromEntries(chats[0]!.attributes.map((a) => [a.key, Object.values(a.value)[0]]));
    expect(attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'm1',
      'gen_ai.usage.input_tokens': '10',
      'gen_ai.usage.output_tokens': '5',
    });
    expect(toTraceRecords(journal).find((r) => r.type === 'model_call_complete')?.durationMs).toBe(completes[0]!.data.durationMs);

    const replayed = await replay(journal, registry());
    expect(replayed).toEqual({ ok: true, events: journal.length, head: { seq: journal.at(-1)!.seq, hash: journal.at(-1)!.hash } });
    expect(model.calls).toHaveLength(2);
  });

  it('reports an edited recorded answer at its seq, and a changed prompt as a divergence at its model_call_start', async () => {
    const o = orchestrator([['m1', scriptedModel(ADD_THEN_ANSWER, 'm1')]]);
    const { runId } = await o.start('what is 2 plus 3?', 'demo');
    const journal = await o.store.readJournal(runId);
    const answer = eventsOf(journal, 'model_call_complete')[0]!;
    // Edited in place: the chain breaks exactly there.
    const edited = journal.map((e) =>
      e.seq === answer.seq ? { ...e, data: { ...answer.data, toolCalls: [{ ...answer.data.toolCalls[0]!, input: { a: 2, b: 4 } }] } } : e,
    ) as JournalEvent[];
    expect(verifyJournal(edited)).toMatchObject({ ok: false, seq: answer.seq });
    await expect(replay(edited, registry())).rejects.toMatchObject({ code: 'journal_invalid', details: { seq: answer.seq } });
    // Edited and re-chained: the replay follows the edited answer and differs right after it.
    const resealed: JournalEvent[] = [];
    for (const e of edited) resealed.push(sealEvent(resealed.at(-1), e.runId, e.type, e.at, e.data as never) as JournalEvent);
    const result = await replay(resealed, registry());
    expect(result.ok).toBe(false);
    expect(!result.ok && result.divergence.seq).toBe(answer.seq + 1);
    // A prompt the current code would not send (here: another goal recorded) diverges at the first model_call_start.
    const first = resealed[0]!;
    const start = eventsOf(journal, 'model_call_start')[0]!;
    const otherPrompt = journal.map((e) => (e.seq === start.seq ? { ...e, data: { ...start.data, requestHash: '0'.repeat(64) } } : e)) as JournalEvent[];
    const chained: JournalEvent[] = [];
    for (const e of otherPrompt) chained.push(sealEvent(chained.at(-1), e.runId, e.type, e.at, e.data as never) as JournalEvent);
    const diverged = await replay(chained, registry());
    expect(!diverged.ok && diverged.divergence.seq).toBe(start.seq);
    expect(first.seq).toBe(0);
  });

  it('sends an invalid tool call back to the model as an error, a bounded number of times', async () => {
    const model = scriptedModel(
      [{ calls: [{ tool: 'no_such_tool', input: {} }] }, { calls: [{ tool: 'add', input: { a: 'two' } }] }, { text: 'I cannot.' }],
      'm1',
    );
    const o = orchestrator([['m1', model]]);
    const outcome = await o.start('add two things', 'demo');
    expect(outcome.status).toBe('completed');
    const journal = await o.store.readJournal(outcome.runId);
    const turns = eventsOf(journal, 'agent_turn');
    expect(turns.map((t) => t.data.rejected.length)).toEqual([1, 1, 0]);
    expect(JSON.stringify(model.calls[1]!.prompt)).toContain('invalid call, not run');
    expect(eventsOf(journal, 'tool_call_start')).toHaveLength(0);

    const stubborn = scriptedModel(
      Array.from({ length: 10 }, () => ({ calls: [{ tool: 'nope', input: {} }] })),
      'm1',
    );
    const limited = orchestrator([['m1', stubborn]], new InMemoryStore(), { agent: { maxInvalidToolCalls: 2 } });
    const stopped = await limited.start('add two things', 'demo');
    expect(stopped).toMatchObject({ status: 'failed', stopReason: 'invalid_tool_calls' });
    expect(stubborn.calls).toHaveLength(3);
  });

  it('stops at maxLlmCalls and at the token ceiling (with a warning at 80 %)', async () => {
    const looping = scriptedModel(
      Array.from({ length: 20 }, (_, i) => ({ calls: [{ tool: 'add', input: { a: i, b: 1 } }] })),
      'm1',
    );
    const capped = await orchestrator([['m1', looping]], new InMemoryStore(), { agent: { maxLlmCalls: 3 }, config: { plannerMaxSteps: 50 } }).start(
      'count up',
      'demo',
    );
    expect(capped).toMatchObject({ status: 'failed', stopReason: 'max_llm_calls' });
    expect(looping.calls).toHaveLength(3);

    const hungry = scriptedModel(
      Array.from({ length: 20 }, (_, i) => ({ calls: [{ tool: 'add', input: { a: i, b: 1 } }], tokens: { input: 300, output: 100 } })),
      'm1',
    );
    const store = new InMemoryStore();
    const o = orchestrator([['m1', hungry]], store, { budget: { tokenCeiling: 1000 }, config: { plannerMaxSteps: 50 } });
    const outcome = await o.start('count up', 'demo');
    expect(outcome).toMatchObject({ status: 'failed', stopReason: 'budget_exceeded' });
    const journal = await store.readJournal(outcome.runId);
    const warning = eventsOf(journal, 'budget_warning')[0]!;
    expect(warning.data).toMatchObject({ scope: 'run', dimensions: ['tokens'], usage: { tokens: 800 } });
    expect(hungry.calls).toHaveLength(3);
    // The answer that crossed the ceiling is recorded, but its tool calls do not run.
    expect(eventsOf(journal, 'tool_call_start')).toHaveLength(2);
  });

  it('retries a transient failure, falls to the next model, and journals which model answered', async () => {
    const flaky = scriptedModel([{ error: apiCallError(500) }, { error: apiCallError(429, { 'retry-after': '0' }) }, { error: apiCallError(503) }], 'first');
    const steady = scriptedModel([{ text: 'Fine.' }], 'second');
    const o = orchestrator([
      ['first', flaky],
      ['second', steady],
    ]);
    const outcome = await o.start('say fine', 'demo');
    expect(outcome.status).toBe('completed');
    const journal = await o.store.readJournal(outcome.runId);
    expect(eventsOf(journal, 'model_call_error').map((e) => [e.data.model, e.data.attempt, e.data.error.code, e.data.next])).toEqual([
      ['first', 1, 'model_unavailable', 'retry'],
      ['first', 2, 'model_rate_limited', 'retry'],
      ['first', 3, 'model_unavailable', 'fallback'],
    ]);
    expect(eventsOf(journal, 'model_call_complete').map((e) => e.data.model)).toEqual(['second']);
    expect((await replay(journal, registry())).ok).toBe(true);

    const refused = scriptedModel([{ error: apiCallError(401) }], 'first');
    const never = scriptedModel([], 'second');
    const stopped = await orchestrator([
      ['first', refused],
      ['second', never],
    ]).start('say fine', 'demo');
    expect(stopped).toMatchObject({ status: 'failed', stopReason: 'model_failed', error: { code: 'model_unauthorized' } });
    expect(refused.calls).toHaveLength(1);
    expect(never.calls).toHaveLength(0);
  });

  it('pauses for an approval in the middle of the loop and goes on in a new orchestrator', async () => {
    const store = new InMemoryStore();
    const turns: ScriptedTurn[] = [{ calls: [{ tool: 'transfer', input: { amount: 10, to: 'savings' } }] }, { text: 'Moved 10 to savings.' }];
    const first = orchestrator([['m1', scriptedModel(turns, 'm1')]], store);
    const paused = await first.start('move 10 to savings', 'demo');
    expect(paused.status).toBe('paused');
    // A new process: the model picks up the conversation at turn 2.
    const second = scriptedModel(turns.slice(1), 'm1');
    const done = await orchestrator([['m1', second]], store).resolveApproval(paused.pendingApproval!.approvalId, { decision: 'approve', by: 'ada' });
    expect(done.status).toBe('completed');
    expect(JSON.stringify(second.calls[0]!.prompt)).toContain('"moved":10');
    const journal = await store.readJournal(paused.runId);
    expect((await replay(journal, registry())).ok).toBe(true);
  });

  it('re-issues a call whose answer was lost in a crash, as the next attempt', async () => {
    const inner = new InMemoryStore();
    // Appends: 1 initialize, 2 plan, 3 route, 4 model_call_start, 5 its answer (crashes).
    const crashing = orchestrator([['m1', scriptedModel([{ text: 'lost' }], 'm1')]], new CrashingStore(inner, new Set([5])));
    await expect(crashing.start('say hello', 'demo', { runId: 'crashy' })).rejects.toBeInstanceOf(Crash);
    expect((await inner.readJournal('crashy')).at(-1)!.type).toBe('model_call_start');
    const again = scriptedModel([{ text: 'Hello.' }], 'm1');
    const outcome = await orchestrator([['m1', again]], inner).resume('crashy');
    expect(outcome.status).toBe('completed');
    const journal = await inner.readJournal('crashy');
    expect(eventsOf(journal, 'model_call_start').map((e) => [e.data.attempt, e.data.rerun ?? false])).toEqual([
      [1, false],
      [2, true],
    ]);
    expect(await replay(journal, registry())).toMatchObject({ ok: true, events: journal.length });
  });

  it('answers a trivial goal in phase 1 (a JSON verdict) and takes the tool loop otherwise', async () => {
    const model = scriptedModel([{ text: '{"trivial": true, "confidence": 0.97, "answer": "Paris."}' }], 'm1');
    const trivial = await orchestrator([['m1', model]], new InMemoryStore(), { config: { useLlmPrePlan: true } }).start(
      'what is the capital of France?',
      'demo',
    );
    expect(trivial).toMatchObject({ status: 'completed', outputs: { answer: 'Paris.' } });
    expect(model.calls).toHaveLength(1);
    expect(model.calls[0]!.tools).toBeUndefined();
    expect(model.calls[0]!.responseFormat).toEqual({ type: 'json' });

    const unsure = scriptedModel(
      [{ text: '{"trivial": false, "confidence": 0.8}' }, { calls: [{ tool: 'add', input: { a: 2, b: 2 } }] }, { text: 'Four.' }],
      'm1',
    );
    const o = orchestrator([['m1', unsure]], new InMemoryStore(), { config: { useLlmPrePlan: true } });
    const looped = await o.start('what is 2 plus 2?', 'demo');
    expect(looped).toMatchObject({ status: 'completed', outputs: { 't2.call-0': 4, answer: 'Four.' } });
    expect(unsure.calls[1]!.tools!.map((t) => t.name)).toContain('add');
    // The classification is not part of the tool loop's conversation.
    expect(JSON.stringify(unsure.calls[1]!.prompt)).not.toContain('triage');
    const journal = await o.store.readJournal(looped.runId);
    expect(eventsOf(journal, 'model_call_start').map((e) => e.data.purpose ?? 'loop')).toEqual(['preplan', 'loop', 'loop']);
    expect((await replay(journal, registry())).ok).toBe(true);
  });

  it('cancels a run while its model call is in flight: the call is aborted and the run ends cancelled', async () => {
    let signal: AbortSignal | undefined;
    const hanging: Model = {
      specificationVersion: 'v2',
      provider: 'test',
      modelId: 'm1',
      supportedUrls: {},
      doStream: () => Promise.reject(new Error('not streamed')),
      doGenerate: (options) =>
        new Promise((_, reject) => {
          signal = options.abortSignal;
          options.abortSignal?.addEventListener('abort', () => reject(options.abortSignal!.reason), { once: true });
        }),
    };
    const o = orchestrator([['m1', hanging]]);
    const { runId, outcome } = await o.launch('wait for the model', 'demo');
    await expect.poll(() => signal !== undefined).toBe(true);
    await o.cancel(runId, 'operator stopped it');
    expect(await outcome).toMatchObject({ status: 'cancelled', stopReason: 'cancelled' });
    expect(signal!.aborted).toBe(true);
    const journal = await o.store.readJournal(runId);
    expect(journal.at(-1)!.type).toBe('run_cancelled');
    expect(eventsOf(journal, 'model_call_error')[0]!.data).toMatchObject({ next: 'stop', error: { code: 'cancelled' } });
    expect((await replay(journal, registry())).ok).toBe(true);
  });

  it('refuses an oversized answer with a typed error instead of journaling it', async () => {
    const model = scriptedModel([{ text: 'x'.repeat(1_000_001) }], 'm1');
    const outcome = await orchestrator([['m1', model]]).start('write a lot', 'demo');
    expect(outcome).toMatchObject({ status: 'failed', stopReason: 'model_failed', error: { code: 'model_answer_too_large', retryable: false } });
    expect(model.calls).toHaveLength(1);
  });

  it('ends as stuck when two tool calls fail the same way, whatever their arguments', async () => {
    const tools = registry();
    tools.register('demo', 'fetch_invoice', {
      description: 'Fetch an invoice by number',
      parameters: z.object({ number: z.number().int() }),
      handler: ({ number }) => {
        throw new Error(`invoice ${number} is locked by job 7781`);
      },
    });
    const model = scriptedModel(
      [
        { calls: [{ tool: 'fetch_invoice', input: { number: 1001 } }] },
        { calls: [{ tool: 'fetch_invoice', input: { number: 1002 } }] },
        { text: 'never asked' },
      ],
      'm1',
    );
    const o = orchestrator([['m1', model]], new InMemoryStore(), { registry: tools, retry: { maxAttempts: 1 } });
    const outcome = await o.start('fetch invoices 1001 and 1002', 'demo');
    expect(outcome).toMatchObject({ status: 'failed', stopReason: 'stuck', error: { code: 'stuck', failureMode: 'AGENT' } });
    expect(model.calls).toHaveLength(2);
    // The first failure went back to the model as the tool's result.
    expect(JSON.stringify(model.calls[1]!.prompt)).toContain('locked by job');
    expect((await replay(await o.store.readJournal(outcome.runId), tools)).ok).toBe(true);
  });

  it('runs tool calls written out in the goal without the model (phase 0), unless told otherwise', async () => {
    const model = scriptedModel([{ text: 'I would have added them.' }], 'm1');
    const written = await orchestrator([['m1', model]]).start('add(a=1, b=2)', 'demo');
    expect(written).toMatchObject({ status: 'completed', outputs: { 'step-0': 3 } });
    expect(model.calls).toHaveLength(0);
    const off = orchestrator([['m1', model]], new InMemoryStore(), { config: { detectToolCallsFromText: false } });
    const asked = await off.start('add(a=1, b=2)', 'demo');
    expect(asked).toMatchObject({ status: 'completed', outputs: { answer: 'I would have added them.' } });
    expect(model.calls).toHaveLength(1);
  });

  it('keeps the lexical planner without a model, or when a run asks for it', async () => {
    const plain = new Orchestrator({ registry: registry(), ids: createSequentialIds('lex'), sleep: async () => undefined });
    const outcome = await plain.start('add(a=1, b=2)', 'demo');
    const journal = await plain.store.readJournal(outcome.runId);
    expect(eventsOf(journal, 'plan_created')[0]!.data.plan.source).toBe('pattern');
    expect(journal.some((e) => e.type.startsWith('model_'))).toBe(false);
    const model = scriptedModel([], 'm1');
    const lexical = await orchestrator([['m1', model]]).start('add(a=1, b=2)', 'demo', { mode: 'lexical' });
    expect(lexical.status).toBe('completed');
    expect(model.calls).toHaveLength(0);
    await expect(plain.start('what is 1 plus 2?', 'demo', { mode: 'agent' })).rejects.toMatchObject({ code: 'model_not_configured' });
  });
});
