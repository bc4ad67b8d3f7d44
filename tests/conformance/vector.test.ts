import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FlatVectorIndex, HashingEmbedder, InMemoryVectorBackend, KeywordIndex, SystemError, ValidationError } from '../../src/core/index.ts';
import { TopK } from '../../src/core/vector/topK.ts';

function bruteForce(vectors: Array<{ id: string; v: number[] }>, query: number[], k: number) {
  const unit = (v: number[]) => {
    const n = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
    return n === 0 ? v.map(() => 0) : v.map((x) => Math.fround(x / n));
  };
  const q = unit(query);
  return vectors
    .map(({ id, v }) => ({ id, score: unit(v).reduce((s, x, i) => s + x * q[i]!, 0) }))
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
    .slice(0, k);
}

describe('TopK', () => {
  it('keeps the k best with ties broken by id, whatever the insertion order', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 5 }), fc.string({ minLength: 1, maxLength: 3 })), { minLength: 1, maxLength: 60 }),
        fc.integer({ min: 1, max: 10 }),
        (items, k) => {
          const unique = [...new Map(items.map(([s, id]) => [id, s])).entries()];
          const top = new TopK(k);
          unique.forEach(([id, s], i) => top.push(s, id, i));
          const expected = unique
            .map(([id, score]) => ({ id, score }))
            .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
            .slice(0, k);
          expect(top.sorted().map(({ id, score }) => ({ id, score }))).toEqual(expected);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('FlatVectorIndex', () => {
  it('returns exactly the brute-force top-k (recall 1.0) in score order', () => {
    const dim = 8;
    const vec = fc.array(fc.integer({ min: -5, max: 5 }), { minLength: dim, maxLength: dim });
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.record({ id: fc.string({ minLength: 1, maxLength: 4 }), v: vec }), { selector: (r) => r.id, minLength: 1, maxLength: 40 }),
        vec,
        fc.integer({ min: 1, max: 12 }),
        (records, query, k) => {
          const index = new FlatVectorIndex(dim);
          index.upsert(records.map(({ id, v }) => ({ id, vector: Float32Array.from(v) })));
          const hits = index.search(Float32Array.from(query), { k });
          if (query.every((x) => x === 0)) return hits.length === 0;
          const expected = bruteForce(records, query, k);
          expect(hits.map((h) => h.id)).toEqual(expected.map((e) => e.id));
          hits.forEach((h, i) => expect(h.score).toBeCloseTo(expected[i]!.score, 5));
          return true;
        },
      ),
      { numRuns: 200 },
    );
  });

  it('scores sparse and dense queries exactly (both scan paths)', () => {
    const dim = 64;
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.integer({ min: -9, max: 9 }), { minLength: dim, maxLength: dim }), { minLength: 1, maxLength: 30 }),
        fc.uniqueArray(fc.integer({ min: 0, max: dim - 1 }), { minLength: 1, maxLength: dim }),
        (rows, nonZero) => {
          const records = rows.map((v, i) => ({ id: `r${String(i).padStart(2, '0')}`, v }));
          const index = new FlatVectorIndex(dim);
          index.upsert(records.map(({ id, v }) => ({ id, vector: Float32Array.from(v) })));
          const query = Array.from({ length: dim }, (_, i) => (nonZero.includes(i) ? (i % 7) - 3 || 1 : 0));
          const expected = bruteForce(records, query, 5);
          const hits = index.search(Float32Array.from(query), { k: 5 });
          expect(hits.map((h) => h.score)).toEqual(expected.map((e) => expect.closeTo(e.score, 5)));
          // Ids agree except where two scores tie to within float error.
          hits.forEach((h, i) => {
            if (h.id !== expected[i]!.id) expect(Math.abs(h.score - expected[i]!.score)).toBeLessThan(1e-6);
          });
        },
      ),
      { numRuns: 200 },
    );
  });

  it('replaces by id, deletes with swap-remove, and keeps metadata with the right row', () => {
    const index = new FlatVectorIndex(3);
    index.upsert([
      { id: 'a', vector: Float32Array.of(1, 0, 0), metadata: { n: 1 } },
      { id: 'b', vector: Float32Array.of(0, 1, 0), metadata: { n: 2 } },
      { id: 'c', vector: Float32Array.of(0, 0, 1), metadata: { n: 3 } },
    ]);
    index.upsert([{ id: 'a', vector: Float32Array.of(0, 0, 2), metadata: { n: 10 } }]);
    expect(index.size).toBe(3);
    expect(index.delete(['a', 'zzz'])).toBe(1);
    expect(index.size).toBe(2);
    const hits = index.search(Float32Array.of(0, 0, 1), { k: 5 });
    expect(hits[0]).toEqual({ id: 'c', score: 1, metadata: { n: 3 } });
    expect(hits[1]!.metadata).toEqual({ n: 2 });
  });

  it('grows in one contiguous buffer with bounded spare room, and compacts exactly', () => {
    const index = new FlatVectorIndex(16);
    const embedder = new HashingEmbedder({ dimension: 16 });
    for (let i = 0; i < 1000; i++) index.upsert([{ id: `d${i}`, vector: embedder.embed(`document number ${i}`) }]);
    expect(index.byteLength).toBeLessThanOrEqual(1000 * 16 * 4 * 1.25 + 64 * 16 * 4);
    index.compact();
    expect(index.byteLength).toBe(1000 * 16 * 4);
  });

  it('rejects wrong dimensions, non-finite values and bad ids without storing anything', () => {
    const index = new FlatVectorIndex(2);
    index.upsert([{ id: 'ok', vector: Float32Array.of(1, 1) }]);
    const bad = [
      [{ id: 'x', vector: Float32Array.of(1, 2, 3) }],
      [{ id: 'y', vector: Float32Array.of(Number.NaN, 1) }],
      [{ id: 'z', vector: Float32Array.of(Infinity, 1) }],
      [{ id: '', vector: Float32Array.of(1, 1) }],
      [{ id: 'w', vector: [1, 1] as unknown as Float32Array }],
      [
        { id: 'good', vector: Float32Array.of(1, 0) },
        { id: 'bad', vector: Float32Array.of(1) },
      ],
    ];
    for (const batch of bad) expect(() => index.upsert(batch)).toThrow(ValidationError);
    expect(index.ids()).toEqual(['ok']);
    expect(() => index.search(Float32Array.of(1))).toThrow(ValidationError);
    expect(() => new FlatVectorIndex(0)).toThrow(ValidationError);
  });
});

describe('InMemoryVectorBackend', () => {
  it('keeps profiles isolated for search, count and delete', async () => {
    const backend = new InMemoryVectorBackend(4);
    await expect(backend.count('p')).rejects.toBeInstanceOf(SystemError);
    await backend.connect();
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            profile: fc.constantFrom('alpha', 'beta', 'gamma'),
            id: fc.constantFrom('1', '2', '3', '4'),
            v: fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 4, maxLength: 4 }),
          }),
          { maxLength: 30 },
        ),
        async (writes) => {
          const fresh = new InMemoryVectorBackend(4);
          await fresh.connect();
          for (const w of writes) await fresh.upsert(w.profile, [{ id: w.id, vector: Float32Array.from(w.v), metadata: { profile: w.profile } }]);
          for (const profile of ['alpha', 'beta', 'gamma']) {
            const expectedIds = new Set(writes.filter((w) => w.profile === profile).map((w) => w.id));
            expect(await fresh.count(profile)).toBe(expectedIds.size);
            const hits = await fresh.search(profile, Float32Array.of(1, 1, 1, 1), { k: 10 });
            expect(hits.every((h) => h.metadata['profile'] === profile)).toBe(true);
            expect(new Set(hits.map((h) => h.id))).toEqual(expectedIds);
          }
          await fresh.delete('alpha', ['1', '2', '3', '4']);
          expect(await fresh.count('alpha')).toBe(0);
          expect(await fresh.count('beta')).toBe(new Set(writes.filter((w) => w.profile === 'beta').map((w) => w.id)).size);
        },
      ),
      { numRuns: 100 },
    );
    await expect(backend.search('../etc', Float32Array.of(1, 1, 1, 1))).rejects.toBeInstanceOf(ValidationError);
    expect(await backend.search('nobody', Float32Array.of(1, 0, 0, 0))).toEqual([]);
  });
});

describe('KeywordIndex', () => {
  it('matches whole words only and ranks deterministically by BM25, then id', () => {
    const index = new KeywordIndex();
    index.upsert('cats', 'The cat sat on the mat with another cat.');
    index.upsert('category', 'A category of concatenated things.');
    index.upsert('dogs', 'Dogs chase a cat sometimes.');
    index.upsert('tie-b', 'zebra');
    index.upsert('tie-a', 'zebra');
    const hits = index.search('cat');
    expect(hits.map((h) => h.id)).toEqual(['cats', 'dogs']);
    expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
    expect(hits[0]!.matched).toEqual(['cat']);
    expect(index.search('zebra').map((h) => h.id)).toEqual(['tie-a', 'tie-b']);
    expect(index.search('categ')).toEqual([]);
    index.delete(['cats']);
    expect(index.search('cat').map((h) => h.id)).toEqual(['dogs']);
    index.upsert('dogs', 'no felines here');
    expect(index.search('cat')).toEqual([]);
  });
});
