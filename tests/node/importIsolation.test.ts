import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createApp } from '../../src/api/app.ts';
import { createRuntime } from '../../src/api/runtime.ts';
import { parseTokenMap } from '../../src/api/tokens.ts';
import { InMemoryStore, Orchestrator, ToolRegistry, exportJournal, parseConfig, type JournalEvent } from '../../src/core/index.ts';
import { createSequentialIds, sealEvent } from '../../src/core/testing.ts';
import { SqliteStore } from '../../src/edge/sqliteStore.ts';
import { ADMIN, DEMO, OTHER, TOKENS, WAIT, caller } from '../support/apiConformance.ts';

/** `events` with every string occurrence of each `from` replaced by its `to`, re-sealed into a valid chain (a forger can always do this). */
function forge(events: readonly JournalEvent[], replacements: ReadonlyArray<readonly [string, string]>): JournalEvent[] {
  const forged: JournalEvent[] = [];
  for (const event of events) {
    let text = JSON.stringify({ runId: event.runId, data: event.data });
    for (const [from, to] of replacements) text = text.replaceAll(from, to);
    const { runId, data } = JSON.parse(text) as { runId: string; data: never };
    forged.push(sealEvent(forged.at(-1), runId, event.type, event.at, data) as JournalEvent);
  }
  return forged;
}

// Whatever profile B imports — its own runs renamed to A's run and approval ids, A's own
// journals relabelled as B's, truncated copies, replays of earlier imports — nothing that
// profile A can see changes: its runs, their outcomes and journals, its approvals.
describe('journal imports by one profile never change what another profile sees (property)', () => {
  it('keeps profile A’s view byte for byte across any sequence of imports by profile B', async () => {
    const runtime = await createRuntime(new SqliteStore(':memory:'), parseConfig({}).config);
    const app = createApp(runtime, {
      tokens: parseTokenMap(TOKENS),
      rateLimit: { perSecond: 1e6, burst: 1e6 },
      authFailureLimit: { perSecond: 1e6, burst: 1e6 },
    });
    const call = caller(async (path, init) => app.request(path, init));
    const json = async (path: string, token = DEMO) => JSON.stringify(await (await call('GET', path, { token })).json());

    // Profile A (demo): a finished run and one paused for approval, with ids it chose.
    const done = (await (await call('POST', '/v1/runs', { body: { goal: 'add 2 and 3', profile: 'demo', runId: 'alice-done' }, headers: WAIT })).json()) as {
      runId: string;
    };
    const paused = (await (
      await call('POST', '/v1/runs', { body: { goal: 'send_message(to="ops", text="from alice")', profile: 'demo', runId: 'alice-paused' }, headers: WAIT })
    ).json()) as { runId: string; pendingApproval: { approvalId: string } };
    const victimApproval = paused.pendingApproval.approvalId;
    const view = async () =>
      [
        await json('/v1/runs?profile=demo&limit=1000'),
        await json('/v1/approvals?profile=demo'),
        await json('/v1/approvals?profile=demo&status=pending'),
        ...(await Promise.all(
          [done.runId, paused.runId].flatMap((id) => [json(`/v1/runs/${id}`), json(`/v1/runs/${id}/journal`), json(`/v1/audit/runs/${id}`, ADMIN)]),
        )),
      ].join('\n');
    const before = await view();

    // Profile B's material: its own paused run (a tool that needs approval) and A's journals as read by the host.
    const registry = new ToolRegistry();
    registry.register('other', 'wire', {
      description: 'wire money',
      parameters: z.object({ amount: z.number() }),
      requiresApproval: true,
      handler: () => 'sent',
    });
    const elsewhere = new InMemoryStore();
    const theirs = await new Orchestrator({ registry, store: elsewhere, ids: createSequentialIds('bob') }).start('wire(amount=5)', 'other');
    const own = await elsewhere.readJournal(theirs.runId);
    const ownApproval = theirs.pendingApproval!.approvalId;
    const alice = [await runtime.store.readJournal(done.runId), await runtime.store.readJournal(paused.runId)];
    const candidates: JournalEvent[][] = [
      own,
      forge(own, [[ownApproval, victimApproval]]),
      forge(own, [[theirs.runId, paused.runId]]),
      forge(own, [
        [theirs.runId, paused.runId],
        [ownApproval, victimApproval],
      ]),
      forge(own, [[theirs.runId, done.runId]]),
      forge(own, [[theirs.runId, 'alice-next']]),
      ...alice.map((journal) => forge(journal, [['"demo"', '"other"']])),
      ...alice.map((journal) => forge(journal, [])),
      ...alice.map((journal) => forge(journal.slice(0, -1), [['"demo"', '"other"']])),
      forge(alice[1]!, [
        ['"demo"', '"other"'],
        [paused.runId, 'bob-copy'],
      ]),
    ];

    const statuses = new Set<number>();
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat(candidates.length - 1), { minLength: 1, maxLength: 5 }), async (picks) => {
        for (const pick of picks) {
          const response = await call('POST', '/v1/journals', { token: OTHER, body: { journal: exportJournal(candidates[pick]!) } });
          statuses.add(response.status);
          expect(response.status, `candidate ${pick}`).toBeLessThan(500);
        }
        expect(await view()).toBe(before);
      }),
      { numRuns: 30 },
    );
    // The property saw both outcomes: imports B may make (its own runs) and ones it may not.
    expect(statuses).toContain(200);
    expect([...statuses].some((status) => status >= 400)).toBe(true);
    // A still decides its own approval.
    const decided = await call('POST', `/v1/approvals/${encodeURIComponent(victimApproval)}`, { body: { decision: 'approve' } });
    expect(await decided.json()).toMatchObject({ runId: paused.runId, status: 'completed' });
    await runtime.store.close?.();
  }, 120_000);
});
