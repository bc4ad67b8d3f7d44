import { serve, type ServerType } from '@hono/node-server';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, WAIT, type Call } from '../support/apiConformance.ts';
import { startWorker } from './startWorker.ts';

// The Worker exports spans live to a collector (here a receiver on loopback); each run's
// waitUntil waits for them, so they arrive although the response went out first.
describe('Cloudflare Worker: live OpenTelemetry export', () => {
  const spans: Array<{ name: string; parentSpanId?: string; spanId: string }> = [];
  const headers: string[] = [];
  let receiver: ServerType;
  let call: Call;
  let close: () => Promise<void>;
  beforeAll(async () => {
    const app = new Hono().post('/v1/traces', async (c) => {
      headers.push(c.req.header('x-api-key') ?? '');
      const body = (await c.req.json()) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: typeof spans }> }> };
      spans.push(...body.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)));
      return c.json({});
    });
    receiver = await new Promise((resolve) => {
      const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
    });
    const { port } = receiver.address() as { port: number };
    ({ call, close } = await startWorker({
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
      OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=worker-otel-key-1234',
    }));
  }, 120_000);
  afterAll(async () => {
    await close?.();
    receiver?.close();
  });

  it('sends the spans of a run started over the API', async () => {
    const run = (await (
      await call('POST', '/v1/runs', { token: ADMIN, body: { goal: 'add 2 and 3 then multiply the result by 4', profile: 'demo' }, headers: WAIT })
    ).json()) as {
      status: string;
    };
    expect(run.status).toBe('completed');
    await expect
      .poll(
        () =>
          spans
            .map((span) => span.name)
            .filter((name) => !name.startsWith('stage '))
            .sort(),
        { timeout: 15_000 },
      )
      .toEqual(['execute_tool add', 'execute_tool multiply', 'invoke_agent demo']);
    await expect.poll(() => spans.filter((span) => span.name.startsWith('stage ')).length, { timeout: 15_000 }).toBe(6);
    const root = spans.find((span) => span.name === 'invoke_agent demo')!;
    expect(spans.filter((span) => span !== root).every((span) => span.parentSpanId === root.spanId)).toBe(true);
    expect(headers.every((header) => header === 'worker-otel-key-1234')).toBe(true);
  });
});
