import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import labelled from '../tests/fixtures/retrieval.json' with { type: 'json' };
import { evaluateRetrieval } from '../tests/support/retrievalEval.ts';
import { machineDescription, type BenchResult } from './report.ts';
import { fmt } from './stats.ts';

/** Retrieval quality on the project's labelled set (not a speed benchmark, but measured the same way). */
export async function run(): Promise<BenchResult> {
  const dir = new URL('../public/corpus/', import.meta.url).pathname;
  const corpus = readdirSync(dir)
    .sort()
    .map((name) => ({ path: name, text: readFileSync(join(dir, name), 'utf8') }));
  const at1 = await evaluateRetrieval(corpus, labelled, 1);
  const at5 = await evaluateRetrieval(corpus, labelled, 5);
  return {
    name: 'retrieval',
    title: 'Retrieval quality (labelled set over the sample corpus)',
    method: `${labelled.length} labelled queries (exact terms, paraphrases and short keyword queries) over the ${corpus.length} documents in public/corpus, from tests/fixtures/retrieval.json. A query counts when a document that answers it is among the top k hits.`,
    columns: ['mode', 'recall@1', 'recall@5'],
    rows: (['vector', 'keyword', 'hybrid'] as const).map((mode) => [mode, fmt(at1[mode], 3), fmt(at5[mode], 3)]),
    targets: [
      {
        label: 'hybrid ≥ vector and ≥ keyword (recall@5)',
        measured: `${fmt(at5.hybrid, 3)} vs ${fmt(at5.vector, 3)} / ${fmt(at5.keyword, 3)}`,
        target: 'hybrid ≥ both',
        met: at5.hybrid >= at5.vector && at5.hybrid >= at5.keyword,
      },
    ],
    notes: ['The corpus is small (14 documents), so recall@5 saturates; recall@1 separates the modes.'],
    measuredAt: new Date().toISOString().slice(0, 10),
    machine: machineDescription(),
  };
}
