import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseConfig } from '../../src/core/index.ts';
import { createHeadSigner, generateSigningKey } from '../../src/core/signing.ts';
import { PUBLIC_ROUTES, createApp } from '../../src/api/app.ts';
import { parseTokenMap } from '../../src/api/tokens.ts';
import { ADMIN, DEMO, OTHER, TOKENS, WAIT, caller, describeApiConformance } from '../support/apiConformance.ts';
import { createRuntime } from '../../src/api/runtime.ts';
import { SqliteStore } from '../../src/edge/sqliteStore.ts';

async function setup(options: Partial<Parameters<typeof createApp>[1]> = {}) {
  const runtime = await createRuntime(new SqliteStore(':memory:'), parseConfig({}).config);
  runtime.registry.register('demo', 'transfer', {
    description: 'Transfer money to an account',
    parameters: z.object({ amount: z.number().positive(), to: z.string() }),
    requiresApproval: true,
    handler: ({ amount, to }) => `sent ${amount} to ${to}`,
  });
  runtime.registry.register('other', 'echo', { description: 'echo', parameters: z.object({ message: z.string() }), handler: ({ message }) => message });
  const app = createApp(runtime, {
    tokens: { [ADMIN]: '*', [DEMO]: ['demo'], [OTHER]: ['other'] },
    rateLimit: { perSecond: 1000, burst: 5000 },
    authFailureLimit: { perSecond: 1000, burst: 5000 },
    ...options,
  });
  const call = (method: string, path: string, init: { token?: string | null; body?: unknown; headers?: Record<string, string> } = {}) =>
    app.request(path, {
      method,
      headers: {
        ...(init.token === null ? {} : { authorization: `Bearer ${init.token ?? DEMO}` }),
        ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...init.headers,
      },
      ...(init.body !== undefined ? { body: typeof init.body === 'string' ? init.body : JSON.stringify(init.body) } : {}),
    });
  return { runtime, app, call };
}

describeApiConformance('Node host (in process)', async () => {
  const runtime = await createRuntime(new SqliteStore(':memory:'), parseConfig({}).config);
  const app = createApp(runtime, {
    tokens: parseTokenMap(TOKENS),
    rateLimit: { perSecond: 1000, burst: 5000 },
    authFailureLimit: { perSecond: 1000, burst: 5000 },
  });
  return { call: caller(async (path, init) => app.request(path, init)), close: () => runtime.store.close?.() ?? Promise.resolve() };
});

describe('API security', () => {
  const samples: Record<string, { path: string; body?: unknown }> = {};
  it('requires a token on every route but the public ones (route inventory), and refuses other profiles', async () => {
    const { app, call } = await setup();
    const run = (await (await call('POST', '/v1/runs', { body: { goal: 'add 1 and 2', profile: 'demo' }, headers: WAIT })).json()) as { runId: string };
    const journal = await (await call('GET', `/v1/runs/${run.runId}/journal?format=ndjson`)).text();
    const concrete = (path: string) => path.replace(':profile', 'demo').replace(':runId', run.runId).replace(':approvalId', 'ap').replace(':noteId', 'note-1');
    // Routes that name their profile in the query.
    const queries: Record<string, string> = {
      'GET /v1/memory/facts': '?profile=demo',
      'GET /v1/documents': '?profile=demo',
      'DELETE /v1/documents': '?profile=demo&path=a.txt',
      'GET /v1/memory/notes': '?profile=demo',
      'DELETE /v1/memory/notes/:noteId': '?profile=demo',
    };
    const routes = [...new Set(app.routes.filter((r) => r.method !== 'ALL').map((r) => `${r.method} ${r.path}`))];
    expect(routes.length).toBeGreaterThanOrEqual(18);
    for (const route of routes) {
      const [method, path] = route.split(' ') as [string, string];
      const url = concrete(path) + (queries[route] ?? '');
      const bodies: Record<string, unknown> = {
        '/v1/plan': { goal: 'add 1 and 2', profile: 'demo' },
        '/v1/runs': { goal: 'add 1 and 2', profile: 'demo' },
        '/v1/ingest': { profile: 'demo', documents: [{ path: 'a.txt', text: 'alpha' }] },
        '/v1/query': { profile: 'demo', query: 'alpha' },
        '/v1/memory/facts': { profile: 'demo', namespace: 'notes', value: 1 },
        '/v1/approvals/:approvalId': { decision: 'approve' },
        '/v1/audit/journal': { journal },
        '/v1/replay': { journal },
        '/v1/journals': { journal },
        '/v1/runs/:runId/forks': { at: 0, edit: { kind: 'goal', goal: 'add 2 and 3' } },
        '/v1/runs/:runId/feedback': { score: 1, comment: 'fine' },
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
      // Listing routes filter by the token's profiles; checking an uploaded journal reads no stored data.
      if (!['GET /v1/runs', 'GET /v1/approvals', 'GET /v1/audit', 'GET /v1/stats/runs', 'POST /v1/audit/journal'].includes(route))
        expect([403, 404], `${route} with another profile's token`).toContain(other.status);
      samples[route] = { path: url, body };
    }
    // Listing routes never show another profile's data.
    const foreign = (await (await call('GET', '/v1/runs', { token: OTHER })).json()) as { runs: unknown[] };
    expect(foreign.runs).toEqual([]);
  });

  it('declares a response schema for every route in /openapi.json', async () => {
    const { app } = await setup();
    type Schema = { $ref?: string; type?: string | string[]; properties?: Record<string, unknown>; anyOf?: Schema[]; oneOf?: Schema[] };
    type Operation = { responses: Record<string, { content?: Record<string, { schema?: Schema }> }> };
    const doc = (await (await app.request('/openapi.json')).json()) as {
      paths: Record<string, Record<string, Operation>>;
      components: { schemas: Record<string, Schema> };
    };
    const resolve = (schema: Schema | undefined): Schema | undefined =>
      schema?.$ref ? resolve(doc.components.schemas[schema.$ref.replace('#/components/schemas/', '')]) : schema;
    // An object with named properties (a union: every member one), never a bare record.
    const describes = (schema: Schema | undefined): boolean => {
      const resolved = resolve(schema);
      const members = resolved?.anyOf ?? resolved?.oneOf;
      if (members) return members.length > 0 && members.every(describes);
      return resolved?.type === 'object' && Object.keys(resolved.properties ?? {}).length > 0;
    };
    const routes = [...new Set(app.routes.filter((r) => r.method !== 'ALL' && r.path.startsWith('/v1/')).map((r) => `${r.method} ${r.path}`))];
    expect(routes.length).toBeGreaterThanOrEqual(24);
    for (const route of routes) {
      const [method, path] = route.split(' ') as [string, string];
      const operation = doc.paths[path.replace(/:(\w+)/g, '{$1}')]?.[method.toLowerCase()];
      expect(operation, route).toBeDefined();
      const success = Object.entries(operation!.responses).filter(([status]) => status.startsWith('2'));
      expect(success.length, route).toBeGreaterThan(0);
      for (const [status, response] of success) {
        const content = Object.entries(response.content ?? {});
        expect(content.length, `${route} ${status}`).toBeGreaterThan(0);
        for (const [type, media] of content) {
          if (type === 'application/json') expect(describes(media.schema), `${route} ${status} ${type}`).toBe(true);
          else expect(resolve(media.schema)?.type, `${route} ${status} ${type}`).toBe('string');
        }
      }
      expect(operation!.responses['401'] ?? PUBLIC_ROUTES.has(route), `${route} documents 401`).toBeTruthy();
    }
    const events = doc.paths['/v1/runs/{runId}/events']!['get']!.responses['200']!.content!;
    expect(Object.keys(events)).toEqual(['text/event-stream']);
  });

  it('answers 4xx and never 5xx to 2,000 malformed, oversized or wrongly typed bodies, changing nothing', async () => {
    const { call, runtime } = await setup({ maxBodyBytes: 64 * 1024 });
    const before = (await runtime.store.listRuns()).length;
    const statuses = new Map<number, number>();
    const value = fc.oneof(fc.jsonValue(), fc.string(), fc.constant(null), fc.double(), fc.array(fc.anything(), { maxLength: 3 }));
    const bodies = fc.oneof(
      fc.string({ maxLength: 200 }),
      fc.jsonValue().map((v) => JSON.stringify(v)),
      fc
        .record({ goal: value, profile: value, metadata: value, preferences: value, budget: value, plan: value }, { requiredKeys: [] })
        .map((v) => JSON.stringify(v)),
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
        if (res.status >= 400) expect(payload?.error?.code, `${path} ${res.status}`).toBeTypeOf('string');
        return (
          res.status < 500 &&
          (res.status >= 400 || path === '/v1/query' || path === '/v1/plan' || path === '/v1/runs' || path === '/v1/ingest' || path === '/v1/memory/facts')
        );
      }),
      { numRuns: 2000 },
    );
    expect(count).toBe(2000);
    expect([...statuses.keys()].every((s) => s < 500)).toBe(true);
    // Bodies that happened to be valid may have made runs; none of the invalid ones did.
    const after = await runtime.store.listRuns();
    expect(after.length - before).toBeLessThanOrEqual((statuses.get(200) ?? 0) + (statuses.get(202) ?? 0));
  });

  it('makes one run for 50 concurrent duplicates of an Idempotency-Key, and 422 for a different body', async () => {
    const { call, runtime } = await setup();
    const body = { goal: 'add 2 and 2', profile: 'demo' };
    const responses = await Promise.all(
      Array.from({ length: 50 }, () => call('POST', '/v1/runs', { body, headers: { 'idempotency-key': 'same-key', ...WAIT } })),
    );
    const runs = await Promise.all(responses.map((r) => r.json() as Promise<{ runId: string; status: string }>));
    expect(new Set(runs.map((r) => r.runId)).size).toBe(1);
    expect(runs.every((r) => r.status === 'completed')).toBe(true);
    expect((await runtime.store.listRuns()).length).toBe(1);
    // A duplicate that does not wait gets the run as it stands: finished, so its outcome.
    const later = await call('POST', '/v1/runs', { body, headers: { 'idempotency-key': 'same-key' } });
    expect(later.status).toBe(200);
    expect(await later.json()).toMatchObject({ runId: runs[0]!.runId, status: 'completed' });
    // While the keyed run is still going, duplicates are accepted again with the same run.
    const slow = { goal: 'wait(ms=1000); add(a=1, b=1)', profile: 'demo' };
    const [a, b] = await Promise.all([
      call('POST', '/v1/runs', { body: slow, headers: { 'idempotency-key': 'slow-key' } }),
      call('POST', '/v1/runs', { body: slow, headers: { 'idempotency-key': 'slow-key' } }),
    ]);
    expect([a.status, b.status]).toEqual([202, 202]);
    expect(a.headers.get('location')).toBe(b.headers.get('location'));
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
    // The refusal is the API's error shape and carries the headers of every answer.
    expect(await limited[0]!.json()).toEqual({ error: { code: 'rate_limited', message: expect.stringMatching(/^too many requests; retry in \d+ s$/) } });
    expect(limited[0]!.headers.get('x-content-type-options')).toBe('nosniff');
    expect(limited[0]!.headers.get('x-request-id')).toBeTruthy();
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

/**
 * An app over a SQLite file, for tests that edit the database from outside as an attacker or
 * a failing disk would: `body` gets the file, a caller, and a way to start a run and get its id.
 */
async function onDisk(
  options: Parameters<typeof createRuntime>[2],
  body: (env: { file: string; call: ReturnType<typeof caller>; start: (goal: string) => Promise<string> }) => Promise<void>,
): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'cugar-on-disk-'));
  const file = join(dir, 'cugar.db');
  // The store signs its log of heads with the runtime's key, as the Node host's does.
  const runtime = await createRuntime(new SqliteStore(file, { ...(options?.signer ? { signer: options.signer } : {}) }), parseConfig({}).config, options);
  try {
    const app = createApp(runtime, { tokens: parseTokenMap(TOKENS), rateLimit: { perSecond: 1000, burst: 5000 } });
    const call = caller(async (path, init) => app.request(path, init));
    const start = async (goal: string) =>
      ((await (await call('POST', '/v1/runs', { body: { goal, profile: 'demo' }, headers: WAIT })).json()) as { runId: string }).runId;
    await body({ file, call, start });
  } finally {
    await runtime.store.close?.();
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('Audit over a damaged store', () => {
  it('reports a run whose stored row is corrupt as a finding of that run, and still verifies the others', async () => {
    await onDisk({}, async ({ file, call, start }) => {
      const damaged = await start('add 2 and 3');
      const intact = await start('add 4 and 5');
      // Damage one stored event from outside, as a disk error or a stray write would.
      const raw = new Database(file);
      raw.prepare('UPDATE events SET data = ? WHERE run_id = ? AND seq = 3').run('{"not json', damaged);
      raw.close();
      const audit = await call('GET', '/v1/audit');
      expect(audit.status).toBe(200);
      const body = (await audit.json()) as { ok: boolean; runs: Array<{ runId: string; ok: boolean; reason?: string }> };
      expect(body.ok).toBe(false);
      expect(body.runs.find((r) => r.runId === damaged)).toMatchObject({ ok: false, reason: expect.stringContaining('cannot read') });
      expect(body.runs.find((r) => r.runId === intact)).toMatchObject({ ok: true });
      const one = await call('GET', `/v1/audit/runs/${damaged}`);
      expect(one.status).toBe(200);
      expect(await one.json()).toMatchObject({ ok: false });
    });
  });
});

describe('Journals move between hosts whatever their size', () => {
  it('imports, verifies and replays an export larger than the ordinary 1 MiB body limit', async () => {
    const source = await setup();
    const text = 'x'.repeat(500);
    const plan = Array.from({ length: 1_500 }, (_, i) => ({ tool: 'echo', input: { message: `${i} ${text}` } }));
    const run = (await (await source.call('POST', '/v1/runs', { body: { goal: 'echo many', profile: 'demo', plan }, headers: WAIT })).json()) as {
      runId: string;
      status: string;
    };
    expect(run.status).toBe('completed');
    const ndjson = await (await source.call('GET', `/v1/runs/${run.runId}/journal?format=ndjson`)).text();
    expect(ndjson.length).toBeGreaterThan(2 * 1024 * 1024);
    const target = await setup();
    for (const path of ['/v1/audit/journal', '/v1/replay', '/v1/journals']) {
      const response = await target.call('POST', path, { body: { journal: ndjson } });
      expect(response.status, path).toBe(200);
    }
    expect(await (await target.call('GET', `/v1/runs/${run.runId}`)).json()).toMatchObject({ status: 'completed' });
  }, 60_000);
});

describe('Rate limits key on who the caller is, never on what it says', () => {
  const guess = (i: number) => ({ authorization: `Bearer guess-${i}-0123456789abcdef`, 'x-forwarded-for': `10.0.0.${i % 250}` });

  it('gives unknown tokens and forged forwarding headers no buckets of their own', async () => {
    const { app } = await setup({ rateLimit: { perSecond: 1, burst: 5 } });
    const statuses = [];
    for (let i = 0; i < 10; i++) statuses.push((await app.request('/v1/runs', { headers: guess(i) })).status);
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(statuses.slice(5)).toEqual([429, 429, 429, 429, 429]);
    // A valid token has its own bucket.
    expect((await app.request('/v1/runs', { headers: { authorization: `Bearer ${DEMO}` } })).status).toBe(200);
  });

  it('makes failed authentications from one address wait, with a ceiling for all addresses together', async () => {
    let address = '127.0.0.1';
    const { app } = await setup({ authFailureLimit: { perSecond: 1, burst: 3 }, clientAddress: () => address });
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await app.request('/v1/runs', { headers: guess(i) })).status);
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
    const refused = await app.request('/v1/runs', { headers: { authorization: `Bearer ${DEMO}` } });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another address may still try, until everyone together has failed ten times the burst.
    address = '127.0.0.2';
    expect((await app.request('/v1/runs', { headers: { authorization: `Bearer ${DEMO}` } })).status).toBe(200);
    const spread = [];
    for (let i = 0; i < 40; i++) {
      address = `127.0.1.${i}`;
      spread.push((await app.request('/v1/runs', { headers: guess(i) })).status);
    }
    expect(spread.filter((s) => s === 401).length).toBeLessThanOrEqual(30);
    expect(spread.at(-1)).toBe(429);
  });
});

describe('Signed heads', () => {
  it('publishes the public key, and audit flags a head whose signature was removed or replaced in the database', async () => {
    const signer = createHeadSigner(generateSigningKey());
    await onDisk({ signer }, async ({ file, call, start }) => {
      expect(await (await call('GET', '/v1/keys', { token: null })).json()).toEqual({
        keys: [{ keyId: signer.keyId, algorithm: 'Ed25519', publicKey: signer.publicKey }],
      });
      const [unsigned, forged, intact] = [await start('add 1 and 2'), await start('add 3 and 4'), await start('add 5 and 6')];
      expect(await (await call('GET', '/v1/audit')).json()).toMatchObject({ ok: true });
      // Someone with write access to the database, but not to the key, edits the run rows.
      const raw = new Database(file);
      const summary = (runId: string) =>
        JSON.parse((raw.prepare('SELECT summary FROM runs WHERE run_id = ?').get(runId) as { summary: string }).summary) as Record<string, unknown>;
      const write = (runId: string, value: Record<string, unknown>) =>
        raw.prepare('UPDATE runs SET summary = ? WHERE run_id = ?').run(JSON.stringify(value), runId);
      const { signature: _dropped, ...bare } = summary(unsigned);
      write(unsigned, bare);
      const other = createHeadSigner(generateSigningKey());
      const stolen = summary(forged);
      write(forged, { ...stolen, signature: { keyId: signer.keyId, sig: other.sign(forged, stolen['head'] as { seq: number; hash: string }).sig } });
      raw.close();
      const audit = (await (await call('GET', '/v1/audit')).json()) as { ok: boolean; runs: Array<{ runId: string; ok: boolean; reason?: string }> };
      expect(audit.ok).toBe(false);
      expect(audit.runs.find((r) => r.runId === unsigned)).toMatchObject({ ok: false, reason: expect.stringContaining('not signed') });
      expect(audit.runs.find((r) => r.runId === forged)).toMatchObject({ ok: false, reason: expect.stringContaining('signature') });
      expect(audit.runs.find((r) => r.runId === intact)).toMatchObject({ ok: true });
    });
  });
});
