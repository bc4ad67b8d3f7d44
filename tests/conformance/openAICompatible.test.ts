import { describe, expect, it } from 'vitest';
import { InMemoryStore, Orchestrator, ToolRegistry, eventsOf, registerBuiltinTools, replay } from '../../src/core/index.ts';
import { createSequentialIds } from '../../src/core/testing.ts';
import { openAICompatibleModels } from '../../src/api/models.ts';
import { scriptedFetch, type Script } from '../support/openAIReplies.ts';

// The default adapter (@ai-sdk/openai-compatible) in every runtime the core runs in (Node and a
// Chromium tab here; workerd in tests/workerd): it builds the OpenAI request, reads the JSON and
// the SSE answers, and its errors are classified the same way. The wire is an in-page fetch
// that answers from the same script as the loopback server of the Node tests.

const KEY = 'sk-canary-conformance-5d1e8a7b';

function run(script: Script, stream: boolean, models = ['small']) {
  const wire = scriptedFetch(script);
  const registry = new ToolRegistry();
  registerBuiltinTools(registry);
  const orchestrator = new Orchestrator({
    registry,
    store: new InMemoryStore(),
    ids: createSequentialIds('oac'),
    sleep: async () => undefined,
    models: openAICompatibleModels({ url: 'http://127.0.0.1:9/v1', models, stream, callTimeoutMs: 5_000 }, KEY, wire.fetch),
    agent: { stream },
  });
  return { wire, registry, orchestrator };
}

describe('@ai-sdk/openai-compatible as the model port', () => {
  for (const stream of [false, true]) {
    it(`drives a tool loop from ${stream ? 'SSE' : 'JSON'} answers and replays it`, async () => {
      const { wire, registry, orchestrator } = run([{ calls: [{ name: 'multiply', args: { a: 6, b: 7 } }] }, { text: 'It is 42.' }], stream);
      const outcome = await orchestrator.start('six times seven', 'demo');
      expect(outcome).toMatchObject({ status: 'completed', outputs: { 't1.call-0': 42, answer: 'It is 42.' } });
      expect(wire.bodies.map((b) => [b.model, b.stream ?? false])).toEqual([
        ['small', stream],
        ['small', stream],
      ]);
      expect(wire.bodies[0]!.tools!.map((t) => t.function.name)).toContain('multiply');
      const journal = await orchestrator.store.readJournal(outcome.runId);
      expect(eventsOf(journal, 'model_call_complete')[1]!.data).toMatchObject({ text: 'It is 42.', usage: { totalTokens: 16 } });
      expect(await replay(journal, registry)).toMatchObject({ ok: true, events: journal.length });
    });
  }

  it('classifies 429 (with Retry-After), 500 and 401 from the adapter', async () => {
    const { orchestrator } = run(
      { big: [{ status: 429, headers: { 'retry-after': '2' } }, { status: 500 }, { status: 502 }], small: [{ status: 401 }] },
      false,
      ['big', 'small'],
    );
    const outcome = await orchestrator.start('say something', 'demo');
    expect(outcome).toMatchObject({ status: 'failed', stopReason: 'model_failed', error: { code: 'model_unauthorized' } });
    const errors = eventsOf(await orchestrator.store.readJournal(outcome.runId), 'model_call_error');
    expect(errors.map((e) => [e.data.model, e.data.error.code, e.data.next])).toEqual([
      ['big', 'model_rate_limited', 'retry'],
      ['big', 'model_unavailable', 'retry'],
      ['big', 'model_unavailable', 'fallback'],
      ['small', 'model_unauthorized', 'stop'],
    ]);
    expect(errors[0]!.data.delayMs).toBeGreaterThanOrEqual(2000);
    expect(JSON.stringify(errors)).not.toContain(KEY);
  });
});
