import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { InMemoryStore, parseConfig } from '../../src/core/index.ts';
import { createApp } from '../../src/api/app.ts';
import { createRuntime } from '../../src/api/runtime.ts';
import { SqliteStore } from '../../src/edge/sqliteStore.ts';
import { createHeadSigner, generateSigningKey } from '../../src/core/signing.ts';

const ADMIN = 'admin-token-0123456789abcdef';
const OTHER = 'other-token-0123456789abcdef';

// One key signs the runs' heads and the store's log of heads, as on the Node host.
const signer = createHeadSigner(generateSigningKey());

async function setup(store: SqliteStore | InMemoryStore) {
  const runtime = await createRuntime(store, parseConfig({}).config, { signer });
  runtime.registry.register('demo', 'wire', {
    description: 'wire money',
    parameters: z.object({ to: z.string() }),
    requiresApproval: true,
    handler: () => 'sent',
  });
  const app = createApp(runtime, { tokens: { [ADMIN]: '*', [OTHER]: ['other'] }, rateLimit: { perSecond: 1000, burst: 5000 } });
  const call = async (method: string, path: string, body?: unknown, token = ADMIN) => {
    const response = await app.request(path, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', prefer: 'wait=20' },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> & { error?: { code: string } } };
  };
  return { call };
}

describe('deleting a run', () => {
  it('deletes a finished run on the Node host and leaves its head in the signed log, so the audit shows it deleted on purpose', async () => {
    const { call } = await setup(new SqliteStore(':memory:', { signer }));
    const kept = (await call('POST', '/v1/runs', { goal: 'add 1 and 2', profile: 'demo' })).body['runId'] as string;
    const gone = (await call('POST', '/v1/runs', { goal: 'add 3 and 4', profile: 'demo' })).body;
    const head = gone['head'] as { seq: number; hash: string };
    expect((await call('DELETE', `/v1/runs/${gone['runId'] as string}`, undefined, OTHER)).status).toBe(404);
    expect(await call('DELETE', `/v1/runs/${gone['runId'] as string}`)).toEqual({ status: 200, body: { runId: gone['runId'], head } });
    expect((await call('GET', `/v1/runs/${gone['runId'] as string}`)).status).toBe(404);
    expect((await call('GET', `/v1/runs/${kept}`)).status).toBe(200);
    const audit = (await call('GET', '/v1/audit')).body as { ok: boolean; log: { pruned: number } };
    expect(audit).toMatchObject({ ok: true });
    expect(audit.log.pruned).toBe(1);
    expect((await call('DELETE', `/v1/runs/${gone['runId'] as string}`)).status).toBe(404);
  });

  it('refuses to delete a paused run, and says so on a host that keeps every journal', async () => {
    const sqlite = await setup(new SqliteStore(':memory:', { signer }));
    const paused = (await sqlite.call('POST', '/v1/runs', { goal: 'wire(to="bob")', profile: 'demo' })).body;
    expect(paused['status']).toBe('paused');
    expect(await sqlite.call('DELETE', `/v1/runs/${paused['runId'] as string}`)).toMatchObject({ status: 409, body: { error: { code: 'run_not_finished' } } });
    const memory = await setup(new InMemoryStore());
    const run = (await memory.call('POST', '/v1/runs', { goal: 'add 1 and 2', profile: 'demo' })).body['runId'] as string;
    expect(await memory.call('DELETE', `/v1/runs/${run}`)).toMatchObject({ status: 501, body: { error: { code: 'unsupported_host' } } });
  });
});
