import { MemoryVectorStore } from '@langchain/classic/vectorstores/memory';
import { Document } from '@langchain/core/documents';
import { create, insertMultiple, search } from '@orama/orama';
import { FlatVectorIndex, HashingEmbedder } from '../src/core/index.ts';
import { makeCorpus, makeQueries } from './corpus.ts';
import { machineDescription, type BenchResult } from './report.ts';
import { collect, fmt, percentile } from './stats.ts';

const COUNT = 100_000;
const DIM = 256;
const K = 10;
const QUERIES = 100;

function exactTopK(vectors: Float32Array, query: Float32Array): string[] {
  const scores: Array<[number, number]> = [];
  for (let row = 0; row < COUNT; row++) {
    let dot = 0;
    for (let i = 0; i < DIM; i++) dot += query[i]! * vectors[row * DIM + i]!;
    scores.push([dot, row]);
  }
  scores.sort((a, b) => b[0] - a[0] || a[1] - b[1]);
  return scores.slice(0, K).map(([, row]) => `d${row}`);
}

function recall(found: string[], truth: string[]): number {
  const set = new Set(truth);
  return found.filter((id) => set.has(id)).length / truth.length;
}

function memory(): number {
  collect();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
}

/** Exact top-10 search over 100k × 256 embedded documents: CUGAr vs Orama vs LangChain.js MemoryVectorStore. */
export async function run(): Promise<BenchResult> {
  const embedder = new HashingEmbedder({ dimension: DIM });
  const texts = makeCorpus(COUNT, 256, 11);
  const vectors = new Float32Array(COUNT * DIM);
  texts.forEach((text, row) => embedder.embedInto(text, vectors, row * DIM));
  const queries = makeQueries(QUERIES).map((q) => embedder.embed(q));
  const truth = queries.map((q) => exactTopK(vectors, q));
  const row = (i: number) => vectors.subarray(i * DIM, (i + 1) * DIM);

  // CUGAr: measure what the index itself retains.
  const before = memory();
  const index = new FlatVectorIndex(DIM);
  index.reserve(COUNT);
  const BATCH = 1000;
  for (let start = 0; start < COUNT; start += BATCH) {
    const batch = [];
    for (let i = start; i < Math.min(COUNT, start + BATCH); i++) batch.push({ id: `d${i}`, vector: row(i) });
    index.upsert(batch);
  }
  const retained = memory() - before;
  const rawBytes = COUNT * DIM * 4;

  const orama = create({ schema: { embedding: `vector[${DIM}]` } as const });
  for (let start = 0; start < COUNT; start += 5000) {
    const docs = [];
    for (let i = start; i < Math.min(COUNT, start + 5000); i++) docs.push({ id: `d${i}`, embedding: Array.from(row(i)) });
    await insertMultiple(orama, docs, 5000);
  }

  const fakeEmbeddings = { embedDocuments: async () => [], embedQuery: async () => [] };
  const langchain = new MemoryVectorStore(fakeEmbeddings as never);
  await langchain.addVectors(
    Array.from({ length: COUNT }, (_, i) => Array.from(row(i))),
    Array.from({ length: COUNT }, (_, i) => new Document({ pageContent: '', metadata: { id: `d${i}` } })),
  );

  const engines: Record<string, (q: Float32Array) => Promise<string[]>> = {
    CUGAr: async (q) => index.search(q, { k: K }).map((h) => h.id),
    Orama: async (q) => {
      const result = await search(orama, { mode: 'vector', vector: { value: Array.from(q), property: 'embedding' }, similarity: 0, limit: K, includeVectors: false });
      return result.hits.map((h) => h.id);
    },
    'LangChain.js MemoryVectorStore': async (q) => (await langchain.similaritySearchVectorWithScore(Array.from(q), K)).map(([doc]) => doc.metadata['id'] as string),
  };
  const samples: Record<string, number[]> = Object.fromEntries(Object.keys(engines).map((name) => [name, []]));
  const recalls: Record<string, number[]> = Object.fromEntries(Object.keys(engines).map((name) => [name, []]));
  // Warm up, then interleave engines query by query so machine noise hits them alike.
  for (const search of Object.values(engines)) for (const q of queries.slice(0, 5)) await search(q);
  for (let i = 0; i < QUERIES; i++) {
    for (const [name, search] of Object.entries(engines)) {
      const start = performance.now();
      const ids = await search(queries[i]!);
      samples[name]!.push(performance.now() - start);
      recalls[name]!.push(recall(ids, truth[i]!));
    }
  }
  const median = (name: string) => percentile(samples[name]!, 50);
  const fasterPeer = Math.min(median('Orama'), median('LangChain.js MemoryVectorStore'));
  const speedup = fasterPeer / median('CUGAr');
  const cugarRecall = recalls['CUGAr']!.reduce((a, b) => a + b, 0) / QUERIES;
  const memoryRatio = retained / rawBytes;

  return {
    name: 'vector-search',
    title: 'Exact top-10 vector search (100k × 256)',
    method: `${COUNT.toLocaleString('en-US')} synthetic documents embedded once by the HashingEmbedder; every engine indexes the same Float32 vectors and answers the same ${QUERIES} queries, interleaved. Recall is against a float64 brute-force scan. Orama runs with \`similarity: 0\` so it returns the true top 10 (its default 0.8 floor drops results); LangChain gets precomputed vectors through \`addVectors\`.`,
    columns: ['engine', 'median ms', 'p95 ms', 'recall@10', 'vs CUGAr'],
    rows: Object.keys(engines).map((name) => [
      name,
      fmt(median(name)),
      fmt(percentile(samples[name]!, 95)),
      fmt(recalls[name]!.reduce((a, b) => a + b, 0) / QUERIES, 3),
      name === 'CUGAr' ? '1.0×' : `${fmt(median(name) / median('CUGAr'), 1)}× slower`,
    ]),
    targets: [
      { label: 'speed vs the faster peer (median)', measured: `${fmt(speedup, 1)}×`, target: '≥ 4×', met: speedup >= 4 },
      { label: 'CUGAr recall@10', measured: fmt(cugarRecall, 3), target: '1.0', met: cugarRecall === 1 },
      {
        label: 'index memory / raw float bytes',
        measured: `${fmt(memoryRatio, 3)} (${fmt(retained / 2 ** 20, 1)} MiB for ${fmt(rawBytes / 2 ** 20, 1)} MiB of floats; buffer alone ${fmt(index.byteLength / rawBytes, 3)})`,
        target: '≤ 1.2',
        met: memoryRatio <= 1.2,
      },
    ],
    measuredAt: new Date().toISOString().slice(0, 10),
    machine: machineDescription(),
  };
}
