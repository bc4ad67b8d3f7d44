import { describe, expect, it } from 'vitest';
import { parseJournal, verifyJournal, type JournalEvent } from '../../src/core/index.ts';
import { assertReplays, projectRun, sealEvent } from '../../src/core/testing.ts';
import golden from '../fixtures/agent-journals.ndjson?raw';
import { goldenAgentRegistry } from '../support/goldenAgentRegistry.ts';

// Golden agent journals (tests/fixtures/makeAgentJournals.ts): recorded agent runs replayed
// against the current code on every test run. A change to the prompts, to the tool schemas the
// model is shown or to the loop's decisions fails here, at the seq where it changes the journal.

const runs: JournalEvent[][] = [];
for (const event of parseJournal(golden)) {
  if (event.seq === 0) runs.push([]);
  runs.at(-1)!.push(event);
}

describe('golden agent journals', () => {
  it('cover the model events, fallbacks, invalid calls, approvals, phase 1 and review', () => {
    expect(runs.map((run) => run[0]!.runId)).toEqual(['golden-loop', 'golden-fallback', 'golden-phases']);
    const types = new Set(runs.flat().map((e) => e.type));
    for (const type of ['model_call_start', 'model_call_complete', 'model_call_error', 'agent_turn', 'approval_received'] as const)
      expect(types).toContain(type);
    const purposes = runs.flat().flatMap((e) => (e.type === 'model_call_start' && e.data.purpose ? [e.data.purpose] : []));
    expect(new Set(purposes)).toEqual(new Set(['preplan', 'review']));
    for (const run of runs) {
      expect(verifyJournal(run).ok).toBe(true);
      expect(projectRun(run).status).toBe('completed');
    }
  });

  it('replay through the current engine hash for hash, without a provider or a tool', async () => {
    for (const run of runs) await assertReplays(run, goldenAgentRegistry());
  });

  it('fail at the seq of a request the current code would not send', async () => {
    const run = runs[0]!;
    const start = run.find((e) => e.type === 'model_call_start' && e.data.turn === 2)!;
    const changed: JournalEvent[] = [];
    for (const e of run) {
      const data = e.seq === start.seq && e.type === 'model_call_start' ? { ...e.data, requestHash: '0'.repeat(64) } : e.data;
      changed.push(sealEvent(changed.at(-1), e.runId, e.type, e.at, data as never) as JournalEvent);
    }
    await expect(assertReplays(changed, goldenAgentRegistry())).rejects.toThrow(
      new RegExp(`journals differ at seq ${start.seq}: recorded has model_call_start`),
    );
  });
});
