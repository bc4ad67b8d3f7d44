import { describe, expect, it } from 'vitest';
import type { LanguageModelV2 } from '@ai-sdk/provider';
import { InMemoryStore, Orchestrator, replay, staticModels, verifyJournal } from '../../src/core/index.ts';
import { createSeededRandom, createSequentialIds, steppingClock } from '../../src/core/testing.ts';
import { Crash, CrashingStore, Ledger, ledgerRegistry } from '../support/harness.ts';

// Agent runs crashed between journal appends (so between a model call and its answer, and
// between a tool call and its result) at seeded points, then resumed by new orchestrators until
// they complete: every keyed effect happens once, a non-idempotent call runs again only with a
// person's approval, model calls lost in a crash are re-issued, and every journal replays.

const RUNS = 200;
const PLAN = [
  { tool: 'record_a', input: { n: 1 } },
  { tool: 'send_email', input: { to: 'ops@example.com' } },
  { tool: 'record_b', input: { n: 2 } },
];

/** A model that decides from the conversation alone (how many results it has seen), so a re-issued call gets the same answer. */
function policyModel(calls: { count: number }): LanguageModelV2 {
  return {
    specificationVersion: 'v2',
    provider: 'test',
    modelId: 'policy',
    supportedUrls: {},
    doStream: () => Promise.reject(new Error('not streamed')),
    doGenerate: async (options) => {
      calls.count++;
      const seen = options.prompt.filter((message) => message.role === 'tool').length;
      const next = PLAN[seen];
      const usage = { inputTokens: 10, outputTokens: 2, totalTokens: 12 };
      if (!next) return { content: [{ type: 'text', text: 'All three done.' }], finishReason: 'stop', usage, warnings: [] };
      return {
        content: [{ type: 'tool-call', toolCallId: `c${seen}`, toolName: next.tool, input: JSON.stringify(next.input) }],
        finishReason: 'tool-calls',
        usage,
        warnings: [],
      };
    },
  };
}

describe(`agent runs crashed and resumed (${RUNS} seeded runs)`, () => {
  it('complete with one effect per keyed call, approvals for unknown outcomes, and replayable journals', async () => {
    let crashes = 0;
    let reissued = 0;
    for (let seed = 1; seed <= RUNS; seed++) {
      const random = createSeededRandom(seed);
      const ledger = new Ledger();
      const registry = ledgerRegistry(ledger);
      const inner = new InMemoryStore();
      const runId = `agent-run-${seed}`;
      const calls = { count: 0 };
      let instance = 0;
      const orchestrator = () => {
        const points = new Set<number>();
        if (instance++ < 3) for (let k = 0; k < 2; k++) if (random.next() < 0.7) points.add(1 + Math.floor(random.next() * 14));
        return new Orchestrator({
          registry,
          store: new CrashingStore(inner, points),
          ids: createSequentialIds(`a${seed}`),
          clock: steppingClock(seed * 1000, 7),
          sleep: async () => undefined,
          models: staticModels([['policy', policyModel(calls)]]),
        });
      };
      for (let guard = 0; ; guard++) {
        expect(guard, `run ${seed} did not settle`).toBeLessThan(30);
        const summary = await inner.getRun(runId);
        if (summary?.status === 'completed') break;
        try {
          if (!summary) await orchestrator().start('record a, mail ops, record b', 'ledger', { runId });
          else if (summary.status === 'paused') {
            const approval = (await inner.listApprovals({ runId, status: 'pending' }))[0]!;
            await orchestrator().resolveApproval(approval.approvalId, { decision: 'approve', by: 'operator' });
          } else await orchestrator().resume(runId);
        } catch (error) {
          if (!(error instanceof Crash)) throw error;
          crashes++;
        }
      }
      const journal = await inner.readJournal(runId);
      expect(verifyJournal(journal).ok).toBe(true);
      const final = journal.at(-1)!;
      expect(final.type === 'run_completed' && final.data.outputs['answer']).toBe('All three done.');
      expect(ledger.effects.get(`${runId}:t1.call-0`)).toBe(1);
      expect(ledger.effects.get(`${runId}:t3.call-0`)).toBe(1);
      const mails = ledger.executions.filter((e) => e.tool === 'send_email').length;
      const approvedReruns = journal.filter((e) => e.type === 'approval_requested' && e.data.reason.startsWith('unknown_outcome')).length;
      expect(mails - 1).toBeLessThanOrEqual(approvedReruns);
      reissued += journal.filter((e) => e.type === 'model_call_start' && e.data.rerun).length;
      if (seed % 10 === 0) expect(await replay(journal, registry), `replay of run ${seed}`).toMatchObject({ ok: true, events: journal.length });
    }
    expect(crashes).toBeGreaterThan(RUNS / 2);
    expect(reissued).toBeGreaterThan(0);
  });
});
