import { ValidationError } from '../errors.ts';
import { CHUNK_MASK, CHUNK_SHIFT } from './chunkedRows.ts';
import type { TopK } from './topK.ts';

/** A query with at most 1/SPARSE_RATIO of its dimensions non-zero is scored by gathering only those. */
const SPARSE_RATIO = 4;

/**
 * A unit-length query ready to score rows. Short queries embed to a few non-zero dimensions:
 * gathering only those is the same dot product with a fraction of the work. Which path runs
 * depends only on the query, so the same query always gets the same scores.
 *
 * Its values are held in plain arrays, not typed ones, on purpose: once any ArrayBuffer in the
 * process has been detached (Node does it whenever a WHATWG Request, Response or Blob body is
 * read, so any server or fetch), V8 checks every typed-array access for detachment, and a scan
 * that read both the query and the rows from typed arrays took 41–61 ms per 100k × 256 query
 * against 26 ms in a process where nothing was detached; with the query in plain arrays (and
 * eight dimensions a turn, below), 28 ms.
 */
export interface PreparedQuery {
  /** The unit-length query, each value rounded to float32 as a stored row is. */
  readonly q: readonly number[];
  /** The non-zero dimensions and their weights when the query is sparse, else null. */
  readonly at: readonly number[] | null;
  readonly weight: readonly number[] | null;
}

/**
 * A plain array that V8 keeps as unboxed doubles whatever values it later holds (the double
 * literal gives it that elements kind, which never reverts), so the kernels below always see one
 * array shape.
 */
function doubles(): number[] {
  const out = [0.5];
  out.length = 0;
  return out;
}

/** Validate `query` and scale it to unit length; null for the zero vector (which matches nothing). */
export function prepareQuery(query: Float32Array, dimension: number): PreparedQuery | null {
  if (!(query instanceof Float32Array) || query.length !== dimension) {
    throw new ValidationError(`query must be a Float32Array of ${dimension} dimensions`, { code: 'dimension_mismatch' });
  }
  let norm = 0;
  for (let i = 0; i < query.length; i++) {
    const v = query[i]!;
    if (!Number.isFinite(v)) throw new ValidationError(`query has a non-finite value at ${i}`, { code: 'non_finite_vector' });
    norm += v * v;
  }
  if (norm === 0) return null;
  const inverse = 1 / Math.sqrt(norm);
  const q = doubles();
  let nonZero = 0;
  for (let i = 0; i < dimension; i++) {
    const v = Math.fround(query[i]! * inverse);
    q.push(v);
    if (v !== 0) nonZero++;
  }
  if (nonZero * SPARSE_RATIO > dimension) return { q, at: null, weight: null };
  const at: number[] = [];
  const weight = doubles();
  for (let i = 0; i < dimension; i++) {
    if (q[i] !== 0) {
      at.push(i);
      weight.push(q[i]!);
    }
  }
  return { q, at, weight };
}

/**
 * The dot product of a prepared query with the row at `base` of `data`. Dense queries sum with
 * four independent accumulators (so the engine overlaps the multiplies), always in the same
 * order, so a row scores the same bits wherever it is stored and whichever index scans it.
 */
export function scoreRow(query: PreparedQuery, data: Float32Array, base: number): number {
  const at = query.at;
  if (at !== null) {
    const weight = query.weight!;
    let score = 0;
    for (let j = 0; j < at.length; j++) score += weight[j]! * data[base + at[j]!]!;
    return score;
  }
  const q = query.q;
  const dim = q.length;
  // Eight values a turn, then four, then one: each accumulator still adds dimensions i ≡ its
  // index (mod 4) in ascending order, so the sums are those of a four-wide loop, bit for bit, in
  // fewer turns (10–16 % faster).
  const body = dim - (dim & 7);
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let i = 0;
  for (; i < body; i += 8) {
    s0 += q[i]! * data[base + i]!;
    s1 += q[i + 1]! * data[base + i + 1]!;
    s2 += q[i + 2]! * data[base + i + 2]!;
    s3 += q[i + 3]! * data[base + i + 3]!;
    s0 += q[i + 4]! * data[base + i + 4]!;
    s1 += q[i + 5]! * data[base + i + 5]!;
    s2 += q[i + 6]! * data[base + i + 6]!;
    s3 += q[i + 7]! * data[base + i + 7]!;
  }
  if (dim - i >= 4) {
    s0 += q[i]! * data[base + i]!;
    s1 += q[i + 1]! * data[base + i + 1]!;
    s2 += q[i + 2]! * data[base + i + 2]!;
    s3 += q[i + 3]! * data[base + i + 3]!;
    i += 4;
  }
  for (; i < dim; i++) s0 += q[i]! * data[base + i]!;
  return s0 + s1 + (s2 + s3);
}

/** Where a scan keeps its results: the heap, a score floor, and each row's id. */
export interface ScanTarget {
  top: TopK;
  floor: number;
  ids: readonly string[];
}

/** Score rows `0 … count-1` of chunked storage into `target.top`. */
export function scanChunks(query: PreparedQuery, chunks: readonly Float32Array[], count: number, target: ScanTarget): void {
  const { top, floor, ids } = target;
  const dim = query.q.length;
  let threshold = top.threshold;
  for (let c = 0, row = 0; row < count; c++) {
    const data = chunks[c]!;
    const end = Math.min(count, row + data.length / dim);
    for (let base = 0; row < end; row++, base += dim) {
      const score = scoreRow(query, data, base);
      if (score < floor || score < threshold) continue;
      top.push(score, ids[row]!, row);
      threshold = top.threshold;
    }
  }
}

/** Score the listed rows (`rows[0 … count-1]`) of chunked storage into `target.top`. */
export function scanRows(query: PreparedQuery, chunks: readonly Float32Array[], rows: Int32Array, count: number, target: ScanTarget): void {
  const { top, floor, ids } = target;
  const dim = query.q.length;
  let threshold = top.threshold;
  for (let j = 0; j < count; j++) {
    const row = rows[j]!;
    const score = scoreRow(query, chunks[row >> CHUNK_SHIFT]!, (row & CHUNK_MASK) * dim);
    if (score < floor || score < threshold) continue;
    top.push(score, ids[row]!, row);
    threshold = top.threshold;
  }
}
