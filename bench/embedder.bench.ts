import { HashingEmbedder } from '../src/core/index.ts';
import { makeCorpus } from './corpus.ts';
import { measureIsolated } from './isolate.ts';
import { machineDescription, type BenchResult } from './report.ts';
import { fastest, fmt } from './stats.ts';

const DOCS = 5_000;

/** Each engine, measured in its own process: milliseconds for one pass over the corpus (fastest of several). */
export const engines: Record<string, () => Promise<number>> = {
  async bigrams() {
    const docs = makeCorpus(DOCS, 1024);
    const embedder = new HashingEmbedder({ dimension: 256, bigrams: true });
    const out = new Float32Array(256);
    return fastest(8, () => {
      for (const doc of docs) embedder.embedInto(doc, out, 0);
    });
  },
  async unigrams() {
    const docs = makeCorpus(DOCS, 1024);
    const embedder = new HashingEmbedder({ dimension: 256, bigrams: false });
    const out = new Float32Array(256);
    return fastest(8, () => {
      for (const doc of docs) embedder.embedInto(doc, out, 0);
    });
  },
  async allocating() {
    const docs = makeCorpus(DOCS, 1024);
    const embedder = new HashingEmbedder({ dimension: 256, bigrams: true });
    return fastest(8, () => {
      for (const doc of docs) embedder.embed(doc);
    });
  },
  async natural() {
    const docs = makeCorpus(DOCS, 1024);
    const natural = (await import('natural')).default;
    return fastest(4, () => {
      const tfidf = new natural.TfIdf();
      for (const doc of docs) tfidf.addDocument(doc);
    });
  },
};

/** Embedder throughput on 1 KiB English-like documents vs natural's TfIdf.addDocument. */
export async function run(): Promise<BenchResult> {
  const ms = Object.fromEntries(Object.keys(engines).map((name) => [name, measureIsolated<number>('embedder.bench.ts', name)])) as Record<
    keyof typeof engines,
    number
  >;
  const rate = (t: number) => (DOCS / t) * 1000;
  const vsNatural = (t: number) => rate(t) / rate(ms['natural']!);
  const row = (label: string, t: number) => [label, fmt(rate(t), 0), fmt((rate(t) * 1024) / 2 ** 20), `${fmt(vsNatural(t), 1)}×`];
  const ratio = vsNatural(ms['bigrams']!);
  return {
    name: 'embedder',
    title: 'Embedder throughput (1 KiB English-like documents)',
    method: `${DOCS.toLocaleString('en-US')} synthetic 1 KiB documents; the fastest of 8 passes (4 for natural), each engine in its own Node process. CUGAr's HashingEmbedder at 256 dimensions vs \`natural\` TfIdf.addDocument, which tokenises and counts terms but produces no vector.`,
    columns: ['engine', 'docs/s', 'MiB/s', 'vs natural'],
    rows: [
      row('CUGAr HashingEmbedder (unigrams + bigrams, embedInto)', ms['bigrams']!),
      row('CUGAr HashingEmbedder (unigrams only, embedInto)', ms['unigrams']!),
      row('CUGAr HashingEmbedder (unigrams + bigrams, new vector each)', ms['allocating']!),
      row('natural TfIdf.addDocument', ms['natural']!),
    ],
    targets: [{ label: 'embedder vs natural TfIdf', measured: `${fmt(ratio, 1)}×`, target: '≥ 20×', met: ratio >= 20 }],
    notes: [
      'Loading `natural` in the same process slows unrelated string code about 2× (it pulls in database drivers and other modules), which is why every engine runs in a fresh process.',
      'The floor is the character scan itself: lower-casing and hashing every code unit of 1 KiB costs about 4–5 µs in V8, roughly half of the embedder’s time per document.',
    ],
    measuredAt: new Date().toISOString().slice(0, 10),
    machine: machineDescription(),
  };
}
