import { describe, expect, it } from 'vitest';
import { IvfVectorIndex } from '../../src/core/vector/ivfVectorIndex.ts';
import { ANN_DIM, annRecords } from '../support/annFixture.ts';

/** One macrotask turn: timers queued before it run first. */
const turn = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

function filled(count = 3000): IvfVectorIndex {
  const index = new IvfVectorIndex(ANN_DIM, { trainAt: 1000 });
  index.upsert(annRecords(count));
  return index;
}

function trainedNow(): Uint8Array {
  const index = filled();
  index.train();
  return index.serialise()!;
}

describe('IvfVectorIndex.trainInSlices', () => {
  it('lets timers run between its slices and ends with the bytes train() gives', async () => {
    const index = filled();
    let slices = 0;
    let heartbeats = 0;
    let beating = true;
    const beat = () => {
      heartbeats++;
      if (beating) setTimeout(beat, 0);
    };
    setTimeout(beat, 0);
    const build = index.trainInSlices(() => (slices++, turn()));
    expect(index.trained).toBe(false);
    expect(index.needsTraining).toBe(true);
    await build;
    beating = false;
    expect(index.trained).toBe(true);
    expect(index.needsTraining).toBe(false);
    expect(slices).toBeGreaterThan(10);
    // The heartbeat is re-armed once per turn, so it ran in most of the turns the build gave up.
    expect(heartbeats).toBeGreaterThan(slices / 2);
    expect(index.serialise()).toEqual(trainedNow());
  });

  it('shares one build between concurrent calls', async () => {
    const index = filled();
    let slices = 0;
    const count = () => (slices++, turn());
    const first = index.trainInSlices(count);
    const second = index.trainInSlices(count);
    expect(second).toBe(first);
    await Promise.all([first, second]);
    const once = slices;
    const again = filled();
    let alone = 0;
    await again.trainInSlices(() => (alone++, turn()));
    expect(once).toBe(alone);
  });

  it('gives the same bytes whichever slice the writes land in', async () => {
    const extra = annRecords(3300, 9).slice(3000);
    const replaced = annRecords(60, 11).map((r, i) => ({ ...r, id: `r${10 + i}` }));
    const removed = Array.from({ length: 100 }, (_, i) => `r${2000 + i * 7}`);
    const total = await (async () => {
      let slices = 0;
      await filled().trainInSlices(() => (slices++, turn()));
      return slices;
    })();
    const withWritesAfter = async (turns: number) => {
      const index = filled();
      const build = index.trainInSlices(turn);
      for (let i = 0; i < turns; i++) await turn();
      expect(index.trained).toBe(false);
      index.upsert(extra);
      index.delete(removed.slice(0, 50));
      index.upsert(replaced);
      index.delete(removed.slice(50));
      await build;
      expect(index.size).toBe(3000 + extra.length - removed.length);
      return index.serialise()!;
    };
    const early = await withWritesAfter(0);
    // Some while k-means runs, some while rows are filed (the last third of the slices).
    for (const turns of [3, Math.floor(total / 2), total - 5]) expect(await withWritesAfter(turns)).toEqual(early);
    expect(early).not.toEqual(trainedNow());
  });

  it('is abandoned by a synchronous train() and by emptying the index', async () => {
    const index = filled();
    const build = index.trainInSlices(turn);
    await turn();
    await turn();
    index.train();
    await build;
    expect(index.serialise()).toEqual(trainedNow());

    const emptied = filled();
    const pending = emptied.trainInSlices(turn);
    await turn();
    emptied.delete(emptied.ids());
    await pending;
    expect([emptied.trained, emptied.size, emptied.lists]).toEqual([false, 0, 0]);
  });
});
