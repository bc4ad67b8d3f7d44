import { describe, expect, it } from 'vitest';
import { InMemoryStore, Orchestrator, replay, verifyJournal } from '../../src/core/index.ts';
import { createSeededRandom, createSequentialIds, steppingClock } from '../../src/core/testing.ts';
import { Ledger, driveThroughCrashes, ledgerRegistry } from '../support/harness.ts';

const GOAL = 'record_a(n=1) then send_email(to="ops@example.com") then record_b(n=2)';
const RUNS = 1000;

describe('crash and resume (1,000 seeded runs, crashes between journal appends)', () => {
  it('completes every run with one effect per keyed step and no blind re-run of a non-idempotent step', async () => {
    let crashes = 0;
    let escalations = 0;
    let replayed = 0;
    for (let seed = 1; seed <= RUNS; seed++) {
      const random = createSeededRandom(seed);
      const ledger = new Ledger();
      const registry = ledgerRegistry(ledger);
      const inner = new InMemoryStore();
      const runId = `run-${seed}`;
      const settled = await driveThroughCrashes({
        inner,
        runId,
        goal: GOAL,
        profile: 'ledger',
        random,
        appendsAtRisk: 11,
        make: (store) =>
          new Orchestrator({ registry, store, ids: createSequentialIds(`s${seed}`), clock: steppingClock(seed * 1000, 7), sleep: async () => undefined }),
      });
      crashes += settled.crashes;
      escalations += settled.escalations;

      const journal = await inner.readJournal(runId);
      expect(verifyJournal(journal).ok).toBe(true);
      const final = journal.at(-1)!;
      expect(final.type).toBe('run_completed');
      expect(final.type === 'run_completed' && final.data.outputs).toEqual({
        'step-0': { recorded: 'a', n: 1 },
        'step-1': 'mailed ops@example.com',
        'step-2': { recorded: 'b', n: 4 },
      });
      // Idempotent steps: exactly one effect per idempotency key, however often they ran.
      expect(ledger.effects.get(`${runId}:step-0`)).toBe(1);
      expect(ledger.effects.get(`${runId}:step-2`)).toBe(1);
      // The non-idempotent step ran again only with a human's approval of the unknown outcome.
      const mails = ledger.executions.filter((e) => e.tool === 'send_email').length;
      const approvedReruns = journal.filter((e) => e.type === 'approval_requested' && String(e.data['reason']).startsWith('unknown_outcome')).length;
      expect(mails).toBeGreaterThanOrEqual(1);
      expect(mails - 1).toBeLessThanOrEqual(approvedReruns);
      if (seed % 20 === 0) {
        const result = await replay(journal, registry);
        expect(result, `replay of run ${seed}`).toMatchObject({ ok: true, events: journal.length });
        replayed++;
      }
    }
    expect(crashes).toBeGreaterThan(RUNS / 2);
    expect(escalations).toBeGreaterThan(0);
    expect(replayed).toBe(RUNS / 20);
  });
});
