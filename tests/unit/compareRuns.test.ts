import { describe, expect, it } from 'vitest';
import { InMemoryStore, Orchestrator, ToolRegistry, createRandomIds, registerBuiltinTools, toTraceRecords } from '../../src/core/index.ts';
import { steppingClock } from '../../src/core/testing.ts';
import { firstDivergence } from '../../src/web/dashboard/compare.ts';

async function records(goal: string, start: number) {
  const registry = new ToolRegistry();
  registerBuiltinTools(registry);
  const store = new InMemoryStore();
  // Different ids and clocks for each run, as two real runs have.
  const o = new Orchestrator({ registry, store, ids: createRandomIds(), clock: steppingClock(start, 7), sleep: async () => undefined });
  const outcome = await o.start(goal, 'demo');
  return toTraceRecords(await store.readJournal(outcome.runId));
}

describe('comparing two runs', () => {
  it('finds no divergence between two runs of the same goal, whatever their ids and times', async () => {
    expect(
      firstDivergence(await records('add 2 and 3 then multiply the result by 4', 1_000), await records('add 2 and 3 then multiply the result by 4', 99_000)),
    ).toBe(undefined);
  });

  it('finds the first event where two runs did something different, and the fields', async () => {
    const a = await records('add 2 and 3 then multiply the result by 4', 1_000);
    const b = await records('add 2 and 3 then multiply the result by 5', 5_000);
    const difference = firstDivergence(a, b)!;
    expect(difference.seq).toBe(0);
    expect(difference.fields.map((f) => f.path)).toContain('.data.inputs.goal');
    // A run that stops early ends where the other goes on.
    const short = await records('add 2 and 3', 1_000);
    const longer = await records('add 2 and 3', 2_000);
    const ended = firstDivergence(short, longer.slice(0, -2))!;
    expect(ended.seq).toBe(longer.length - 2);
    expect(ended.a?.type).toBe(short[longer.length - 2]!.type);
    expect(ended.b).toBeUndefined();
  });
});
