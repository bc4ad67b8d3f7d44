import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { FlatVectorIndex, HashingEmbedder, IvfVectorIndex } from '../src/core/index.ts';
import { makeCorpus, makeQueries } from './corpus.ts';
import { measureInterleaved, measureIsolated } from './isolate.ts';
import { machineDescription, type BenchResult } from './report.ts';
import { collect, fmt, percentile } from './stats.ts';
import { annEngines, cFlatScan, compileFlatScan, median as medianOf, type Run } from './vectorAnn.ts';

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
export const engines: Record<string, () => Promise<Measurement | Run>> = {
  ...annEngines,
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
  /** The approximate index on the text corpus, whose documents have no neighbourhoods (words drawn independently). */
  async 'CUGAr approximate, text'() {
    const work = workload();
    const index = new IvfVectorIndex(DIM);
    for (let start = 0; start < COUNT; start += 1000) {
      const batch = [];
      for (let i = start; i < Math.min(COUNT, start + 1000); i++) batch.push({ id: `d${i}`, vector: work.row(i) });
      index.upsert(batch);
    }
    index.train();
    return { sets: await measure(work, (q) => index.search(q, { k: K }).map((h) => h.id)) };
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

/** Interleaved rounds, each a fresh process per engine: a process settles at a speed of its own, so figures are medians over rounds. */
const ROUNDS = 3;

/** Exact top-10 search over 100k × 256 (embedded text and dense random vectors) vs Orama, LangChain.js and a C flat scan; the approximate index at 100k. */
export async function run(): Promise<BenchResult> {
  const text = ['CUGAr', 'Orama', 'LangChain.js MemoryVectorStore'];
  // Every engine in interleaved rounds, each a fresh process; figures are medians over rounds of each round's median.
  const textRounds = measureInterleaved<Measurement>('vectorSearch.bench.ts', text, ROUNDS);
  const results = Object.fromEntries(text.map((name) => [name, textRounds[name]![0]!]));
  const textAnn = measureIsolated<Measurement>('vectorSearch.bench.ts', 'CUGAr approximate, text');
  const median = (engine: string, set: number) => medianOf(textRounds[engine]!.map((m) => percentile(m.sets[set]!.samples, 50)));
  const textP95 = (engine: string, set: number) => medianOf(textRounds[engine]!.map((m) => percentile(m.sets[set]!.samples, 95)));
  const peers = text.filter((name) => name !== 'CUGAr');
  const speedup = (set: number) => Math.min(...peers.map((p) => median(p, set))) / median('CUGAr', set);
  const rawBytes = COUNT * DIM * 4;
  const retained = medianOf(textRounds['CUGAr']!.map((m) => m.retainedBytes!));
  const memoryRatio = retained / rawBytes;
  const cugarRecall = Math.min(...textRounds['CUGAr']!.flatMap((m) => m.sets.map((s) => s.recall)));
  const work = mkdtempSync(join(tmpdir(), 'cugar-vector-bench-'));
  const dense = ['CUGAr exact, dense random', 'Orama, dense random', 'CUGAr approximate, clustered 100k'];
  const rounds: Record<string, Run[]> = Object.fromEntries([...dense, 'C'].map((name) => [name, []]));
  let why: string | undefined;
  try {
    const compiled = compileFlatScan(work);
    why = compiled.why;
    for (let round = 0; round < ROUNDS; round++) {
      for (const name of dense) rounds[name]!.push(measureIsolated<Run>('vectorSearch.bench.ts', name));
      if (compiled.binary) rounds['C']!.push(cFlatScan(compiled.binary, work, 100_000));
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const ms = (name: string) => medianOf(rounds[name]!.map((r) => medianOf(r.samples)));
  const p95 = (name: string) => medianOf(rounds[name]!.map((r) => percentile(r.samples, 95)));
  const recall = (name: string) => Math.min(...rounds[name]!.map((r) => r.recall));
  const denseSpeedup = ms('Orama, dense random') / ms('CUGAr exact, dense random');
  const ann = rounds['CUGAr approximate, clustered 100k']![0]!;
  const annMs = ms('CUGAr approximate, clustered 100k');
  const cMs = rounds['C']!.length ? ms('C') : undefined;
  const load = loadavg()[0]!;
  console.error(`  load average ${load.toFixed(2)} on ${cpus().length} cores`);
  const denseRow = (name: string, label: string, data: string, queries: string, vs: string) => [
    label,
    data,
    queries,
    fmt(ms(name)),
    fmt(p95(name)),
    fmt(recall(name), 3),
    vs,
  ];
  return {
    name: 'vector-search',
    title: 'Vector search, top 10 (100k × 256): exact, approximate, and a C flat scan',
    method: `Text: ${COUNT.toLocaleString('en-US')} synthetic documents embedded by the HashingEmbedder; each engine runs in its own Node process over the same seeded vectors and queries. Short queries embed to a few non-zero dimensions, which CUGAr scores by gathering only those; passage queries are dense and take the full scan. Orama runs with \`similarity: 0\` so it returns the true top 10 (its default 0.8 floor drops results); LangChain gets the precomputed vectors through \`addVectors\`. Dense: 100,000 uniform random vectors and 30 random queries (exact search), and 100,000 clustered vectors (Gaussian clusters of about 1,000 points, noise 1.5× the centre, clusters grouped in topics: \`bench/vectorData.ts\`) with 100 queries drawn the same way for the approximate index (\`IvfVectorIndex\`, built by upserts of 1,000 and one \`train()\`, default probes) and for \`bench/c/flatscan.c\`, the same exact scan in C built with \`cc -O2\`, reading the same vectors from a temporary file. Every engine and the C program run in ${ROUNDS} interleaved rounds, each round a fresh process per engine; figures are the median over rounds of each round's median. Recall is against a float64 brute-force scan.`,
    columns: ['engine', 'data', 'queries', 'median ms', 'p95 ms', 'recall@10', 'vs CUGAr (median)'],
    rows: [
      ...[0, 1].flatMap((set) =>
        text.map((name) => {
          const s = results[name]!.sets[set]!;
          return [
            name,
            'text',
            s.name,
            fmt(median(name, set)),
            fmt(textP95(name, set)),
            fmt(Math.min(...textRounds[name]!.map((m) => m.sets[set]!.recall)), 3),
            name === 'CUGAr' ? '1.0×' : `${fmt(median(name, set) / median('CUGAr', set), 1)}× slower`,
          ];
        }),
      ),
      ...textAnn.sets.map((set) => [
        'CUGAr approximate (once, same settings)',
        'text',
        set.name,
        fmt(percentile(set.samples, 50)),
        fmt(percentile(set.samples, 95)),
        fmt(set.recall, 3),
        '—',
      ]),
      denseRow('CUGAr exact, dense random', 'CUGAr exact', 'dense random', '30 random', '1.0×'),
      denseRow('Orama, dense random', 'Orama', 'dense random', '30 random', `${fmt(denseSpeedup, 1)}× slower`),
      denseRow(
        'CUGAr approximate, clustered 100k',
        `CUGAr approximate (${ann.lists} lists, ${ann.probes} probed)`,
        'clustered',
        '100 drawn like the rows',
        '1.0×',
      ),
      cMs === undefined
        ? [`C flat scan skipped: ${why}`, 'clustered', '—', '—', '—', '—', '—']
        : denseRow('C', 'C flat scan (cc -O2, exact)', 'clustered', '100 drawn like the rows', `${fmt(cMs / annMs, 1)}× slower`),
    ],
    targets: [
      { label: 'exact, text: speed vs the faster peer, short queries', measured: `${fmt(speedup(0), 2)}×`, target: '≥ 4×', met: speedup(0) >= 4 },
      { label: 'exact, text: speed vs the faster peer, passage queries', measured: `${fmt(speedup(1), 2)}×`, target: '≥ 4×', met: speedup(1) >= 4 },
      { label: 'exact, dense random: speed vs Orama', measured: `${fmt(denseSpeedup, 2)}×`, target: '≥ 4×', met: denseSpeedup >= 4 },
      {
        label: 'exact recall@10 (text and dense random)',
        measured: fmt(Math.min(cugarRecall, recall('CUGAr exact, dense random')), 3),
        target: '1.0',
        met: cugarRecall === 1 && recall('CUGAr exact, dense random') === 1,
      },
      {
        label: 'exact index memory / raw float bytes',
        measured: `${fmt(memoryRatio, 3)} (${fmt(retained / 2 ** 20, 1)} MiB retained for ${fmt(rawBytes / 2 ** 20, 1)} MiB of floats)`,
        target: '≤ 1.2',
        met: memoryRatio <= 1.2,
      },
      {
        label: 'approximate at 100k vs the C flat scan (median)',
        measured:
          cMs === undefined ? `not measured (${why})` : `${fmt(cMs / annMs, 1)}× faster (recall ${fmt(recall('CUGAr approximate, clustered 100k'), 3)})`,
        target: 'faster, recall ≥ 0.95',
        met: cMs !== undefined && cMs > annMs && recall('CUGAr approximate, clustered 100k') >= 0.95,
      },
    ],
    notes: [
      `Approximate index at 100k: built in ${fmt(ann.buildMs! / 1000, 1)} s (upserts and training), ${fmt(ann.retainedBytes! / (100_000 * DIM * 4), 3)}× the raw float bytes retained.`,
      `On the text corpus the approximate index finds ${textAnn.sets.map((set) => `${fmt(set.recall * 100, 0)} %`).join(' and ')} of the true top 10 (short and passage queries): its documents draw every word independently, so they have no neighbourhoods for lists to capture. The exact scan (the default below 50,000 records, or \`exact: true\`) is the right choice for such data.`,
      "Until 2026-11-28 the engines ran 2 rounds and each figure was the lower of the two. Two runs of the same code that day gave passage queries 5.6× and 3.37× the faster peer (LangChain.js at 246 and 142 ms against CUGAr's 44 and 42 ms), short queries 4.9× and 7.26×, dense random vectors 3.7× and 3.95× Orama; hence 3 rounds and the median.",
      "Node detaches an ArrayBuffer whenever a WHATWG Request, Response or Blob body is read (so does loading a CommonJS package through tsx, as these benchmark processes do), and from the first detach on, V8 (11.3, in Node 20) checks every typed-array access for it for the rest of the process. A CUGAr server is in that state after its first request with a body. In such a process a scan that read the query and the rows from typed arrays took 41 ms per 100k × 256 dense query, against 26–27 ms in a process where nothing was ever detached. Since 2026-11-29 the scan keeps the query in a plain array of doubles and reads eight dimensions a turn in the four-wide order (scores bit-identical, held by a property test): 41 → 28 ms, alternating with the previous code in one process (the last run before it: 42.66 ms, 3.41× Orama; passage queries 3.94×). Chromium's V8 showed no such slowdown after a transfer, so the browser was never affected. Not kept: two rows' int codes packed into one double (two multiply-adds for one multiply, exact through error bounds and a re-rank of about 20 candidates) scored 1.4× faster, but it keeps a second copy of every row, about twice the index's memory against the 1.2 line; int8 codes read one or four to a load, and two or four rows per pass, scored no faster.",
      `Load average (1 min) when the measurement ended: ${load.toFixed(2)} on ${cpus().length} cores, shared with other work; ratios from one run, absolute figures vary with the load.`,
    ],
    measuredAt: new Date().toISOString().slice(0, 10),
    machine: machineDescription(),
  };
}
