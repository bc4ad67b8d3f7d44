import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  InMemoryStore,
  Orchestrator,
  ToolRegistry,
  eventsOf,
  registerBuiltinTools,
  replay,
  type JournalEvent,
  type ModelProvider,
} from '../../src/core/index.ts';
import { createSequentialIds } from '../../src/core/testing.ts';
import { hostModels, openAICompatibleModels } from '../../src/api/models.ts';
import { startModelServer, type ModelServer, type Reply } from '../support/modelServer.ts';

// Agent runs against an OpenAI-compatible server on loopback, through the real adapter
// (@ai-sdk/openai-compatible) over real HTTP: JSON and SSE, native and JSON-in-text tool calls,
// rate limits, server errors, slow and malformed answers, and a server that is gone.

const KEY = 'sk-canary-7f3a9c2e5b1d4086';
let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function registry(): ToolRegistry {
  const tools = new ToolRegistry();
  registerBuiltinTools(tools);
  tools.register('demo', 'lookup_price', {
    description: 'Price of a flight by its number',
    parameters: z.object({ flight: z.string() }),
    idempotent: true,
    handler: ({ flight }) => ({ flight, price: flight === 'LH1' ? 320 : 280 }),
  });
  return tools;
}

function models(settings: { models?: string[]; stream?: boolean; callTimeoutMs?: number } = {}): ModelProvider {
  return openAICompatibleModels(
    { url: server!.url, models: settings.models ?? ['small'], stream: settings.stream ?? false, callTimeoutMs: settings.callTimeoutMs ?? 5_000 },
    KEY,
  );
}

function orchestrator(provider: ModelProvider, stream = false, callTimeoutMs = 5_000) {
  return new Orchestrator({
    registry: registry(),
    store: new InMemoryStore(),
    ids: createSequentialIds('http'),
    sleep: async () => undefined,
    models: provider,
    agent: { stream, callTimeoutMs },
    retry: { baseDelay: 1, maxDelay: 5 },
  });
}

const CHEAPER_FLIGHT: Reply[] = [
  {
    calls: [
      { name: 'lookup_price', args: { flight: 'LH1' } },
      { name: 'lookup_price', args: { flight: 'AF2' } },
    ],
  },
  { text: 'AF2 is cheaper at 280.' },
];

describe('agent runs through @ai-sdk/openai-compatible over loopback HTTP', () => {
  for (const stream of [false, true]) {
    it(`runs a multi-turn tool loop (${stream ? 'SSE streamed' : 'plain JSON'}) and replays with the server stopped`, async () => {
      server = await startModelServer(CHEAPER_FLIGHT);
      const o = orchestrator(models({ stream }), stream);
      const outcome = await o.start('book the cheaper of LH1 and AF2', 'demo');
      expect(outcome).toMatchObject({
        status: 'completed',
        outputs: { 't1.call-0': { price: 320 }, 't1.call-1': { price: 280 }, answer: 'AF2 is cheaper at 280.' },
      });
      expect(server.requests).toHaveLength(2);
      const [first, second] = server.requests;
      expect(first!.authorization).toBe(`Bearer ${KEY}`);
      expect(first!.body.stream ?? false).toBe(stream);
      expect(first!.body.tools!.map((t) => t.function.name)).toContain('lookup_price');
      // The second request carries both results back as tool messages.
      expect(second!.body.messages.filter((m) => m['role'] === 'tool')).toHaveLength(2);
      const journal = await o.store.readJournal(outcome.runId);
      expect(eventsOf(journal, 'model_call_complete').map((e) => [e.data.model, e.data.usage.totalTokens])).toEqual([
        ['small', 16],
        ['small', 16],
      ]);
      expect(JSON.stringify(journal)).not.toContain(KEY);
      await server.close();
      server = undefined;
      expect(await replay(journal, registry())).toMatchObject({ ok: true, events: journal.length });
    });
  }

  it('reads tool calls written as JSON in the text and sends the results back as text', async () => {
    server = await startModelServer([{ jsonText: { tool: 'add', arguments: { a: 20, b: 22 } } }, { text: '42' }]);
    const o = orchestrator(models());
    const outcome = await o.start('add 20 and 22', 'demo');
    expect(outcome).toMatchObject({ status: 'completed', outputs: { 't1.call-0': 42, answer: '42' } });
    const journal = await o.store.readJournal(outcome.runId);
    expect(eventsOf(journal, 'model_call_complete')[0]!.data.toolCallMode).toBe('text');
    expect(JSON.stringify(server.requests[1]!.body.messages.at(-1))).toContain('Tool results');
    expect((await replay(journal, registry())).ok).toBe(true);
  });

  it('honours Retry-After on 429, retries 500 and malformed answers, then falls to the next model', async () => {
    server = await startModelServer({
      big: [{ status: 429, headers: { 'retry-after': '1' } }, { malformed: true }, { status: 500 }],
      small: [{ text: 'Answered by the fallback.' }],
    });
    const waits: number[] = [];
    const o = new Orchestrator({
      registry: registry(),
      ids: createSequentialIds('fb'),
      sleep: async (ms) => void waits.push(ms),
      models: models({ models: ['big', 'small'] }),
      retry: { baseDelay: 1, maxDelay: 5 },
    });
    const outcome = await o.start('say something', 'demo');
    expect(outcome).toMatchObject({ status: 'completed', outputs: { answer: 'Answered by the fallback.' } });
    const journal = await o.store.readJournal(outcome.runId);
    expect(eventsOf(journal, 'model_call_error').map((e) => [e.data.model, e.data.error.code, e.data.next])).toEqual([
      ['big', 'model_rate_limited', 'retry'],
      ['big', 'model_invalid_response', 'retry'],
      ['big', 'model_unavailable', 'fallback'],
    ]);
    expect(waits[0]).toBeGreaterThanOrEqual(1000);
    expect(eventsOf(journal, 'model_call_complete').map((e) => e.data.model)).toEqual(['small']);
    expect(server.requests.map((r) => r.body.model)).toEqual(['big', 'big', 'big', 'small']);
    expect((await replay(journal, registry())).ok).toBe(true);
  });

  it('does not retry a refused key (401) and keeps the key out of the error', async () => {
    server = await startModelServer([{ status: 401, body: JSON.stringify({ error: { message: `Incorrect API key provided: ${KEY}` } }) }]);
    const o = orchestrator(models({ models: ['small'] }));
    const outcome = await o.start('say something', 'demo');
    expect(outcome).toMatchObject({ status: 'failed', stopReason: 'model_failed', error: { code: 'model_unauthorized' } });
    expect(server.requests).toHaveLength(1);
    const journal = await o.store.readJournal(outcome.runId);
    expect(JSON.stringify(journal)).not.toContain(KEY);
    expect(JSON.stringify(outcome)).not.toContain(KEY);
  });

  it('times a slow model out and fails over when the server is gone', async () => {
    server = await startModelServer([{ slow: 2_000, then: { text: 'too late' } }, { text: 'in time' }]);
    const slow = orchestrator(models(), false, 300);
    const outcome = await slow.start('say something', 'demo');
    expect(outcome).toMatchObject({ status: 'completed', outputs: { answer: 'in time' } });
    const journal: JournalEvent[] = await slow.store.readJournal(outcome.runId);
    expect(eventsOf(journal, 'model_call_error').map((e) => e.data.error.code)).toEqual(['model_timeout']);

    const url = server.url;
    await server.close();
    server = undefined;
    const gone = new Orchestrator({
      registry: registry(),
      ids: createSequentialIds('gone'),
      sleep: async () => undefined,
      models: openAICompatibleModels({ url, models: ['small'], stream: false, callTimeoutMs: 2_000 }, KEY),
      retry: { maxAttempts: 2, baseDelay: 1 },
    });
    const refused = await gone.start('say something', 'demo');
    expect(refused).toMatchObject({ status: 'failed', stopReason: 'model_failed', error: { code: 'model_unreachable', retryable: true } });
  });

  it('is configured from CUGAR_MODEL_URL, CUGAR_MODEL and CUGAR_MODEL_KEY, and not at all without a URL', () => {
    const config = { maxLlmCalls: 5, modelTemperature: 3, modelMaxOutputTokens: 256 } as never;
    const configured = hostModels({ CUGAR_MODEL_URL: 'http://127.0.0.1:11434/v1/', CUGAR_MODEL: 'llama3.2, qwen2.5', CUGAR_MODEL_KEY: KEY }, config);
    expect(configured?.models.models).toEqual(['llama3.2', 'qwen2.5']);
    expect(configured?.settings.url).toBe('http://127.0.0.1:11434/v1');
    expect(configured?.agent).toMatchObject({ maxLlmCalls: 5, maxOutputTokens: 256 });
    expect(JSON.stringify(configured?.settings)).not.toContain(KEY);
    expect(hostModels({ CUGAR_MODEL: 'llama3.2' }, config)).toBeUndefined();
    const warnings: string[] = [];
    expect(hostModels({ CUGAR_MODEL_URL: 'ftp://x', CUGAR_MODEL_KEY: KEY }, config, (line) => warnings.push(line))).toBeUndefined();
    expect(warnings.join('\n')).not.toContain(KEY);
    expect(warnings).toHaveLength(1);
  });
});
