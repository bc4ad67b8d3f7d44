import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseConfig, verifyJournal, type JournalEvent } from '../../src/core/index.ts';
import { PUBLIC_ROUTES, createApp } from '../../src/edge/app.ts';
import { createRuntime } from '../../src/edge/runtime.ts';
import { SqliteStore } from '../../src/edge/sqliteStore.ts';

const ADMIN = 'admin-token-0123456789abcdef';
const DEMO = 'demo-token-0123456789abcdef';
const OTHER = 'other-token-0123456789abcdef';

async function setup(options: Partial<Parameters<typeof createApp>[1]> = {}) {
  const runtime = await createRuntime(new SqliteStore(':memory:'), parseConfig({}).config);
  runtime.registry.register('demo', 'transfer', { description: 'Transfer money to an account', parameters: z.object({ amount: z.number().positive(), to: z.string() }), requiresApproval: true, handler: ({ amount, to }) => `sent ${amount} to ${to}` });
  runtime.registry.register('other', 'echo', { description: 'echo', parameters: z.object({ message: z.string() }), handler: ({ message }) => message });
  const app = createApp(runtime, { tokens: { [ADMIN]: '*', [DEMO]: ['demo'], [OTHER]: ['other'] }, rateLimit: { perSecond: 1000, burst: 5000 }, ...options });
  const call = (method: string, path: string, init: { token?: string | null; body?: unknown; headers?: Record<string, string> } = {}) =>
    app.request(path, {
      method,
      headers: { ...(init.token === null ? {} : { authorization: `Bearer ${init.token ?? DEMO}` }), ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}), ...init.headers },
      ...(init.body !== undefined ? { body: typeof init.body === 'string' ? init.body : JSON.stringify(init.body) } : {}),
    });
  return { runtime, app, call };
}

describe('API conformance (Node host, in process)', () => {
  it('serves health and an OpenAPI document generated from the schemas', async () => {
    const { call } = await setup();
    expect(await (await call('GET', '/v1/health', { token: null })).json()).toEqual({ status: 'ok', version: '0.1.0' });
    const doc = (await (await call('GET', '/openapi.json', { token: null })).json()) as { openapi: string; paths: Record<string, unknown> };
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/v1/runs', '/v1/runs/{runId}', '/v1/approvals/{approvalId}', '/v1/ingest', '/v1/query', '/v1/plan']));
  });

  it('lists tools, plans a dry run, runs a goal, and exposes journal, trace, OTLP and audit', async () => {
    const { call } = await setup();
    const tools = (await (await call('GET', '/v1/profiles/demo/tools')).json()) as { tools: Array<{ name: string; inputSchema: unknown }> };
    expect(tools.tools.map((t) => t.name)).toContain('add');
    const plan = (await (await call('POST', '/v1/plan', { body: { goal: 'add 2 and 3', profile: 'demo' } })).json()) as { steps: unknown[]; candidates: unknown[] };
    expect(plan.steps).toHaveLength(1);
    expect(plan.candidates.length).toBeGreaterThan(1);
    const run = (await (await call('POST', '/v1/runs', { body: { goal: 'add 2 and 3 then multiply the result by 4', profile: 'demo' } })).json()) as { runId: string; status: string; outputs: unknown };
    expect(run).toMatchObject({ status: 'completed', outputs: { 'step-0': 5, 'step-1': 20 } });
    const journal = (await (await call('GET', `/v1/runs/${run.runId}/journal`)).json()) as { events: JournalEvent[] };
    expect(verifyJournal(journal.events).ok).toBe(true);
    const ndjson = await (await call('GET', `/v1/runs/${run.runId}/journal?format=ndjson`)).text();
    expect(ndjson.trim().split('\n')).toHaveLength(journal.events.length);
    const trace = (await (await call('GET', `/v1/runs/${run.runId}/trace`)).json()) as { records: Array<{ durationMs?: number }> };
    expect(trace.records.length).toBe(journal.events.length);
    const otlp = (await (await call('GET', `/v1/runs/${run.runId}/otlp`)).json()) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<{ name: string; traceId: string; spanId: string; attributes: Array<{ key: string }> }> }> }> };
    const spans = otlp.resourceSpans[0]!.scopeSpans[0]!.spans;
    expect(spans.map((s) => s.name)).toEqual(['invoke_agent demo', 'execute_tool add', 'execute_tool multiply']);
    expect(spans.every((s) => /^[0-9a-f]{32}$/.test(s.traceId) && /^[0-9a-f]{16}$/.test(s.spanId))).toBe(true);
    expect(spans[1]!.attributes.map((a) => a.key)).toContain('gen_ai.tool.name');
    expect(await (await call('GET', `/v1/audit/runs/${run.runId}`)).json()).toMatchObject({ ok: true });
    expect(await (await call('GET', '/v1/audit')).json()).toMatchObject({ ok: true });
    expect((await (await call('GET', '/v1/runs?status=completed')).json()) as { runs: unknown[] }).toMatchObject({ runs: [{ runId: run.runId }] });
  });

  it('pauses for approval, lists it, and continues after the decision', async () => {
    const { call } = await setup();
    const paused = (await (await call('POST', '/v1/runs', { body: { goal: 'transfer(amount=10, to="savings")', profile: 'demo' } })).json()) as { runId: string; status: string; pendingApproval: { approvalId: string } };
    expect(paused.status).toBe('paused');
    const list = (await (await call('GET', '/v1/approvals?status=pending')).json()) as { approvals: Array<{ approvalId: string }> };
    expect(list.approvals.map((a) => a.approvalId)).toEqual([paused.pendingApproval.approvalId]);
    const bad = await call('POST', `/v1/approvals/${encodeURIComponent(paused.pendingApproval.approvalId)}`, { body: { decision: 'edit', args: { amount: -1, to: 'x' } } });
    expect(bad.status).toBe(400);
    const done = await call('POST', `/v1/approvals/${encodeURIComponent(paused.pendingApproval.approvalId)}`, { body: { decision: 'approve', reason: 'ok' } });
    expect(await done.json()).toMatchObject({ status: 'completed', outputs: { 'step-0': 'sent 10 to savings' } });
    const again = await call('POST', `/v1/approvals/${encodeURIComponent(paused.pendingApproval.approvalId)}`, { body: { decision: 'approve' } });
    expect(again.status).toBe(409);
    expect((await call('POST', `/v1/runs/${paused.runId}/resume`)).status).toBe(409);
  });

  it('ingests with progress events and answers queries; stores and lists facts', async () => {
    const { call } = await setup();
    const stream = await call('POST', '/v1/ingest', { body: { profile: 'demo', documents: [{ path: 'bees.md', text: 'Varroa mites weaken honey bee colonies.' }, { path: 'tea.txt', text: 'Oolong tea is steeped several times.' }] }, headers: { accept: 'text/event-stream' } });
    const text = await stream.text();
    expect(text.match(/event: progress/g)).toHaveLength(2);
    expect(text).toContain('event: done');
    const hits = (await (await call('POST', '/v1/query', { body: { profile: 'demo', query: 'varroa mites', k: 2 } })).json()) as { hits: Array<{ path: string }> };
    expect(hits.hits[0]!.path).toBe('bees.md');
    expect((await call('POST', '/v1/ingest', { body: { profile: 'demo', documents: [{ path: 'x.txt', text: '' }] } })).status).toBe(400);
    expect((await call('POST', '/v1/memory/facts', { body: { profile: 'demo', namespace: 'prefs', value: { theme: 'dark' } } })).status).toBe(200);
    expect(await (await call('GET', '/v1/memory/facts?profile=demo&namespace=prefs')).json()).toMatchObject({ facts: [{ value: { theme: 'dark' } }], namespaces: ['prefs'] });
    expect((await call('GET', '/v1/memory/facts?profile=demo&namespace=nothing')).status).toBe(404);
  });
});

describe('API security', () => {
  const samples: Record<string, { path: string; body?: unknown }> = {};
  it('requires a token on every route but the public ones (route inventory), and refuses other profiles', async () => {
    const { app, call } = await setup();
    const run = (await (await call('POST', '/v1/runs', { body: { goal: 'add 1 and 2', profile: 'demo' } })).json()) as { runId: string };
    const concrete = (path: string) => path.replace(':profile', 'demo').replace(':runId', run.runId).replace(':approvalId', 'ap');
    const routes = [...new Set(app.routes.filter((r) => r.method !== 'ALL').map((r) => `${r.method} ${r.path}`))];
    expect(routes.length).toBeGreaterThanOrEqual(18);
    for (const route of routes) {
      const [method, path] = route.split(' ') as [string, string];
      const url = concrete(path) + (path === '/v1/memory/facts' && method === 'GET' ? '?profile=demo' : '');
      const bodies: Record<string, unknown> = {
        '/v1/plan': { goal: 'add 1 and 2', profile: 'demo' },
        '/v1/runs': { goal: 'add 1 and 2', profile: 'demo' },
        '/v1/ingest': { profile: 'demo', documents: [{ path: 'a.txt', text: 'alpha' }] },
        '/v1/query': { profile: 'demo', query: 'alpha' },
        '/v1/memory/facts': { profile: 'demo', namespace: 'notes', value: 1 },
        '/v1/approvals/:approvalId': { decision: 'approve' },
      };
      const body = method === 'POST' ? JSON.stringify(bodies[path] ?? {}) : undefined;
      const headers = (token?: string) => ({ ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) });
      const none = await app.request(url, { method, headers: headers(), ...(body ? { body } : {}) });
      const wrong = await app.request(url, { method, headers: headers('not-a-real-token-at-all'), ...(body ? { body } : {}) });
      if (PUBLIC_ROUTES.has(route)) {
        expect(none.status, route).toBe(200);
        continue;
      }
      expect(none.status, `${route} without a token`).toBe(401);
      expect(wrong.status, `${route} with a wrong token`).toBe(401);
      const other = await app.request(url, { method, headers: headers(OTHER), ...(body ? { body } : {}) });
      if (!['GET /v1/runs', 'GET /v1/approvals', 'GET /v1/audit'].includes(route)) expect([403, 404], `${route} with another profile's token`).toContain(other.status);
      samples[route] = { path: url, body };
    }
    // Listing routes never show another profile's data.
    const foreign = (await (await call('GET', '/v1/runs', { token: OTHER })).json()) as { runs: unknown[] };
    expect(foreign.runs).toEqual([]);
  });

  it('answers 4xx and never 5xx to 2,000 malformed, oversized or wrongly typed bodies, changing nothing', async () => {
    const { call, runtime } = await setup({ maxBodyBytes: 64 * 1024 });
    const before = (await runtime.store.listRuns()).length;
    const statuses = new Map<number, number>();
    const value = fc.oneof(fc.jsonValue(), fc.string(), fc.constant(null), fc.double(), fc.array(fc.anything(), { maxLength: 3 }));
    const bodies = fc.oneof(
      fc.string({ maxLength: 200 }),
      fc.jsonValue().map((v) => JSON.stringify(v)),
      fc.record({ goal: value, profile: value, metadata: value, preferences: value, budget: value, plan: value }, { requiredKeys: [] }).map((v) => JSON.stringify(v)),
      fc.record({ goal: fc.string(), profile: fc.constantFrom('demo', 'other', '../x', ''), extra: value }).map((v) => JSON.stringify(v)),
      fc.constant(JSON.stringify({ goal: 'x'.repeat(70 * 1024), profile: 'demo' })),
    );
    const targets = fc.constantFrom('/v1/runs', '/v1/plan', '/v1/query', '/v1/ingest', '/v1/memory/facts', '/v1/approvals/some-id');
    let count = 0;
    await fc.assert(
      fc.asyncProperty(targets, bodies, fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded'), async (path, body, type) => {
        count++;
        const res = await call('POST', path, { body, headers: { 'content-type': type } });
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        const payload = (await res.json().catch(() => undefined)) as { error?: { code: string; message: string } } | undefined;
        if (res.status !== 200) expect(payload?.error?.code, `${path} ${res.status}`).toBeTypeOf('string');
        return res.status < 500 && (res.status >= 400 || path === '/v1/query' || path === '/v1/plan' || path === '/v1/runs' || path === '/v1/ingest' || path === '/v1/memory/facts');
      }),
      { numRuns: 2000 },
    );
    expect(count).toBe(2000);
    expect([...statuses.keys()].every((s) => s < 500)).toBe(true);
    // Bodies that happened to be valid may have made runs; none of the invalid ones did.
    const after = await runtime.store.listRuns();
    expect(after.length - before).toBeLessThanOrEqual(statuses.get(200) ?? 0);
  });

  it('makes one run for 50 concurrent duplicates of an Idempotency-Key, and 422 for a different body', async () => {
    const { call, runtime } = await setup();
    const body = { goal: 'add 2 and 2', profile: 'demo' };
    const responses = await Promise.all(Array.from({ length: 50 }, () => call('POST', '/v1/runs', { body, headers: { 'idempotency-key': 'same-key' } })));
    const runs = await Promise.all(responses.map((r) => r.json() as Promise<{ runId: string; status: string }>));
    expect(new Set(runs.map((r) => r.runId)).size).toBe(1);
    expect(runs.every((r) => r.status === 'completed')).toBe(true);
    expect((await runtime.store.listRuns()).length).toBe(1);
    const mismatch = await call('POST', '/v1/runs', { body: { ...body, goal: 'add 3 and 3' }, headers: { 'idempotency-key': 'same-key' } });
    expect(mismatch.status).toBe(422);
    expect(await mismatch.json()).toMatchObject({ error: { code: 'idempotency_mismatch' } });
  });

  it('rate-limits a bursting principal with 429 and Retry-After while another keeps succeeding', async () => {
    let now = 0;
    const { call } = await setup({ rateLimit: { perSecond: 5, burst: 10 }, now: () => now });
    const burst = await Promise.all(Array.from({ length: 30 }, () => call('GET', '/v1/profiles/demo/tools')));
    const limited = burst.filter((r) => r.status === 429);
    expect(limited.length).toBe(20);
    expect(Number(limited[0]!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await call('GET', '/v1/profiles/other/tools', { token: OTHER })).status).toBe(200);
    now += 2_000;
    expect((await call('GET', '/v1/profiles/demo/tools')).status).toBe(200);
  });

  it('sets secure headers and CORS only for configured origins', async () => {
    const { call } = await setup({ corsOrigins: ['https://app.example'] });
    const ok = await call('GET', '/v1/health', { token: null, headers: { origin: 'https://app.example' } });
    expect(ok.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(ok.headers.get('x-content-type-options')).toBe('nosniff');
    const evil = await call('GET', '/v1/health', { token: null, headers: { origin: 'https://evil.example' } });
    expect(evil.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('live events over SSE', () => {
  it('replays what a client missed from Last-Event-ID, then streams live events until the run ends', async () => {
    const { call } = await setup();
    const paused = (await (await call('POST', '/v1/runs', { body: { goal: 'transfer(amount=7, to="x")', profile: 'demo' } })).json()) as { runId: string; head: { seq: number }; pendingApproval: { approvalId: string } };
    const response = await call('GET', `/v1/runs/${paused.runId}/events`, { headers: { 'last-event-id': '3', accept: 'text/event-stream' } });
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const readUntil = async (needle: string) => {
      while (!text.includes(needle)) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value);
      }
    };
    await readUntil(`id: ${paused.head.seq}\n`);
    const ids = () => [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    expect(ids()[0]).toBe(4);
    // Now the run continues; the stream delivers the new events live and then ends.
    await call('POST', `/v1/approvals/${encodeURIComponent(paused.pendingApproval.approvalId)}`, { body: { decision: 'approve' } });
    await readUntil('event: run_completed');
    const all = ids();
    expect(all).toEqual(Array.from({ length: all.length }, (_, i) => i + 4));
    expect(text).toContain('event: approval_received');
  });
});
