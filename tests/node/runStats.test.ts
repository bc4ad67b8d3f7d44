import { describe, expect, it } from 'vitest';
import { parseConfig, type RunSummary } from '../../src/core/index.ts';
import { createApp } from '../../src/api/app.ts';
import { createRuntime } from '../../src/api/runtime.ts';
import { runsPerDay } from '../../src/api/runStats.ts';
import { SqliteStore } from '../../src/edge/sqliteStore.ts';

const DAY = 86_400_000;
const now = Date.UTC(2026, 10, 23, 15);
function run(i: number, daysAgo: number, latency: number, status: RunSummary['status'], profile = 'demo', cost = 0.1): RunSummary {
  const createdAt = now - daysAgo * DAY - i * 1000;
  return {
    runId: `r${i}`,
    traceId: `t${i}`,
    profile,
    goal: 'g',
    status,
    createdAt,
    updatedAt: createdAt + latency,
    head: { seq: 1, hash: 'h' },
    usage: { cost, calls: 1, tokens: 10 },
  };
}

describe('runs over time', () => {
  it('counts runs, errors, latency percentiles and spending per UTC day, empty days as zeros', () => {
    const runs = [
      ...Array.from({ length: 20 }, (_, i) => run(i, 0, (i + 1) * 10, i < 5 ? 'failed' : 'completed')),
      run(100, 2, 500, 'completed', 'ops', 0.2),
      run(101, 2, 700, 'paused', 'ops'),
      run(102, 40, 5, 'completed'),
    ];
    const days = runsPerDay(runs, { now, days: 3 });
    expect(days.map((d) => d.day)).toEqual(['2026-11-21', '2026-11-22', '2026-11-23']);
    expect(days[1]).toMatchObject({ runs: 0, failed: 0, errorRate: 0, p50Ms: 0, p95Ms: 0, cost: 0 });
    expect(days[2]).toMatchObject({ runs: 20, failed: 5, errorRate: 0.25, p50Ms: 100, p95Ms: 190, cost: 2, tokens: 200 });
    // A paused run counts as a run but not in latency or the error rate.
    expect(days[0]).toMatchObject({ runs: 2, failed: 0, p50Ms: 500, p95Ms: 500, cost: 0.3 });
    const byProfile = runsPerDay(runs, { now, days: 3, byProfile: true });
    expect(byProfile.filter((d) => d.runs > 0).map((d) => [d.profile, d.day, d.runs])).toEqual([
      ['demo', '2026-11-23', 20],
      ['ops', '2026-11-21', 2],
    ]);
  });

  it('GET /v1/stats/runs answers for the profiles the token may see', async () => {
    const runtime = await createRuntime(new SqliteStore(':memory:'), parseConfig({}).config);
    const app = createApp(runtime, {
      tokens: { 'stats-token-0123456789ab': ['demo'], 'other-token-0123456789ab': ['other'] },
      rateLimit: { perSecond: 1000, burst: 5000 },
    });
    const call = (path: string, token = 'stats-token-0123456789ab', init: RequestInit = {}) =>
      app.request(path, { ...init, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', prefer: 'wait=20' } });
    for (const goal of ['add 1 and 2', 'divide 1 by 0']) await call('/v1/runs', undefined, { method: 'POST', body: JSON.stringify({ goal, profile: 'demo' }) });
    const today = ((await (await call('/v1/stats/runs?days=7')).json()) as { days: Array<{ runs: number; failed: number }> }).days.at(-1)!;
    expect(today).toMatchObject({ runs: 2, failed: 1 });
    const theirs = ((await (await call('/v1/stats/runs?days=7', 'other-token-0123456789ab')).json()) as { days: Array<{ runs: number }> }).days;
    expect(theirs.every((d) => d.runs === 0)).toBe(true);
    expect((await call('/v1/stats/runs?profile=demo', 'other-token-0123456789ab')).status).toBe(403);
    expect((await call('/v1/stats/runs?days=0')).status).toBe(400);
  });
});
