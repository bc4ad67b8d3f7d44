import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/core/index.ts';
import { createApp } from '../../src/api/app.ts';
import { pageRuns, RUN_SORTS } from '../../src/api/runPages.ts';
import { createRuntime } from '../../src/api/runtime.ts';
import { SqliteStore } from '../../src/edge/sqliteStore.ts';
import type { RunSummary } from '../../src/core/index.ts';

const TOKEN = 'pages-token-0123456789abcdef';

function run(i: number, createdAt: number, cost: number): RunSummary {
  return {
    runId: `run_${String(i).padStart(3, '0')}`,
    traceId: `t${i}`,
    profile: 'demo',
    goal: `goal ${i}`,
    status: 'completed',
    createdAt,
    updatedAt: createdAt + (i % 7) * 10,
    head: { seq: 1, hash: 'h' },
    usage: { cost, calls: 1, tokens: i % 5 },
  };
}

describe('runs list pages', () => {
  it('walks every run exactly once in order, whatever the sort, order, page size and ties', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 20 }), fc.integer({ min: 0, max: 5 })), { maxLength: 60 }),
        fc.constantFrom(...RUN_SORTS),
        fc.constantFrom('asc' as const, 'desc' as const),
        fc.integer({ min: 1, max: 7 }),
        (rows, sort, order, limit) => {
          const runs = rows.map(([at, cost], i) => run(i, at, cost / 10));
          const seen: string[] = [];
          let cursor: string | undefined;
          for (let pages = 0; pages <= runs.length + 1; pages++) {
            const page = pageRuns(runs, { sort, order, limit, cursor });
            seen.push(...page.runs.map((r) => r.runId));
            if (!page.nextCursor) break;
            cursor = page.nextCursor;
          }
          expect(seen.sort()).toEqual(runs.map((r) => r.runId).sort());
          const all = pageRuns(runs, { sort, order, limit: 1000 }).runs.map((r) => r.runId);
          expect(new Set(all).size).toBe(runs.length);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('keeps its place when runs are added between pages, and refuses a foreign or forged cursor', () => {
    const runs = Array.from({ length: 10 }, (_, i) => run(i, 1000 + i, i));
    const first = pageRuns(runs, { sort: 'created', order: 'desc', limit: 4 });
    expect(first.runs.map((r) => r.runId)).toEqual(['run_009', 'run_008', 'run_007', 'run_006']);
    const newer = [...runs, run(50, 5000, 1)];
    expect(pageRuns(newer, { sort: 'created', order: 'desc', limit: 4, cursor: first.nextCursor }).runs.map((r) => r.runId)).toEqual([
      'run_005',
      'run_004',
      'run_003',
      'run_002',
    ]);
    expect(() => pageRuns(runs, { sort: 'cost', order: 'desc', limit: 4, cursor: first.nextCursor })).toThrow(/sort=created/);
    expect(() => pageRuns(runs, { sort: 'created', order: 'desc', limit: 4, cursor: 'bm90IGEgY3Vyc29y' })).toThrow(/not one this list gave out/);
  });

  it('GET /v1/runs sorts by cost, pages with nextCursor, searches goals as shown, and answers 400 to a bad cursor', async () => {
    const runtime = await createRuntime(new SqliteStore(':memory:'), parseConfig({}).config);
    const app = createApp(runtime, { tokens: { [TOKEN]: '*' }, rateLimit: { perSecond: 1000, burst: 5000 } });
    const get = async (path: string) => {
      const response = await app.request(path, { headers: { authorization: `Bearer ${TOKEN}` } });
      return { status: response.status, body: (await response.json()) as { runs: RunSummary[]; nextCursor?: string; error?: { code: string } } };
    };
    const start = (goal: string) =>
      app.request('/v1/runs', {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', prefer: 'wait=20' },
        body: JSON.stringify({ goal, profile: 'demo' }),
      });
    for (const goal of ['add 1 and 2', 'add 1 and 2 then multiply the result by 3', 'calculate 2 * 3', 'add 4 and 5 password=hunter2pages']) await start(goal);
    const byCost = await get('/v1/runs?sort=cost&order=desc&limit=2');
    expect(byCost.status).toBe(200);
    expect(byCost.body.runs).toHaveLength(2);
    expect(byCost.body.runs[0]!.usage!.cost).toBeGreaterThanOrEqual(byCost.body.runs[1]!.usage!.cost);
    const rest = await get(`/v1/runs?sort=cost&order=desc&limit=2&cursor=${byCost.body.nextCursor}`);
    expect(rest.body.runs).toHaveLength(2);
    expect(rest.body.nextCursor).toBeUndefined();
    expect(new Set([...byCost.body.runs, ...rest.body.runs].map((r) => r.runId)).size).toBe(4);
    expect((await get('/v1/runs?q=multiply')).body.runs.map((r) => r.goal)).toEqual(['add 1 and 2 then multiply the result by 3']);
    expect((await get('/v1/runs?q=hunter2')).body.runs).toEqual([]);
    expect(await get('/v1/runs?cursor=garbage')).toMatchObject({ status: 400, body: { error: { code: 'invalid_cursor' } } });
  });
});
