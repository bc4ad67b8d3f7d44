import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve, type ServerType } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConflictError, parseConfig, type AppendBatch, type JournalEvent } from '../../src/core/index.ts';
import { sealEvent } from '../../src/core/testing.ts';
import { createApp } from '../../src/api/app.ts';
import { createRuntime, type Runtime } from '../../src/api/runtime.ts';
import { SqliteStore } from '../../src/edge/sqliteStore.ts';

const TOKEN = 'group-commit-token-0123456789abcdef';
const ORIGIN = 'https://app.example';

function batchOf(runId: string, previous: JournalEvent | undefined, at: number): { batch: AppendBatch; event: JournalEvent } {
  const event = sealEvent(previous, runId, 'stage', at, { stage: 'plan' });
  const batch: AppendBatch = {
    runId,
    events: [event],
    expectedHead: previous ? { seq: previous.seq, hash: previous.hash } : null,
    run: { runId, traceId: runId, profile: 'demo', goal: 'g', status: 'running', createdAt: 1, updatedAt: at, head: { seq: event.seq, hash: event.hash } },
  };
  return { batch, event };
}

describe('SQLite group commit', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cugar-group-commit-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes the appends of one turn in one transaction, each durable when it resolves', async () => {
    const store = new SqliteStore(join(dir, 'turn.db'));
    const firsts = Array.from({ length: 30 }, (_, i) => batchOf(`run-${i}`, undefined, 10));
    await Promise.all(firsts.map(({ batch }) => store.append(batch)));
    expect(store.journalWrites).toEqual({ transactions: 1, batches: 30 });
    await Promise.all(firsts.map(({ batch, event }) => store.append(batchOf(batch.runId, event, 11).batch)));
    expect(store.journalWrites).toEqual({ transactions: 2, batches: 60 });
    await store.close();
    const reopened = new SqliteStore(join(dir, 'turn.db'));
    for (let i = 0; i < 30; i++) expect((await reopened.readJournal(`run-${i}`)).map((e) => e.seq)).toEqual([0, 1]);
    await reopened.close();
  });

  it('refuses only the batch another connection got ahead of, even when its write fails mid-transaction, and keeps the rest of the group', async () => {
    const path = join(dir, 'two.db');
    const a = new SqliteStore(path);
    const b = new SqliteStore(path);
    const first = batchOf('shared', undefined, 10);
    await a.append(first.batch);
    // b moves the run on behind a's back: a's cached head is stale, so a's next write collides in storage.
    await b.append(batchOf('shared', first.event, 11).batch);
    const stale = batchOf('shared', first.event, 12).batch;
    const before = batchOf('before', undefined, 12).batch;
    const after = batchOf('after', undefined, 12).batch;
    const results = await Promise.allSettled([a.append(before), a.append(stale), a.append(after)]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toBeInstanceOf(ConflictError);
    // The group was tried whole, then again with each batch on its own savepoint.
    expect(a.journalWrites.transactions).toBe(3);
    expect((await b.readJournal('shared')).map((e) => e.at)).toEqual([10, 11]);
    expect((await b.readJournal('before')).length).toBe(1);
    expect((await b.readJournal('after')).length).toBe(1);
    await a.close();
    await b.close();
  });
});

describe('HTTP on the Node adapter', () => {
  let runtime: Runtime;
  let store: SqliteStore;
  let server: ServerType;
  let url: string;
  beforeAll(async () => {
    store = new SqliteStore(':memory:');
    runtime = await createRuntime(store, parseConfig({}).config);
    const app = createApp(runtime, {
      tokens: { [TOKEN]: '*' },
      corsOrigins: [ORIGIN],
      maxBodyBytes: 4096,
      rateLimit: { perSecond: 1000, burst: 5000 },
      authFailureLimit: { perSecond: 1000, burst: 5000 },
    });
    server = await new Promise<ServerType>((resolve) => {
      const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
    });
    const address = server.address() as { port: number };
    url = `http://127.0.0.1:${address.port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await store.close();
  });

  const auth = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

  it('answers GET /v1/health with secure headers and a request id, and CORS headers only for an allowed Origin', async () => {
    const plain = await fetch(`${url}/v1/health`);
    expect(plain.status).toBe(200);
    expect(await plain.json()).toMatchObject({ status: 'ok' });
    expect(plain.headers.get('x-content-type-options')).toBe('nosniff');
    expect(plain.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(plain.headers.get('x-request-id')).toMatch(/^[\w-]+$/);
    expect(plain.headers.get('access-control-allow-origin')).toBeNull();
    const allowed = await fetch(`${url}/v1/health`, { headers: { origin: ORIGIN } });
    expect(allowed.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(allowed.headers.get('access-control-expose-headers')).toContain('X-Request-Id');
    expect(allowed.headers.get('x-content-type-options')).toBe('nosniff');
    const other = await fetch(`${url}/v1/health`, { headers: { origin: 'https://evil.example' } });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    const preflight = await fetch(`${url}/v1/runs`, {
      method: 'OPTIONS',
      headers: { origin: ORIGIN, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
    });
    expect(preflight.status).toBeLessThan(300);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(preflight.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization');
  });

  it('refuses an oversize POST body, with or without a declared length, and runs nothing', async () => {
    const huge = JSON.stringify({ goal: `add 1 and 2 ${'x'.repeat(8000)}`, profile: 'demo' });
    const declared = await fetch(`${url}/v1/runs`, { method: 'POST', headers: auth, body: huge });
    expect(declared.status).toBe(413);
    expect(await declared.json()).toMatchObject({ error: { code: 'body_too_large' } });
    // Chunked, no Content-Length: the limit counts what arrives.
    const chunked = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(`${url}/v1/runs`, { method: 'POST', headers: { ...auth, 'transfer-encoding': 'chunked' } }, (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      for (let i = 0; i < huge.length; i += 1000) req.write(huge.slice(i, i + 1000));
      req.end();
    });
    expect(chunked.status).toBe(413);
    expect(JSON.parse(chunked.body)).toMatchObject({ error: { code: 'body_too_large' } });
    expect(await runtime.store.listRuns({})).toEqual([]);
  });

  it('accepts concurrent runs with 202 once their first event is durable, and group commit bounds the transactions a run costs', async () => {
    const runs = 24;
    const before = store.journalWrites;
    const goal = JSON.stringify({ goal: 'add 2 and 3, then multiply the result by 4, then subtract 1 from the result', profile: 'demo' });
    const accepted = await Promise.all(
      Array.from({ length: runs }, async () => {
        const response = await fetch(`${url}/v1/runs`, { method: 'POST', headers: auth, body: goal });
        expect(response.status).toBe(202);
        const { runId } = (await response.json()) as { runId: string };
        // Durable before the answer: the first event is in the store already.
        expect((await store.readJournal(runId, 0)).length).toBeGreaterThan(0);
        return runId;
      }),
    );
    for (let tries = 0; tries < 500 && (await store.listRuns({ status: 'running' })).length > 0; tries++) await new Promise((r) => setTimeout(r, 10));
    for (const runId of accepted) expect((await store.getRun(runId))?.status).toBe('completed');
    const after = store.journalWrites;
    const transactions = after.transactions - before.transactions;
    const batches = after.batches - before.batches;
    // Every run appends several batches; concurrent runs share transactions.
    expect(batches).toBeGreaterThanOrEqual(runs * 3);
    expect(transactions).toBeLessThanOrEqual(runs * 2);
    expect(transactions).toBeLessThan(batches);
  });
});
