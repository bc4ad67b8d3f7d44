import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FlatVectorIndex, InMemoryVectorBackend, ValidationError } from '../../src/core/index.ts';
import { createSeededRandom } from '../../src/core/testing.ts';
import { ChunkedRows, CHUNK_ROWS } from '../../src/core/vector/chunkedRows.ts';
import { IVF_FORMAT_VERSION } from '../../src/core/vector/ivfCodec.ts';
import { IvfVectorIndex } from '../../src/core/vector/ivfVectorIndex.ts';

/** `count` points in `clusters` seeded clusters: a random centre plus uniform noise. */
function clusteredRecords(count: number, dim: number, clusters: number, seed: number) {
  const random = createSeededRandom(seed);
  const centres = Array.from({ length: clusters }, () => Array.from({ length: dim }, () => random.next() * 2 - 1));
  return Array.from({ length: count }, (_, i) => {
    const centre = centres[Math.floor(random.next() * clusters)]!;
    return { id: `r${i}`, vector: Float32Array.from(centre, (v) => v + (random.next() - 0.5) * 0.6), metadata: { i } };
  });
}

/** The scan as the exact index does it: unit vectors, four accumulators by dimension mod 4. */
function naiveScores(rows: Float32Array[], query: Float32Array): number[] {
  const unit = (v: Float32Array) => {
    let n = 0;
    for (const x of v) n += x * x;
    const scale = n === 0 ? 0 : 1 / Math.sqrt(n);
    return Float32Array.from(v, (x) => x * scale);
  };
  const q = unit(query);
  const nonZero = q.filter((x) => x !== 0).length;
  return rows.map((row) => {
    const v = unit(row);
    if (nonZero * 4 <= q.length) {
      let s = 0;
      for (let i = 0; i < q.length; i++) if (q[i] !== 0) s += q[i]! * v[i]!;
      return s;
    }
    const acc = [0, 0, 0, 0];
    const body = q.length - (q.length % 4);
    for (let i = 0; i < body; i++) acc[i % 4] = acc[i % 4]! + q[i]! * v[i]!;
    for (let i = body; i < q.length; i++) acc[0] = acc[0]! + q[i]! * v[i]!;
    return acc[0]! + acc[1]! + (acc[2]! + acc[3]!);
  });
}

const ids = (hits: Array<{ id: string }>) => hits.map((h) => h.id);

describe('exact kernel over chunked rows', () => {
  it('scores every row bit for bit as the naive scan (sparse and dense queries), across chunk boundaries and after deletes', () => {
    const dim = 12;
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: CHUNK_ROWS * 2 + 40 }),
        fc.array(fc.float({ min: -4, max: 4, noNaN: true }), { minLength: dim, maxLength: dim }),
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        fc.integer({ min: 0, max: 50 }),
        // The dimensions the query keeps: three or fewer take the sparse path.
        fc.uniqueArray(fc.integer({ min: 0, max: dim - 1 }), { maxLength: dim }),
        (count, values, seed, deletes, kept) => {
          const query = values.map((v, i) => (kept.includes(i) ? v : 0));
          const random = createSeededRandom(seed);
          const rows = Array.from({ length: count }, () => Float32Array.from({ length: dim }, () => Math.round((random.next() * 2 - 1) * 8) / 4));
          const index = new FlatVectorIndex(dim);
          index.upsert(rows.map((vector, i) => ({ id: `r${String(i).padStart(5, '0')}`, vector })));
          const gone = new Set(Array.from({ length: deletes }, () => `r${String(Math.floor(random.next() * count)).padStart(5, '0')}`));
          index.delete([...gone]);
          const q = Float32Array.from(query);
          const scores = naiveScores(rows, q);
          const expected = scores
            .map((score, i) => ({ id: `r${String(i).padStart(5, '0')}`, score }))
            .filter((e) => !gone.has(e.id))
            .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
            .slice(0, 10);
          const hits = index.search(q, { k: 10 });
          if (q.every((x) => x === 0) || index.size === 0) return hits.length === 0;
          expect(hits.map(({ id, score }) => ({ id, score }))).toEqual(expected);
          return true;
        },
      ),
      { numRuns: 60 },
    );
  });

  it('grows by chunks: at most one partial chunk of spare room, and compacts to the exact size', () => {
    const rows = new ChunkedRows(8);
    for (let n = 1; n <= CHUNK_ROWS * 3 + 5; n += 97) {
      rows.ensure(n);
      expect(rows.capacity).toBeGreaterThanOrEqual(n);
      expect(rows.capacity - n).toBeLessThan(CHUNK_ROWS);
      rows.chunks.slice(0, -1).forEach((chunk) => expect(chunk.length).toBe(CHUNK_ROWS * 8));
    }
    rows.shrink(CHUNK_ROWS + 3);
    expect(rows.byteLength).toBe((CHUNK_ROWS + 3) * 8 * 4);
  });
});

describe('IvfVectorIndex', () => {
  const dim = 16;
  const records = clusteredRecords(4000, dim, 40, 3);
  const queries = clusteredRecords(50, dim, 40, 3).map((r, i) => {
    const v = r.vector.slice();
    v[i % dim] = v[i % dim]! + 0.1;
    return v;
  });
  const build = (rows = records) => {
    const index = new IvfVectorIndex(dim, { trainAt: 1000 });
    for (let i = 0; i < rows.length; i += 500) index.upsert(rows.slice(i, i + 500));
    index.train();
    return index;
  };

  it('finds the exact top 10 for most queries, with exact scores', () => {
    const index = build();
    const flat = new FlatVectorIndex(dim);
    flat.upsert(records);
    expect(index.lists).toBe(Math.round(Math.sqrt(records.length)));
    let found = 0;
    for (const q of queries) {
      const truth = flat.search(q, { k: 10 });
      const scores = new Map(truth.map((h) => [h.id, h.score]));
      const hits = index.search(q, { k: 10 });
      for (const hit of hits) {
        if (!scores.has(hit.id)) continue;
        found++;
        expect(hit.score).toBe(scores.get(hit.id));
      }
      expect(index.search(q, { k: 10, exact: true })).toEqual(truth);
    }
    expect(found / (queries.length * 10)).toBeGreaterThanOrEqual(0.9);
  });

  it('scans every row until it holds trainAt records, then trains at the next search', () => {
    const index = new IvfVectorIndex(dim, { trainAt: 3000 });
    const flat = new FlatVectorIndex(dim);
    index.upsert(records.slice(0, 2999));
    flat.upsert(records.slice(0, 2999));
    expect(index.search(queries[0]!)).toEqual(flat.search(queries[0]!));
    expect(index.trained).toBe(false);
    index.upsert(records.slice(2999, 3000));
    index.search(queries[0]!);
    expect(index.trained).toBe(true);
  });

  it('honours deletes and replacements after training', () => {
    const index = build();
    const q = queries[1]!;
    const first = ids(index.search(q, { k: 5 }));
    expect(index.delete([first[0]!, first[2]!, 'absent'])).toBe(2);
    const after = ids(index.search(q, { k: 5, probes: 10_000 }));
    expect(after).not.toContain(first[0]);
    expect(after).not.toContain(first[2]);
    // Replace a far record with the query itself: it becomes the best hit, found through its new list.
    const far = ids(
      index.search(
        q.map((v) => -v),
        { k: 1, exact: true },
      ),
    )[0]!;
    index.upsert([{ id: far, vector: q, metadata: { moved: true } }]);
    expect(index.search(q, { k: 1 })[0]).toMatchObject({ id: far, metadata: { moved: true } });
    expect(index.size).toBe(records.length - 2);
    index.delete(index.ids());
    expect(index.size).toBe(0);
    expect([index.trained, index.lists]).toEqual([false, 0]);
    expect(index.search(q)).toEqual([]);
  });

  it('is deterministic: the same writes give the same results and the same bytes', () => {
    const a = build();
    const b = build();
    for (const q of queries.slice(0, 10)) expect(a.search(q)).toEqual(b.search(q));
    expect(a.serialise()).toEqual(b.serialise());
  });

  it('reloads its serialised structure without training, whatever order the rows come back in', () => {
    const index = build();
    const bytes = index.serialise()!;
    expect(new DataView(bytes.buffer).getUint32(4, true)).toBe(IVF_FORMAT_VERSION);
    const reloaded = new IvfVectorIndex(dim, { trainAt: 1000 });
    reloaded.upsert([...records].reverse());
    reloaded.restore(bytes);
    expect(reloaded.trained).toBe(true);
    for (const q of queries) expect(reloaded.search(q)).toEqual(index.search(q));
    expect(reloaded.serialise()!.length).toBe(bytes.length);
  });

  it('refuses malformed structures and keeps what it had', () => {
    const index = build();
    const bytes = index.serialise()!;
    const before = index.search(queries[2]!);
    const wrongVersion = bytes.slice();
    new DataView(wrongVersion.buffer).setUint32(4, IVF_FORMAT_VERSION + 1, true);
    for (const bad of [new Uint8Array(3), bytes.slice(0, bytes.length - 1), wrongVersion, Uint8Array.from(bytes, (b, i) => (i < 4 ? 0 : b))]) {
      expect(() => index.restore(bad)).toThrow(ValidationError);
    }
    expect(() => new IvfVectorIndex(dim + 1).restore(bytes)).toThrow(ValidationError);
    expect(index.search(queries[2]!)).toEqual(before);
  });
});

describe('InMemoryVectorBackend index choice', () => {
  it('answers exactly below the threshold and approximately above it; exact on request', async () => {
    const dim = 16;
    const records = clusteredRecords(3000, dim, 30, 9);
    const exact = new InMemoryVectorBackend(dim, { index: 'exact' });
    const auto = new InMemoryVectorBackend(dim, { approximateAbove: 2000 });
    await exact.connect();
    await auto.connect();
    await exact.upsert('p', records.slice(0, 1999));
    await auto.upsert('p', records.slice(0, 1999));
    const q = records[5]!.vector;
    expect(await auto.search('p', q)).toEqual(await exact.search('p', q));
    await exact.upsert('p', records.slice(1999));
    await auto.upsert('p', records.slice(1999));
    const truth = await exact.search('p', q, { k: 10 });
    expect(await auto.search('p', q, { k: 10, exact: true })).toEqual(truth);
    const approximate = await auto.search('p', q, { k: 10 });
    expect(approximate.filter((h) => truth.some((t) => t.id === h.id)).length).toBeGreaterThanOrEqual(8);
    await expect(auto.search('p', q, { probes: 0 })).rejects.toBeInstanceOf(ValidationError);
    expect(() => new InMemoryVectorBackend(dim, { index: 'fast' as never })).toThrow(ValidationError);
  });
});
