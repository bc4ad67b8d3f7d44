import natural from 'natural';
import { HashingEmbedder } from '../src/core/index.ts';
import { makeCorpus } from './corpus.ts';
import { machineDescription, type BenchResult } from './report.ts';
import { fastest, fmt } from './stats.ts';

/** Embedder throughput on 1 KiB English-like documents vs natural's TfIdf.addDocument. */
export async function run(): Promise<BenchResult> {
  const docs = makeCorpus(5_000, 1024);
  const embedder = new HashingEmbedder({ dimension: 256 });
  const embedderBigrams = new HashingEmbedder({ dimension: 256, bigrams: true });
  const embedderUnigrams = new HashingEmbedder({ dimension: 256, bigrams: false });
  const out = new Float32Array(256);

  // Warm up every engine on the same documents first.
  for (const doc of docs.slice(0, 500)) embedder.embedInto(doc, out, 0);
  const warm = new natural.TfIdf();
  for (const doc of docs.slice(0, 200)) warm.addDocument(doc);

  const ms = {
    bigrams: await fastest(5, () => {
      for (const doc of docs) embedderBigrams.embedInto(doc, out, 0);
    }),
    unigrams: await fastest(5, () => {
      for (const doc of docs) embedderUnigrams.embedInto(doc, out, 0);
    }),
    allocating: await fastest(5, () => {
      for (const doc of docs) embedderBigrams.embed(doc);
    }),
    natural: await fastest(3, () => {
      const tfidf = new natural.TfIdf();
      for (const doc of docs) tfidf.addDocument(doc);
    }),
  };
  const rate = (t: number) => (docs.length / t) * 1000;
  const ratio = rate(ms.bigrams) / rate(ms.natural);
  return {
    name: 'embedder',
    title: 'Embedder throughput (1 KiB English-like documents)',
    method: `${docs.length.toLocaleString('en-US')} synthetic 1 KiB documents; the fastest of 5 passes (3 for natural). CUGAr's HashingEmbedder at 256 dimensions vs \`natural\` TfIdf.addDocument, which tokenises and counts terms but produces no vector.`,
    columns: ['engine', 'docs/s', 'MiB/s', 'vs natural'],
    rows: [
      ['CUGAr HashingEmbedder (unigrams+bigrams, embedInto)', fmt(rate(ms.bigrams), 0), fmt((rate(ms.bigrams) * 1024) / 2 ** 20), `${fmt(ratio, 1)}×`],
      ['CUGAr HashingEmbedder (unigrams, embedInto)', fmt(rate(ms.unigrams), 0), fmt((rate(ms.unigrams) * 1024) / 2 ** 20), `${fmt(rate(ms.unigrams) / rate(ms.natural), 1)}×`],
      ['CUGAr HashingEmbedder (bigrams, new Float32Array each)', fmt(rate(ms.allocating), 0), fmt((rate(ms.allocating) * 1024) / 2 ** 20), `${fmt(rate(ms.allocating) / rate(ms.natural), 1)}×`],
      ['natural TfIdf.addDocument', fmt(rate(ms.natural), 0), fmt((rate(ms.natural) * 1024) / 2 ** 20), '1.0×'],
    ],
    targets: [{ label: 'embedder vs natural TfIdf', measured: `${fmt(ratio, 1)}×`, target: '≥ 20×', met: ratio >= 20 }],
    measuredAt: new Date().toISOString().slice(0, 10),
    machine: machineDescription(),
  };
}
