import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve, type ServerType } from '@hono/node-server';
import { Hono } from 'hono';
import { afterAll, describe, expect, it } from 'vitest';
import { OtlpLiveExporter, otlpSettingsFromEnv } from '../../src/api/otlpExport.ts';
import { InMemoryStore, Orchestrator, ToolRegistry, registerBuiltinTools } from '../../src/core/index.ts';
import { startServer } from '../../src/edge/nodeServer.ts';

type Received = { headers: Record<string, string>; body: { resourceSpans: Array<{ resource: unknown; scopeSpans: Array<{ spans: Span[] }> }> } };
type Span = { traceId: string; spanId: string; parentSpanId?: string; name: string; attributes: Array<{ key: string; value: Record<string, unknown> }> };

/** An OTLP/HTTP receiver on loopback: records what arrives; `answer` decides each response. */
async function receiver(answer: (n: number) => Promise<Response | null> | Response | null = () => null) {
  const received: Received[] = [];
  let n = 0;
  const app = new Hono().post('/v1/traces', async (c) => {
    const forced = await answer(n++);
    if (forced) return forced;
    received.push({ headers: Object.fromEntries(c.req.raw.headers), body: await c.req.json() });
    return c.json({ partialSuccess: {} });
  });
  const server: ServerType = await new Promise((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}/v1/traces`,
    received,
    spans: () => received.flatMap((r) => r.body.resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans))),
    close: () => server.close(),
  };
}

/** An orchestrator over the built-in tools whose events `exporter` follows. */
function observed(exporter: OtlpLiveExporter): Orchestrator {
  const registry = new ToolRegistry();
  registerBuiltinTools(registry);
  const orchestrator = new Orchestrator({ registry, store: new InMemoryStore() });
  orchestrator.subscribe((event) => exporter.observe(event));
  return orchestrator;
}

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
const dataDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'cugar-otlp-'));
  dirs.push(dir);
  return dir;
};
const TOKEN = 'otlp-test-token-0123456789';
const post = (url: string, body: unknown) =>
  fetch(`${url}/v1/runs?wait=20`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

describe('live OpenTelemetry export', () => {
  it('reads the standard OTEL_* variables', () => {
    expect(otlpSettingsFromEnv({})).toBeUndefined();
    expect(
      otlpSettingsFromEnv({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/',
        OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=a%3Db,other = 2',
        OTEL_SERVICE_NAME: 'billing',
      }),
    ).toMatchObject({
      url: 'http://collector:4318/v1/traces',
      headers: { 'x-api-key': 'a=b', other: '2' },
      serviceName: 'billing',
    });
    expect(otlpSettingsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://b:9999/traces' })?.url).toBe(
      'http://b:9999/traces',
    );
    expect(() => otlpSettingsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url' })).toThrow();
  });

  it('sends each run’s spans as they finish, named by the GenAI conventions, linked to the run and redacted', async () => {
    const sink = await receiver();
    const server = await startServer({
      port: 0,
      dataDir: dataDir(),
      corpusDir: '/nonexistent',
      tokens: { [TOKEN]: '*' },
      log: () => undefined,
      otlp: { url: sink.url, headers: { 'x-api-key': 'otel-backend-key-5d4c3b2a' }, serviceName: 'cugar-test', batchDelayMs: 20 },
    });
    try {
      const run = (await (
        await post(server.url, { goal: 'add 2 and 3 then multiply the result by 4 then echo "password=hunter2otel"', profile: 'demo' })
      ).json()) as {
        runId: string;
        status: string;
      };
      expect(run.status).toBe('completed');
      await expect.poll(() => sink.spans().some((span) => span.name.startsWith('invoke_agent')), { timeout: 10_000 }).toBe(true);
      const spans = sink.spans();
      const root = spans.find((span) => span.name === 'invoke_agent demo')!;
      const tools = spans.filter((span) => span.name.startsWith('execute_tool'));
      expect(spans.filter((span) => span.name.startsWith('stage ')).map((span) => span.name)).toEqual(
        ['initialize', 'plan', 'route', 'execute', 'aggregate', 'complete'].map((stage) => `stage ${stage}`),
      );
      for (const stage of spans.filter((span) => span.name.startsWith('stage '))) expect(stage.parentSpanId).toBe(root.spanId);
      expect(tools.map((span) => span.name).sort()).toEqual(['execute_tool add', 'execute_tool echo', 'execute_tool multiply']);
      // Tool arguments travel with their spans, redacted like everything else.
      const echoed = tools.find((span) => span.name === 'execute_tool echo')!;
      expect(echoed.attributes).toContainEqual({ key: 'gen_ai.tool.call.arguments', value: { stringValue: '{"message":"password=[REDACTED]"}' } });
      expect(echoed.attributes).toContainEqual({ key: 'gen_ai.tool.call.result', value: { stringValue: '"password=[REDACTED]"' } });
      for (const tool of tools) expect(tool).toMatchObject({ traceId: root.traceId, parentSpanId: root.spanId });
      expect(root.attributes).toContainEqual({ key: 'cugar.run.id', value: { stringValue: run.runId } });
      expect(new Set(spans.map((span) => span.spanId)).size).toBe(spans.length);
      expect(sink.received[0]!.headers['x-api-key']).toBe('otel-backend-key-5d4c3b2a');
      expect(JSON.stringify(sink.received[0]!.body.resourceSpans[0]!.resource)).toContain('cugar-test');
      const sent = JSON.stringify(sink.received.map((r) => r.body));
      expect(sent).not.toContain('hunter2otel');
      expect(sent).toContain('password=[REDACTED]');
      expect(server.runtime.exporter?.stats()).toMatchObject({ exported: spans.length, dropped: 0 });
    } finally {
      await server.close();
      sink.close();
    }
  });

  it('never holds a run back when the backend hangs or is down; what cannot be sent is dropped and counted', async () => {
    const hanging = await receiver(() => new Promise<null>(() => undefined));
    const server = await startServer({
      port: 0,
      dataDir: dataDir(),
      corpusDir: '/nonexistent',
      tokens: { [TOKEN]: '*' },
      log: () => undefined,
      otlp: { url: hanging.url, batchDelayMs: 0, timeoutMs: 300, maxAttempts: 2 },
    });
    try {
      for (let i = 0; i < 3; i++) {
        const started = performance.now();
        const run = (await (await post(server.url, { goal: `add ${i} and 1`, profile: 'demo' })).json()) as { status: string };
        expect(run.status).toBe('completed');
        // A run takes milliseconds; an export that held it back would take the whole 300 ms timeout at least.
        expect(performance.now() - started).toBeLessThan(5_000);
      }
      await server.runtime.exporter!.flush();
      expect(server.runtime.exporter!.stats()).toMatchObject({ exported: 0, queued: 0 });
      expect(server.runtime.exporter!.stats().dropped).toBeGreaterThanOrEqual(6);
    } finally {
      await server.close();
      hanging.close();
    }

    // Nothing listening at all, and a queue of two spans: older spans make way and are counted.
    const lines: string[] = [];
    const exporter = new OtlpLiveExporter(
      { url: 'http://127.0.0.1:9/v1/traces', batchDelayMs: 10_000, maxQueueSpans: 2, maxAttempts: 1 },
      { log: (line) => lines.push(line) },
    );
    const orchestrator = observed(exporter);
    await orchestrator.start('add 1 and 2 then add 3 and 4 then add 5 and 6', 'demo');
    await exporter.flush();
    // The run's span, three tool calls and six stages: ten spans, none delivered.
    expect(exporter.stats()).toMatchObject({ exported: 0, dropped: 10, queued: 0 });
    expect(lines.join('\n')).toContain('dropped');
  });

  it('does not keep a run it first saw in its middle (resumed after a restart), so it never takes the place of new runs', async () => {
    const registry = new ToolRegistry();
    registerBuiltinTools(registry);
    const store = new InMemoryStore();
    const orchestrator = new Orchestrator({ registry, store });
    const resumed = await store.readJournal((await orchestrator.start('add 1 and 2', 'demo')).runId);
    const fresh = await store.readJournal((await orchestrator.start('add 3 and 4', 'demo')).runId);
    const sent: string[] = [];
    const exporter = new OtlpLiveExporter(
      { url: 'http://127.0.0.1:9/v1/traces', batchDelayMs: 0, maxRuns: 1 },
      { fetch: async (_url, init) => (sent.push(String(init?.body)), new Response('{}')), log: () => undefined },
    );
    for (const event of resumed.slice(3)) exporter.observe(event);
    for (const event of fresh) exporter.observe(event);
    await exporter.flush();
    expect(exporter.stats()).toMatchObject({ dropped: 0 });
    expect(exporter.stats().exported).toBeGreaterThan(0);
    expect(sent.join('')).toContain(fresh[0]!.runId);
    expect(sent.join('')).not.toContain(resumed[0]!.runId);
  });

  it('retries a backend that asks to wait (503 with Retry-After), then delivers', async () => {
    const flaky = await receiver((n) => (n === 0 ? new Response('busy', { status: 503, headers: { 'retry-after': '1' } }) : null));
    try {
      const exporter = new OtlpLiveExporter({ url: flaky.url, batchDelayMs: 0 }, { log: () => undefined });
      const orchestrator = observed(exporter);
      await orchestrator.start('add 1 and 2', 'demo');
      await exporter.flush();
      // The run's span, the tool call and six stages.
      expect(exporter.stats()).toMatchObject({ exported: 8, dropped: 0, failedRequests: 1 });
      expect(
        flaky
          .spans()
          .map((span) => span.name)
          .filter((name) => !name.startsWith('stage '))
          .sort(),
      ).toEqual(['execute_tool add', 'invoke_agent demo']);
    } finally {
      flaky.close();
    }
  });
});
