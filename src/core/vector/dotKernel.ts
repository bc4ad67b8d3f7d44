import { ValidationError } from '../errors.ts';
import { CHUNK_MASK, CHUNK_SHIFT } from './chunkedRows.ts';
import type { TopK } from './topK.ts';

/** A query with at most 1/SPARSE_RATIO of its dimensions non-zero is scored by gathering only those. */
const SPARSE_RATIO = 4;

/**
 * A unit-length query ready to score rows. Short queries embed to a few non-zero dimensions:
 * gathering only those is the same dot product with a fraction of the work. Which path runs
 * depends only on the query, so the same query always gets the same scores.
 */
export interface PreparedQuery {
  readonly q: Float32Array;
  /** The non-zero dimensions and their weights when the query is sparse, else null. */
  readonly at: Int32Array | null;
  readonly weight: Float64Array | null;
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
  // A loop, not `Float32Array.from` with a mapping function: that took about 29 µs for 256 values
  // against 2 µs (every search prepares its query).
  const q = new Float32Array(dimension);
  for (let i = 0; i < dimension; i++) q[i] = query[i]! * inverse;
  let nonZero = 0;
  for (let i = 0; i < dimension; i++) if (q[i] !== 0) nonZero++;
  if (nonZero * SPARSE_RATIO > dimension) return { q, at: null, weight: null };
  const at = new Int32Array(nonZero);
  const weight = new Float64Array(nonZero);
  for (let i = 0, j = 0; i < dimension; i++) {
    if (q[i] !== 0) {
      at[j] = i;
      weight[j++] = q[i]!;
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
  const body = dim - (dim & 3);
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let i = 0;
  for (; i < body; i += 4) {
    s0 += q[i]! * data[base + i]!;
    s1 += q[i + 1]! * data[base + i + 1]!;
    s2 += q[i + 2]! * data[base + i + 2]!;
    s3 += q[i + 3]! * data[base + i + 3]!;
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
