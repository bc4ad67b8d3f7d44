import { describe, expect, it } from 'vitest';
import { InMemoryStore, Orchestrator, ToolRegistry, canonicalJson, createRandomIds, registerBuiltinTools, type AppendBatch } from '../../src/core/index.ts';
import { steppingClock } from '../../src/core/testing.ts';

/** An in-memory store that keeps every batch it is given. */
class RecordingStore extends InMemoryStore {
  readonly batches: AppendBatch[] = [];

  override async append(batch: AppendBatch): Promise<void> {
    this.batches.push(batch);
    await super.append(batch);
  }
}

describe('the data texts an append carries', () => {
  it('are, for every event the orchestrator appends, the canonical JSON its hash covers', async () => {
    const registry = new ToolRegistry();
    registerBuiltinTools(registry);
    const store = new RecordingStore();
    const orchestrator = new Orchestrator({ registry, store, ids: createRandomIds(), clock: steppingClock(1_000, 3), sleep: async () => undefined });
    const outcome = await orchestrator.start('add 2 and 3 then multiply the result by 4', 'demo');
    expect(outcome.status).toBe('completed');
    // The first event (the run's inputs) and every later append.
    expect(store.batches.length).toBeGreaterThan(3);
    for (const batch of store.batches) expect(batch.dataTexts).toEqual(batch.events.map((event) => canonicalJson(event.data)));
  });
});
