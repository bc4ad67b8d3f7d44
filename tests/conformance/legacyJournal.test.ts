import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  InMemoryStore,
  JournalEventSchema,
  Orchestrator,
  ToolRegistry,
  importJournal,
  pairApprovals,
  pairToolCalls,
  parseJournal,
  registerBuiltinTools,
  replay,
  toOtlp,
  toTraceRecords,
  verifyJournal,
  type JournalEvent,
} from '../../src/core/index.ts';
import { projectRun } from '../../src/core/testing.ts';
import legacy from '../fixtures/legacy-journals.ndjson?raw';

// Journals written before the journal had typed event data (tests/fixtures/makeLegacyJournals.ts).
const text = legacy;
const events = parseJournal(text);
const runs: JournalEvent[][] = [];
for (const event of events) {
  if (event.seq === 0) runs.push([]);
  runs.at(-1)!.push(event);
}

function registry(): ToolRegistry {
  const tools = new ToolRegistry();
  registerBuiltinTools(tools);
  const never = () => {
    throw new Error('a replay must not call a handler');
  };
  tools.register('demo', 'flaky_fetch', {
    description: 'Fetch a quote from a flaky upstream service',
    parameters: z.object({ symbol: z.string() }),
    handler: never,
  });
  tools.register('demo', 'broken_tool', { description: 'Always fails for good', parameters: z.object({}), handler: never });
  tools.register('demo', 'transfer', {
    description: 'Transfer money between accounts',
    parameters: z.object({ amount: z.number(), to: z.string() }),
    requiresApproval: true,
    idempotent: false,
    cost: 5,
    handler: never,
  });
  return tools;
}

describe('journals recorded by earlier versions', () => {
  it('cover every event type and parse against the typed event union, byte for byte', () => {
    expect(runs).toHaveLength(8);
    expect(new Set(events.map((e) => e.type)).size).toBe(19);
    for (const line of text.trim().split('\n')) expect(JournalEventSchema.safeParse(JSON.parse(line)).success).toBe(true);
    // parseJournal keeps the rows as they came: hashes are over those exact bytes.
    expect(events.map((e) => JSON.stringify(e)).join('\n')).toBe(
      text
        .trim()
        .split('\n')
        .map((line) => JSON.stringify(JSON.parse(line)))
        .join('\n'),
    );
  });

  it('still verify, fold and project', () => {
    for (const journal of runs) {
      expect(verifyJournal(journal).ok).toBe(true);
      const state = projectRun(journal);
      expect(['completed', 'failed', 'cancelled']).toContain(state.status);
      expect(toTraceRecords(journal)).toHaveLength(journal.length);
      const calls = pairToolCalls(journal);
      expect(calls.length).toBe(journal.filter((e) => e.type === 'tool_call_start').length);
      const spans = toOtlp(journal).resourceSpans[0]!.scopeSpans[0]!.spans;
      const decided = pairApprovals(journal).filter((a) => a.decided).length;
      // A stage ends where the next begins, or at run_completed (a run cancelled mid-stage never ends its last one).
      const stageSeqs = journal.filter((e) => e.type === 'stage').map((e) => e.seq);
      const completedAt = journal.find((e) => e.type === 'run_completed')?.seq ?? -1;
      const stages = stageSeqs.filter((seq, i) => i < stageSeqs.length - 1 || completedAt > seq).length;
      expect(spans.length).toBe(1 + calls.filter((c) => c.end).length + decided + stages);
    }
  });

  it("replay through today's engine hash for hash, without calling a tool", async () => {
    for (const journal of runs) {
      const result = await replay(journal, registry());
      expect(result, journal[0]!.runId).toMatchObject({ ok: true, events: journal.length });
    }
  });

  it("import into a store and answer through today's orchestrator", async () => {
    const store = new InMemoryStore();
    for (const journal of runs) await importJournal(store, journal);
    const orchestrator = new Orchestrator({ registry: registry(), store });
    for (const journal of runs) {
      const outcome = await orchestrator.getRun(journal[0]!.runId);
      expect(outcome.head).toEqual({ seq: journal.at(-1)!.seq, hash: journal.at(-1)!.hash });
    }
  });
});
