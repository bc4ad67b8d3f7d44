import { afterEach, describe, expect, it } from 'vitest';
import { openAICompatibleModels } from '../../src/api/models.ts';
import { InMemoryStore, REFLECTION_NAMESPACE, eventsOf, memoryManagerRunMemory, replay, toOtlp } from '../../src/core/index.ts';
import { FIRST, memoryManager, orchestrator, registry } from '../support/memoryLoop.ts';
import { startModelServer, type ModelServer } from '../support/modelServer.ts';

// The reflection of a run with memory in the loop, written by the configured model over the real
// wire (the scripted OpenAI-compatible server), journaled, and replayed with the server stopped;
// the journal's own account when the model fails. The lexical cases are in tests/conformance/memoryLoop.test.ts.

const KEY = 'sk-memory-loop-canary-31337';
let server: ModelServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('the reflection written by a model (over the wire)', () => {
  const provider = (models = ['small']) => openAICompatibleModels({ url: server!.url, models, stream: false, callTimeoutMs: 5_000 }, KEY);

  it('asks the configured model for the summary of a lexical run, journaled and replayed with the server stopped', async () => {
    const note = 'Asked for the Paris forecast. weather_forecast is down (tool_failed); forecast_service answered. Use forecast_service first.';
    server = await startModelServer([{ text: note, tokens: { input: 90, output: 30 } }]);
    const memory = await memoryManager();
    const o = orchestrator(registry(), new InMemoryStore(), { memory: memoryManagerRunMemory(memory), models: provider() });
    const outcome = await o.start(FIRST, 'demo', { mode: 'lexical' });
    expect(outcome.status).toBe('completed');
    const journal = await o.store.readJournal(outcome.runId);
    const [start] = eventsOf(journal, 'model_call_start');
    expect(start!.data).toMatchObject({ callId: 'reflect', purpose: 'reflect', model: 'small', attempt: 1 });
    const [complete] = eventsOf(journal, 'model_call_complete');
    expect(complete!.data).toMatchObject({ purpose: 'reflect', text: note, usage: { totalTokens: 120 } });
    expect(eventsOf(journal, 'reflection').at(-1)!.data.summary).toBe(note);
    expect(((await memory.latest('demo', REFLECTION_NAMESPACE))!.value as { summary: string }).summary).toBe(note);
    // The model was shown the journal's own account of the run, without the key.
    const sent = JSON.stringify(server.requests[0]!.body.messages);
    expect(sent).toContain(`Asked: \\"${FIRST}\\"`);
    expect(sent).toContain('Failed: weather_forecast (step-0): tool_failed');
    expect(JSON.stringify(journal)).not.toContain(KEY);
    // The trace shows the reflection as a model call span of its own.
    const spans = toOtlp(journal).resourceSpans[0]!.scopeSpans[0]!.spans;
    expect(spans.map((span) => span.name)).toContain('chat small');

    await server.close();
    server = undefined;
    expect(await replay(journal, registry())).toMatchObject({ ok: true, events: journal.length });
  });

  it("falls back to the journal's account when the model fails", async () => {
    server = await startModelServer([{ status: 401, body: JSON.stringify({ error: { message: 'bad key' } }) }]);
    const o = orchestrator(registry(), new InMemoryStore(), { memory: memoryManagerRunMemory(await memoryManager()), models: provider() });
    const outcome = await o.start(FIRST, 'demo', { mode: 'lexical' });
    expect(outcome.status).toBe('completed');
    const journal = await o.store.readJournal(outcome.runId);
    const [failed] = eventsOf(journal, 'model_call_error');
    expect(failed!.data).toMatchObject({ purpose: 'reflect', next: 'stop' });
    const summary = eventsOf(journal, 'reflection').at(-1)!.data.summary;
    expect(summary).toContain(`Asked: "${FIRST}"`);
    expect(summary).toContain('Outcome: completed.');
    await server.close();
    server = undefined;
    expect(await replay(journal, registry())).toMatchObject({ ok: true, events: journal.length });
  });
});
