import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { prepareQuery, scoreRow } from './dotKernel.ts';

/** The dense dot product as the four-wide loop summed it: accumulator j adds dimensions ≡ j (mod 4) in order, the remainder into the first. */
function fourWide(q: Float32Array, row: Float32Array): number {
  const sums = [0, 0, 0, 0];
  const body = q.length - (q.length & 3);
  for (let i = 0; i < body; i++) sums[i & 3]! += q[i]! * row[i]!;
  for (let i = body; i < q.length; i++) sums[0]! += q[i]! * row[i]!;
  return sums[0]! + sums[1]! + (sums[2]! + sums[3]!);
}

const finite = fc.float({ min: -4, max: 4, noNaN: true, noDefaultInfinity: true });

describe('scoreRow', () => {
  it('sums a dense query in the four-wide order, bit for bit, at every dimension', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 70 }).chain((dim) =>
          fc.tuple(
            // Within a few orders of magnitude of each other: no value rounds to zero at unit length, so the query stays dense.
            fc.array(
              fc.integer({ min: 1, max: 4000 }).chain((v) => fc.constantFrom(v / 997, -v / 997)),
              { minLength: dim, maxLength: dim },
            ),
            fc.array(finite, { minLength: dim * 3, maxLength: dim * 3 }),
          ),
        ),
        ([values, rows]) => {
          const query = Float32Array.from(values);
          const prepared = prepareQuery(query, query.length)!;
          expect(prepared.at).toBeNull();
          const unit = Float32Array.from(prepared.q);
          const data = Float32Array.from(rows);
          for (let r = 0; r < 3; r++) {
            const base = r * query.length;
            expect(Object.is(scoreRow(prepared, data, base), fourWide(unit, data.subarray(base, base + query.length)))).toBe(true);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('gathers a sparse query: its non-zero dimensions only, summed in order', () => {
    const dim = 64;
    const query = new Float32Array(dim);
    query[3] = 0.5;
    query[40] = -0.25;
    query[63] = 2;
    const prepared = prepareQuery(query, dim)!;
    expect(prepared.at).toEqual([3, 40, 63]);
    const row = Float32Array.from({ length: dim }, (_, i) => Math.fround((i % 7) - 3.5));
    const expected = prepared.q[3]! * row[3]! + prepared.q[40]! * row[40]! + prepared.q[63]! * row[63]!;
    expect(scoreRow(prepared, row, 0)).toBe(expected);
  });

  it('rounds the unit-length query to float32, as stored rows are', () => {
    const query = Float32Array.from([1, 2, 3, 4, 5]);
    const prepared = prepareQuery(query, 5)!;
    const norm = Math.sqrt(1 + 4 + 9 + 16 + 25);
    expect(prepared.q).toEqual([1, 2, 3, 4, 5].map((v) => Math.fround(v * (1 / norm))));
    expect(prepareQuery(new Float32Array(5), 5)).toBeNull();
  });
});
