// Engines of the vector-search benchmark on dense vectors: exact search on uniform random
// vectors (CUGAr vs Orama), the approximate index on clustered vectors at 100k and 1M, and the
// C flat-scan reference (bench/c/flatscan.c) on the same clustered vectors.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FlatVectorIndex, IvfVectorIndex } from '../src/core/index.ts';
import { collect, percentile } from './stats.ts';
import { clustered, denseRandom } from './vectorData.ts';

export const DIM = 256;
export const K = 10;
const DENSE_ROWS = 100_000;
const DENSE_QUERIES = 30;
const ANN_QUERIES = 100;
/** Points per cluster, and the noise of a point around its cluster's centre. */
const PER_CLUSTER = 1000;
const SPREAD = 1.5;

/** Timings (ms) and recall@k of one engine on one query set. */
export interface Run {
  samples: number[];
  recall: number;
  buildMs?: number;
  /** Of `buildMs`, the part spent in upserts (the rest trains). */
  insertMs?: number;
  retainedBytes?: number;
  lists?: number;
  probes?: number;
}

function memory(): number {
  collect();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
}

/** Scale every row of `data` to unit length in place (a zero row stays zero). */
function normaliseRows(data: Float32Array, dim: number): Float32Array {
  for (let base = 0; base < data.length; base += dim) {
    let norm = 0;
    for (let i = base; i < base + dim; i++) norm += data[i]! * data[i]!;
    const scale = norm === 0 ? 0 : 1 / Math.sqrt(norm);
    for (let i = base; i < base + dim; i++) data[i] = data[i]! * scale;
  }
  return data;
}

/** Rows and queries of one data set: seeded, unit length, the queries drawn like the rows but not among them. */
export function dataset(kind: 'dense' | 'clustered', rows: number): { vectors: Float32Array; queries: Float32Array[] } {
  const count = kind === 'dense' ? DENSE_QUERIES : ANN_QUERIES;
  const all = normaliseRows(kind === 'dense' ? denseRandom(rows + count, DIM, 21) : clustered(rows + count, DIM, PER_CLUSTER, SPREAD, 3), DIM);
  const queries = Array.from({ length: count }, (_, i) => all.slice((rows + i) * DIM, (rows + i + 1) * DIM));
  return { vectors: all.subarray(0, rows * DIM), queries };
}

/** The exact top k rows of each query by a float64 scan. */
export function truth(vectors: Float32Array, queries: readonly Float32Array[]): number[][] {
  const rows = vectors.length / DIM;
  return queries.map((q) => {
    const best: Array<{ row: number; score: number }> = [];
    for (let row = 0; row < rows; row++) {
      let dot = 0;
      for (let i = 0; i < DIM; i++) dot += q[i]! * vectors[row * DIM + i]!;
      if (best.length === K && dot <= best[K - 1]!.score) continue;
      best.push({ row, score: dot });
      best.sort((a, b) => b.score - a.score || a.row - b.row);
      if (best.length > K) best.pop();
    }
    return best.map((b) => b.row);
  });
}

async function timed(queries: readonly Float32Array[], expected: number[][], search: (q: Float32Array) => Promise<string[]> | string[]): Promise<Run> {
  for (const q of queries.slice(0, 5)) await search(q);
  const samples: number[] = [];
  let hits = 0;
  for (let i = 0; i < queries.length; i++) {
    const started = performance.now();
    const ids = await search(queries[i]!);
    samples.push(performance.now() - started);
    const wanted = new Set(expected[i]!.map((row) => `d${row}`));
    hits += ids.filter((id) => wanted.has(id)).length;
  }
  return { samples, recall: hits / (queries.length * K) };
}

function records(vectors: Float32Array, start: number, end: number) {
  const batch = [];
  for (let i = start; i < end; i++) batch.push({ id: `d${i}`, vector: vectors.subarray(i * DIM, (i + 1) * DIM) });
  return batch;
}

/** Build the approximate index over `rows` clustered vectors (upserts of 1,000, then training) and query it. */
async function ann(rows: number): Promise<Run> {
  const { vectors, queries } = dataset('clustered', rows);
  const expected = truth(vectors, queries);
  const before = memory();
  const started = performance.now();
  const index = new IvfVectorIndex(DIM);
  for (let start = 0; start < rows; start += 1000) index.upsert(records(vectors, start, Math.min(rows, start + 1000)));
  const insertMs = performance.now() - started;
  index.train();
  const buildMs = performance.now() - started;
  const retainedBytes = memory() - before;
  const run = await timed(queries, expected, (q) => index.search(q, { k: K }).map((h) => h.id));
  const probes = Math.max(index.options.minProbes, Math.ceil(index.lists * index.options.probeFraction));
  return { ...run, buildMs, insertMs, retainedBytes, lists: index.lists, probes };
}

export const annEngines: Record<string, () => Promise<Run>> = {
  async 'CUGAr exact, dense random'() {
    const { vectors, queries } = dataset('dense', DENSE_ROWS);
    const expected = truth(vectors, queries);
    const index = new FlatVectorIndex(DIM);
    for (let start = 0; start < DENSE_ROWS; start += 1000) index.upsert(records(vectors, start, Math.min(DENSE_ROWS, start + 1000)));
    return timed(queries, expected, (q) => index.search(q, { k: K }).map((h) => h.id));
  },
  async 'Orama, dense random'() {
    const { vectors, queries } = dataset('dense', DENSE_ROWS);
    const expected = truth(vectors, queries);
    const { create, insertMultiple, search } = await import('@orama/orama');
    const db = create({ schema: { embedding: `vector[${DIM}]` } as const });
    for (let start = 0; start < DENSE_ROWS; start += 5000) {
      const docs = records(vectors, start, Math.min(DENSE_ROWS, start + 5000)).map((r) => ({ id: r.id, embedding: Array.from(r.vector) }));
      await insertMultiple(db, docs, 5000);
    }
    return timed(queries, expected, async (q) => {
      const result = await search(db, {
        mode: 'vector',
        vector: { value: Array.from(q), property: 'embedding' },
        similarity: 0,
        limit: K,
        includeVectors: false,
      });
      return result.hits.map((h) => h.id);
    });
  },
  'CUGAr approximate, clustered 100k': () => ann(100_000),
  'CUGAr approximate, clustered 1M': () => ann(1_000_000),
};

/** Compile bench/c/flatscan.c into `dir`; undefined (and why) when there is no compiler. */
export function compileFlatScan(dir: string): { binary?: string; why?: string } {
  const binary = join(dir, 'flatscan');
  const source = new URL('./c/flatscan.c', import.meta.url).pathname;
  const built = spawnSync('cc', ['-O2', '-o', binary, source], { encoding: 'utf8' });
  if (built.error) return { why: `no C compiler (\`cc\`: ${built.error.message})` };
  if (built.status !== 0) throw new Error(`cc failed on bench/c/flatscan.c:\n${built.stderr}`);
  return { binary };
}

/** Run the C scan over the clustered 100k set (written to a file in `dir`): per-query ms and recall against the float64 truth. */
export function cFlatScan(binary: string, dir: string, rows: number): Run {
  const { vectors, queries } = dataset('clustered', rows);
  const expected = truth(vectors, queries);
  const file = join(dir, `clustered-${rows}.bin`);
  const header = Buffer.from(Uint32Array.of(rows, DIM, queries.length, K).buffer);
  const body = Buffer.from(vectors.buffer, vectors.byteOffset, vectors.byteLength);
  const qs = Buffer.concat(queries.map((q) => Buffer.from(q.buffer, q.byteOffset, q.byteLength)));
  writeFileSync(file, Buffer.concat([header, body, qs]));
  const run = spawnSync(binary, [file, '2'], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  if (run.status !== 0) throw new Error(`flatscan exited with ${run.status ?? run.signal}: ${run.stderr}`);
  const lines = run.stdout.trim().split('\n');
  let hits = 0;
  const samples = lines.map((line, i) => {
    const [ms, ...found] = line.split(' ');
    const wanted = new Set(expected[i]);
    hits += found.filter((row) => wanted.has(Number(row))).length;
    return Number(ms);
  });
  return { samples, recall: hits / (queries.length * K) };
}

export const median = (samples: readonly number[]) => percentile(samples, 50);
