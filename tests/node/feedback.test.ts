import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/core/index.ts';
import { createApp } from '../../src/api/app.ts';
import { createRuntime } from '../../src/api/runtime.ts';
import { SqliteStore } from '../../src/edge/sqliteStore.ts';

const ANA = 'ana-token-0123456789abcdef';
const BO = 'bo-token-0123456789abcdefg';
const OTHER = 'other-token-0123456789abcd';

async function setup() {
  const runtime = await createRuntime(new SqliteStore(':memory:'), parseConfig({}).config);
  const app = createApp(runtime, { tokens: { [ANA]: ['demo'], [BO]: ['demo'], [OTHER]: ['other'] }, rateLimit: { perSecond: 1000, burst: 5000 } });
  const call = async (method: string, path: string, body?: unknown, token = ANA) => {
    const response = await app.request(path, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), prefer: 'wait=20' },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> & { error?: { code: string } } };
  };
  const start = async (goal: string) => (await call('POST', '/v1/runs', { goal, profile: 'demo' })).body['runId'] as string;
  return { call, start };
}

describe('feedback on runs', () => {
  it("keeps each person's newest score and comment on a run or an event, beside the run", async () => {
    const { call, start } = await setup();
    const runId = await start('add 2 and 3');
    expect(await call('POST', `/v1/runs/${runId}/feedback`, { score: -1, comment: 'wrong numbers' })).toMatchObject({
      status: 201,
      body: { runId, score: -1, comment: 'wrong numbers', by: expect.stringMatching(/^token:/) },
    });
    // Ana changes her mind; Bo rates one event.
    await call('POST', `/v1/runs/${runId}/feedback`, { score: 1, comment: 'fine after all' });
    await call('POST', `/v1/runs/${runId}/feedback`, { score: 1, seq: 3, comment: 'good step' }, BO);
    const listed = (await call('GET', `/v1/runs/${runId}/feedback`)).body['feedback'] as Array<{ score: number; comment: string; seq?: number }>;
    expect(listed.map((f) => [f.score, f.comment, f.seq])).toEqual(
      expect.arrayContaining([
        [1, 'fine after all', undefined],
        [1, 'good step', 3],
      ]),
    );
    expect(listed).toHaveLength(2);
    // The journal is untouched: feedback is kept apart from it.
    expect((await call('GET', `/v1/audit/runs/${runId}`)).body).toMatchObject({ ok: true });
  });

  it('refuses bad feedback, unknown events and other profiles’ runs', async () => {
    const { call, start } = await setup();
    const runId = await start('add 2 and 3');
    expect((await call('POST', `/v1/runs/${runId}/feedback`, { score: 2 })).status).toBe(400);
    expect((await call('POST', `/v1/runs/${runId}/feedback`, { score: 1, extra: true })).status).toBe(400);
    expect(await call('POST', `/v1/runs/${runId}/feedback`, { score: 1, seq: 9999 })).toMatchObject({
      status: 404,
      body: { error: { code: 'unknown_event' } },
    });
    expect((await call('POST', `/v1/runs/${runId}/feedback`, { score: 1 }, OTHER)).status).toBe(404);
    expect((await call('GET', `/v1/runs/${runId}/feedback`, undefined, OTHER)).status).toBe(404);
    expect((await call('GET', `/v1/runs/${runId}/feedback`)).body['feedback']).toEqual([]);
  });

  it('filters the runs list by feedback', async () => {
    const { call, start } = await setup();
    const good = await start('add 1 and 2');
    const bad = await start('add 3 and 4');
    const none = await start('add 5 and 6');
    await call('POST', `/v1/runs/${good}/feedback`, { score: 1 });
    await call('POST', `/v1/runs/${bad}/feedback`, { score: -1 });
    // A bad step in a good run leaves the run positive.
    await call('POST', `/v1/runs/${good}/feedback`, { score: -1, seq: 2 });
    const ids = async (filter: string) => ((await call('GET', `/v1/runs?feedback=${filter}`)).body['runs'] as { runId: string }[]).map((r) => r.runId).sort();
    expect(await ids('positive')).toEqual([good]);
    expect(await ids('negative')).toEqual([bad]);
    expect(await ids('any')).toEqual([good, bad].sort());
    expect(await ids('none')).toEqual([none]);
  });
});
