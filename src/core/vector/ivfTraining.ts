import { createSeededRandom } from '../ports.ts';
import type { ChunkedRows } from './chunkedRows.ts';
import { nearestCentroid, sphericalKMeansSteps } from './kmeans.ts';

/** The trained quantiser: coarse centroids, fine centroids grouped by coarse parent. */
export interface IvfQuantiser {
  coarse: Float32Array;
  fine: Float32Array;
  /** Fine centroids of coarse `c` are `firstChild[c] … firstChild[c + 1] - 1`. */
  firstChild: Int32Array;
  /** Size of the index when it was trained. */
  trainedAt: number;
}

/** k-means rounds for the coarse and the fine centroids. */
const ROUNDS = 6;
/** Training sample per list. */
const SAMPLE_PER_LIST = 24;
/** Sample points filed under their coarse centroid between two pauses. */
const POINTS_PER_STEP = 256;

/**
 * Train a quantiser for the first `n` rows of `rows`, as steps: about √n lists, coarse centroids
 * √(lists) of them, each split in proportion to its share of the sample. The sample (24 rows
 * per list, chosen by a seeded shuffle) is copied before the first pause, so rows written
 * while the generator is paused do not change its result: the same rows and seed give the
 * same quantiser however the steps are spread over time.
 */
export function* trainQuantiserSteps(rows: ChunkedRows, n: number, seed: number): Generator<void, IvfQuantiser, void> {
  const dim = rows.dimension;
  const lists = Math.max(1, Math.round(Math.sqrt(n)));
  const sampleSize = Math.min(n, lists * SAMPLE_PER_LIST);
  const random = createSeededRandom(seed);
  const order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  const sample = new Float32Array(sampleSize * dim);
  for (let i = 0; i < sampleSize; i++) {
    const j = i + Math.floor(random.next() * (n - i));
    const swap = order[i]!;
    order[i] = order[j]!;
    order[j] = swap;
    sample.set(rows.view(order[i]!), i * dim);
  }
  const coarseCount = Math.max(1, Math.min(sampleSize, Math.round(Math.sqrt(lists))));
  const coarse = yield* sphericalKMeansSteps({ data: sample, count: sampleSize, dimension: dim }, coarseCount, ROUNDS, seed);
  const parent = new Int32Array(sampleSize);
  const members = new Int32Array(coarseCount);
  for (let p = 0; p < sampleSize; p++) {
    members[(parent[p] = nearestCentroid(sample, p * dim, coarse, 0, coarseCount, dim))]!++;
    if (p % POINTS_PER_STEP === POINTS_PER_STEP - 1) yield;
  }
  const children: Float32Array[] = [];
  const firstChild = new Int32Array(coarseCount + 1);
  for (let c = 0; c < coarseCount; c++) {
    const count = members[c]!;
    const own = new Float32Array(count * dim);
    for (let p = 0, at = 0; p < sampleSize; p++) if (parent[p] === c) own.set(sample.subarray(p * dim, (p + 1) * dim), dim * at++);
    const k = count === 0 ? 0 : Math.max(1, Math.round((lists * count) / sampleSize));
    const fine =
      count === 0 ? coarse.slice(c * dim, (c + 1) * dim) : yield* sphericalKMeansSteps({ data: own, count, dimension: dim }, k, ROUNDS, seed + c + 1);
    children.push(fine);
    firstChild[c + 1] = firstChild[c]! + fine.length / dim;
    yield;
  }
  const fine = new Float32Array(firstChild[coarseCount]! * dim);
  children.forEach((child, c) => fine.set(child, firstChild[c]! * dim));
  return { coarse, fine, firstChild, trainedAt: n };
}

/** The list of the unit vector at `data[base …]`: the nearest fine centroid under the nearest coarse one. */
export function nearestList(quantiser: IvfQuantiser, data: Float32Array, base: number, dimension: number): number {
  const { coarse, fine, firstChild } = quantiser;
  const c = nearestCentroid(data, base, coarse, 0, firstChild.length - 1, dimension);
  return nearestCentroid(data, base, fine, firstChild[c]!, firstChild[c + 1]! - firstChild[c]!, dimension);
}
