import { FlatVectorIndex, HashingEmbedder } from '../src/core/index.ts';
import { makeCorpus, makeQueries } from './corpus.ts';
import { measureIsolated } from './isolate.ts';
import { machineDescription, type BenchResult } from './report.ts';
import { collect, fmt, percentile } from './stats.ts';

const COUNT = 100_000;
const DIM = 256;
const K = 10;
const SHORT_QUERIES = 100;
const PASSAGE_QUERIES = 30;

interface Workload {
  vectors: Float32Array;
  row: (i: number) => Float32Array;
  sets: Array<{ name: string; queries: Float32Array[]; truth: string[][] }>;
}

interface Measurement {
  sets: Array<{ name: string; samples: number[]; recall: number }>;
  retainedBytes?: number;
}

function exactTopK(vectors: Float32Array, query: Float32Array): string[] {
  const scores = new Float64Array(COUNT);
  for (let row = 0; row < COUNT; row++) {
    let dot = 0;
    for (let i = 0; i < DIM; i++) dot += query[i]! * vectors[row * DIM + i]!;
    scores[row] = dot;
  }
  return Array.from(scores.keys())
    .sort((a, b) => scores[b]! - scores[a]! || a - b)
    .slice(0, K)
    .map((row) => `d${row}`);
}

/** The same corpus, queries and float64 brute-force truth in every process (all seeded). */
function workload(): Workload {
  const embedder = new HashingEmbedder({ dimension: DIM });
  const vectors = new Float32Array(COUNT * DIM);
  makeCorpus(COUNT, 256, 11).forEach((text, row) => embedder.embedInto(text, vectors, row * DIM));
  // Short queries (2–6 words: sparse vectors) as a search box sends them, and 1 KiB passages
  // (dense vectors) as "more like this" sends them.
  const short = makeQueries(SHORT_QUERIES).map((q) => embedder.embed(q));
  const passages = makeCorpus(PASSAGE_QUERIES, 1024, 99).map((q) => embedder.embed(q));
  return {
    vectors,
    row: (i) => vectors.subarray(i * DIM, (i + 1) * DIM),
    sets: [
      { name: `${SHORT_QUERIES} short queries (2–6 words)`, queries: short, truth: short.map((q) => exactTopK(vectors, q)) },
      { name: `${PASSAGE_QUERIES} passage queries (1 KiB)`, queries: passages, truth: passages.map((q) => exactTopK(vectors, q)) },
    ],
  };
}

async function measure(work: Workload, search: (q: Float32Array) => Promise<string[]> | string[]): Promise<Measurement['sets']> {
  const results = [];
  for (const set of work.sets) {
    for (const q of set.queries.slice(0, 5)) await search(q);
    const samples: number[] = [];
    let hits = 0;
    for (let i = 0; i < set.queries.length; i++) {
      const start = performance.now();
      const ids = await search(set.queries[i]!);
      samples.push(performance.now() - start);
      const truth = new Set(set.truth[i]);
      hits += ids.filter((id) => truth.has(id)).length;
    }
    results.push({ name: set.name, samples, recall: hits / (set.queries.length * K) });
  }
  return results;
}

function memory(): number {
  collect();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
}

/** Each engine in its own process: build its index over the shared workload, then answer every query. */
export const engines: Record<string, () => Promise<Measurement>> = {
  async CUGAr() {
    const work = workload();
    const before = memory();
    const index = new FlatVectorIndex(DIM);
    index.reserve(COUNT);
    for (let start = 0; start < COUNT; start += 1000) {
      const batch = [];
      for (let i = start; i < Math.min(COUNT, start + 1000); i++) batch.push({ id: `d${i}`, vector: work.row(i) });
      index.upsert(batch);
    }
    const retainedBytes = memory() - before;
    return { sets: await measure(work, (q) => index.search(q, { k: K }).map((h) => h.id)), retainedBytes };
  },
  async Orama() {
    const work = workload();
    const { create, insertMultiple, search } = await import('@orama/orama');
    const db = create({ schema: { embedding: `vector[${DIM}]` } as const });
    for (let start = 0; start < COUNT; start += 5000) {
      const docs = [];
      for (let i = start; i < Math.min(COUNT, start + 5000); i++) docs.push({ id: `d${i}`, embedding: Array.from(work.row(i)) });
      await insertMultiple(db, docs, 5000);
    }
    return {
      sets: await measure(work, async (q) => {
        const result = await search(db, {
          mode: 'vector',
          vector: { value: Array.from(q), property: 'embedding' },
          similarity: 0,
          limit: K,
          includeVectors: false,
        });
        return result.hits.map((h) => h.id);
      }),
    };
  },
  async 'LangChain.js MemoryVectorStore'() {
    const work = workload();
    const { MemoryVectorStore } = await import('@langchain/classic/vectorstores/memory');
    const { Document } = await import('@langchain/core/documents');
    const store = new MemoryVectorStore({ embedDocuments: async () => [], embedQuery: async () => [] } as never);
    await store.addVectors(
      Array.from({ length: COUNT }, (_, i) => Array.from(work.row(i))),
      Array.from({ length: COUNT }, (_, i) => new Document({ pageContent: '', metadata: { id: `d${i}` } })),
    );
    return {
      sets: await measure(work, async (q) => (await store.similaritySearchVectorWithScore(Array.from(q), K)).map(([doc]) => doc.metadata['id'] as string)),
    };
  },
};

/** Exact top-10 search over 100k × 256 embedded documents: CUGAr vs Orama vs LangChain.js MemoryVectorStore. */
export async function run(): Promise<BenchResult> {
  const results = Object.fromEntries(Object.keys(engines).map((name) => [name, measureIsolated<Measurement>('vectorSearch.bench.ts', name)]));
  const cugar = results['CUGAr']!;
  const median = (engine: string, set: number) => percentile(results[engine]!.sets[set]!.samples, 50);
  const peers = Object.keys(engines).filter((name) => name !== 'CUGAr');
  const speedup = (set: number) => Math.min(...peers.map((p) => median(p, set))) / median('CUGAr', set);
  const rawBytes = COUNT * DIM * 4;
  const memoryRatio = cugar.retainedBytes! / rawBytes;
  const cugarRecall = Math.min(...cugar.sets.map((s) => s.recall));
  return {
    name: 'vector-search',
    title: 'Exact top-10 vector search (100k × 256)',
    method: `${COUNT.toLocaleString('en-US')} synthetic documents embedded by the HashingEmbedder; each engine runs in its own Node process over the same seeded vectors and queries. Recall is against a float64 brute-force scan. Short queries embed to a few non-zero dimensions, which CUGAr scores by gathering only those; passage queries are dense and take the full scan. Orama runs with \`similarity: 0\` so it returns the true top 10 (its default 0.8 floor drops results); LangChain gets the precomputed vectors through \`addVectors\`.`,
    columns: ['engine', 'queries', 'median ms', 'p95 ms', 'recall@10', 'vs CUGAr (median)'],
    rows: [0, 1].flatMap((set) =>
      Object.keys(engines).map((name) => {
        const s = results[name]!.sets[set]!;
        return [
          name,
          s.name,
          fmt(median(name, set)),
          fmt(percentile(s.samples, 95)),
          fmt(s.recall, 3),
          name === 'CUGAr' ? '1.0×' : `${fmt(median(name, set) / median('CUGAr', set), 1)}× slower`,
        ];
      }),
    ),
    targets: [
      { label: 'speed vs the faster peer, short queries', measured: `${fmt(speedup(0), 1)}×`, target: '≥ 4×', met: speedup(0) >= 4 },
      { label: 'speed vs the faster peer, passage queries', measured: `${fmt(speedup(1), 1)}×`, target: '≥ 4×', met: speedup(1) >= 4 },
      { label: 'CUGAr recall@10', measured: fmt(cugarRecall, 3), target: '1.0', met: cugarRecall === 1 },
      {
        label: 'index memory / raw float bytes',
        measured: `${fmt(memoryRatio, 3)} (${fmt(cugar.retainedBytes! / 2 ** 20, 1)} MiB retained for ${fmt(rawBytes / 2 ** 20, 1)} MiB of floats)`,
        target: '≤ 1.2',
        met: memoryRatio <= 1.2,
      },
    ],
    measuredAt: new Date().toISOString().slice(0, 10),
    machine: machineDescription(),
  };
}
