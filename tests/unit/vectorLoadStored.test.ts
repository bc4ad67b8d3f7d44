import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FlatVectorIndex, createVectorIndex } from '../../src/core/vector/flatVectorIndex.ts';
import type { IvfVectorIndex } from '../../src/core/vector/ivfVectorIndex.ts';

// A persisted profile starts from its vector snapshot: the stored (already normalised) rows are
// taken as they are instead of being validated and normalised again one record at a time. The
// index that results must be the one the snapshot was taken of, vector for vector.

const DIM = 16;

function stored(index: FlatVectorIndex | IvfVectorIndex): { ids: string[]; vectors: Float32Array } {
  const ids = index.ids();
  const vectors = new Float32Array(ids.length * DIM);
  ids.forEach((id, row) => vectors.set(index.get(id)!.vector, row * DIM));
  return { ids, vectors };
}

const records = fc.uniqueArray(
  fc.record({
    id: fc.string({ minLength: 1, maxLength: 12 }),
    vector: fc.array(fc.float({ min: -1, max: 1, noNaN: true }), { minLength: DIM, maxLength: DIM }),
  }),
  { selector: (r) => r.id, minLength: 1, maxLength: 300 },
);

describe('loading stored rows into an index', () => {
  it('rebuilds exactly the index the rows were taken from, exact and approximate alike', () => {
    fc.assert(
      fc.property(records, fc.constantFrom<'exact' | 'approximate'>('exact', 'approximate'), (input, kind) => {
        const original = createVectorIndex(DIM, { index: kind });
        original.upsert(input.map((r) => ({ id: r.id, vector: Float32Array.from(r.vector) })));
        const { ids, vectors } = stored(original);
        const loaded = createVectorIndex(DIM, { index: kind });
        loaded.loadStored(ids, vectors);
        expect(loaded.size).toBe(original.size);
        for (const id of ids) expect(loaded.get(id)).toEqual(original.get(id));
        const query = Float32Array.from(input[0]!.vector);
        expect(loaded.search(query, { k: 5 })).toEqual(original.search(query, { k: 5 }));
        // A later write lands as in any index.
        loaded.upsert([{ id: 'later', vector: new Float32Array(DIM).fill(0.5) }]);
        expect(loaded.has('later') && loaded.size === original.size + 1).toBe(true);
      }),
      { numRuns: 60 },
    );
  });

  it('refuses rows it cannot trust, and a non-empty index, changing nothing', () => {
    const index = new FlatVectorIndex(2);
    expect(() => index.loadStored(['a', 'a'], new Float32Array(4))).toThrow(expect.objectContaining({ code: 'invalid_record_id' }));
    expect(() => index.loadStored(['a', ''], new Float32Array(4))).toThrow(expect.objectContaining({ code: 'invalid_record_id' }));
    expect(() => index.loadStored(['a'], new Float32Array(3))).toThrow(expect.objectContaining({ code: 'dimension_mismatch' }));
    expect(() => index.loadStored(['a', 'b'], Float32Array.from([1, 0, Number.NaN, 1]))).toThrow(expect.objectContaining({ code: 'non_finite_vector' }));
    expect(() => index.loadStored(['a'], Float32Array.from([Number.POSITIVE_INFINITY, 0]))).toThrow(expect.objectContaining({ code: 'non_finite_vector' }));
    expect(() => index.loadStored(['a'], Float32Array.from([0, Number.NEGATIVE_INFINITY]))).toThrow(expect.objectContaining({ code: 'non_finite_vector' }));
    // Any NaN bits (here negative, with a payload) are found, and the error names the row.
    const odd = new Float32Array(4);
    new Uint32Array(odd.buffer)[3] = 0xffc01234;
    expect(() => index.loadStored(['a', 'b'], odd)).toThrow(/stored row 1 has a non-finite value/);
    // Chunks must hold 1,024 rows each but the last, and be as many as the rows need.
    const rows = Array.from({ length: 1_030 }, (_, i) => `r${i}`);
    expect(() => index.loadStored(rows, [new Float32Array(1_000 * 2), new Float32Array(30 * 2)])).toThrow(
      expect.objectContaining({ code: 'dimension_mismatch' }),
    );
    expect(() => index.loadStored(rows.slice(0, 1_024), [new Float32Array(1_024 * 2), new Float32Array(0)])).toThrow(
      expect.objectContaining({ code: 'dimension_mismatch' }),
    );
    expect(() => index.loadStored(['a'], [Float32Array.from([Number.NaN, 0])])).toThrow(expect.objectContaining({ code: 'non_finite_vector' }));
    expect(index.size).toBe(0);
    index.loadStored(['a'], Float32Array.from([1, 0]));
    expect(() => index.loadStored(['b'], Float32Array.from([0, 1]))).toThrow(expect.objectContaining({ code: 'index_not_empty' }));
    expect(index.ids()).toEqual(['a']);
  });

  it('finds a non-finite value among any bits at any position, and only then', () => {
    // Every float32 bit pattern is drawn, NaNs with payloads and both infinities among them, in
    // arrays of any length (the check reads four values a pass, then the rest one at a time).
    const bits = fc.oneof(fc.integer({ min: 0, max: 0xffffffff }), fc.constantFrom(0x7f800000, 0xff800000, 0x7fc00000, 0xffffffff, 0x7f7fffff, 0x00800000));
    fc.assert(
      fc.property(fc.array(bits, { minLength: 1, maxLength: 41 }), (pattern) => {
        const dim = pattern.length;
        const vectors = new Float32Array(new Uint32Array(pattern).buffer);
        const firstBad = [...vectors].findIndex((value) => !Number.isFinite(value));
        const index = new FlatVectorIndex(dim);
        if (firstBad < 0) {
          index.loadStored(['a'], vectors);
          expect(index.size).toBe(1);
        } else {
          expect(() => index.loadStored(['a'], vectors)).toThrow(expect.objectContaining({ code: 'non_finite_vector' }));
          expect(index.size).toBe(0);
        }
      }),
      { numRuns: 2_000 },
    );
  });

  it('keeps the stored rows as its storage across several chunks, and stays the index they came from through deletes and writes', () => {
    const dim = 4;
    const count = 2_500; // more than two chunks of 1,024 rows
    const records = Array.from({ length: count }, (_, i) => ({ id: `r${i}`, vector: Float32Array.from([i % 7, (i % 5) - 2, 1, i / count]) }));
    for (const kind of ['exact', 'approximate'] as const) {
      const original = createVectorIndex(dim, { index: kind }, count);
      original.upsert(records);
      const ids = original.ids();
      const vectors = new Float32Array(ids.length * dim);
      ids.forEach((id, row) => vectors.set(original.get(id)!.vector, row * dim));
      const loaded = createVectorIndex(dim, { index: kind }, count);
      // Handed over in one array, or in chunks of 1,024 rows as a snapshot read in parts gives them.
      const chunks = [0, 1, 2].map((c) => vectors.slice(c * 1_024 * dim, Math.min(count, (c + 1) * 1_024) * dim));
      const fromChunks = createVectorIndex(dim, { index: kind }, count);
      fromChunks.loadStored(ids, chunks);
      loaded.loadStored(ids, vectors);
      // No copy: a write to a loaded row lands in the buffer handed over.
      loaded.upsert([{ id: ids[2_049]!, vector: Float32Array.from([0, 0, 0, 1]) }]);
      fromChunks.upsert([{ id: ids[2_049]!, vector: Float32Array.from([0, 0, 0, 1]) }]);
      expect([...vectors.subarray(2_049 * dim, 2_050 * dim)]).toEqual([0, 0, 0, 1]);
      expect([...chunks[2]!.subarray(1 * dim, 2 * dim)]).toEqual([0, 0, 0, 1]);
      for (const id of ids.slice(0, 50)) expect(fromChunks.get(id)).toEqual(loaded.get(id));
      original.upsert([{ id: ids[2_049]!, vector: Float32Array.from([0, 0, 0, 1]) }]);
      const gone = ids.filter((_, i) => i % 3 === 0);
      expect(loaded.delete(gone)).toBe(original.delete(gone));
      const added = [{ id: 'new', vector: Float32Array.from([1, 1, 1, 1]) }];
      loaded.upsert(added);
      original.upsert(added);
      expect(loaded.ids().sort()).toEqual(original.ids().sort());
      for (const id of loaded.ids()) expect(loaded.get(id)).toEqual(original.get(id));
      const query = Float32Array.from([3, -1, 1, 0.5]);
      expect(loaded.search(query, { k: 10, exact: true })).toEqual(original.search(query, { k: 10, exact: true }));
    }
  });
});
