import { describe, expect, it } from 'vitest';
import { sealEvent, type JournalEvent } from '../journal/journal.ts';
import { HeadCache } from './headCache.ts';
import type { AppendBatch, JournalHead } from '../index.ts';

function append(runId: string, after: JournalEvent | undefined): AppendBatch & { last: JournalEvent } {
  const event = sealEvent(after, runId, 'stage', 1, { stage: 'initialize' });
  const head = { seq: event.seq, hash: event.hash };
  return {
    runId,
    events: [event],
    expectedHead: after ? { seq: after.seq, hash: after.hash } : null,
    run: { runId, traceId: 't', profile: 'p', goal: 'g', status: 'running', createdAt: 1, updatedAt: 1, head },
    last: event,
  };
}

const headOf = (event: JournalEvent): JournalHead => ({ seq: event.seq, hash: event.hash });

describe('HeadCache', () => {
  it('reads a run it never saw from storage, then trusts what it committed', () => {
    const cache = new HeadCache();
    const reads: string[] = [];
    const first = append('r', undefined);
    cache.checkSync(first, (runId) => (reads.push(runId), undefined));
    cache.stage(first);
    cache.commit();
    const second = append('r', first.last);
    cache.checkSync(second, () => {
      throw new Error('storage read for a head the cache holds');
    });
    expect(reads).toEqual(['r']);
    expect(cache.get('r')).toEqual(headOf(first.last));
  });

  it('lets storage decide when a committed head is stale, and refuses when storage agrees with the cache', async () => {
    const cache = new HeadCache();
    const first = append('r', undefined);
    cache.stage(first);
    cache.commit();
    const elsewhere = append('r', first.last);
    const next = append('r', elsewhere.last);
    await expect(cache.check(next, async () => headOf(elsewhere.last))).resolves.toBeUndefined();
    expect(() => cache.checkSync(append('r', elsewhere.last), () => headOf(first.last))).toThrow(expect.objectContaining({ code: 'head_mismatch' }));
  });

  it('never second-guesses a head staged in the open transaction, and forgets everything on clear', () => {
    const cache = new HeadCache();
    const first = append('r', undefined);
    cache.stage(first);
    const rival = append('r', undefined);
    // Storage cannot see the open transaction's write yet; it must not let a rival through.
    expect(() => cache.checkSync(rival, () => undefined)).toThrow(expect.objectContaining({ code: 'head_mismatch' }));
    cache.forget('r');
    expect(cache.get('r')).toEqual(headOf(first.last));
    cache.clear();
    expect(cache.get('r')).toBeUndefined();
  });
});
