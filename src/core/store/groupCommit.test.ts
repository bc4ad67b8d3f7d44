import { describe, expect, it } from 'vitest';
import { GroupCommit } from './groupCommit.ts';

const turn = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('GroupCommit', () => {
  it('commits the items of one turn together, refusing only the ones the writer refused', async () => {
    const groups: string[][] = [];
    const commits = new GroupCommit<string>({
      commit: (items) => (groups.push([...items]), new Map(items.flatMap((item, i) => (item.startsWith('bad') ? [[i, new Error(item)]] : [])))),
    });
    const results = await Promise.allSettled(['a', 'bad-b', 'c'].map((item) => commits.enqueue(item)));
    expect(groups).toEqual([['a', 'bad-b', 'c']]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toMatchObject({ message: 'bad-b' });
  });

  it('never overlaps two transactions: what arrives during one forms the next group', async () => {
    let open = 0;
    let most = 0;
    const groups: number[][] = [];
    const commits = new GroupCommit<number>({
      commit: async (items) => {
        most = Math.max(most, ++open);
        groups.push([...items]);
        await turn();
        await turn();
        open--;
        return new Map();
      },
    });
    const first = [commits.enqueue(1), commits.enqueue(2)];
    await turn();
    const second = [commits.enqueue(3), commits.enqueue(4)];
    await Promise.all([...first, ...second]);
    expect(most).toBe(1);
    expect(groups).toEqual([
      [1, 2],
      [3, 4],
    ]);
  });

  it('fails every item of a failed transaction, or retries them one at a time when told to', async () => {
    const failing = new GroupCommit<string>({
      commit: () => Promise.reject(new Error('disk')),
      failure: (error) => new Error(`wrapped ${(error as Error).message}`),
    });
    const all = await Promise.allSettled([failing.enqueue('a'), failing.enqueue('b')]);
    expect(all.map((r) => (r as PromiseRejectedResult).reason.message)).toEqual(['wrapped disk', 'wrapped disk']);

    const tried: string[][] = [];
    const retrying = new GroupCommit<string>({
      commit: (items) => {
        tried.push([...items]);
        if (items.includes('stale')) throw new Error('constraint');
        return new Map();
      },
      retryAlone: (error) => (error as Error).message === 'constraint',
    });
    const results = await Promise.allSettled(['a', 'stale', 'c'].map((item) => retrying.enqueue(item)));
    expect(tried).toEqual([['a', 'stale', 'c'], ['a'], ['stale'], ['c']]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  });

  it('commits each item alone when not coalescing, and a synchronous writer before flush returns', async () => {
    const groups: string[][] = [];
    const commits = new GroupCommit<string>({ commit: (items) => (groups.push([...items]), new Map()), coalesce: false });
    await Promise.all([commits.enqueue('a'), commits.enqueue('b')]);
    expect(groups).toEqual([['a'], ['b']]);

    const written: string[] = [];
    const queued = new GroupCommit<string>({ commit: (items) => (written.push(...items), new Map()), schedule: () => undefined });
    const pending = queued.enqueue('x');
    expect(queued.pending).toBe(1);
    void queued.flush();
    expect(written).toEqual(['x']);
    await pending;
  });
});
