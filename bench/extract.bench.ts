// Main-text extraction: CUGAr's extractor (linkedom + link/text density scoring) against
// @mozilla/readability over linkedom, on the same fixed set of pages, each engine in its own process.
import { loadavg } from 'node:os';
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import { extractMainText, tokenize } from '../src/core/index.ts';
import { linkedomParser } from '../src/edge/linkedomParser.ts';
import { pageSet } from '../tests/fixtures/pages/pageSet.ts';
import { measureIsolated } from './isolate.ts';
import { machineDescription, type BenchResult } from './report.ts';
import { fmt } from './stats.ts';

interface Measurement {
  pagesPerSecond: number;
  /** Extracted text per page name. */
  texts: Record<string, string>;
}

const ROUNDS = 5;
const MIN_MS = 1500;

/** Extract every page once to warm up, then as many full passes as fit in MIN_MS (at least ROUNDS); pages/s of the whole run. */
async function measure(extract: (html: string) => Promise<string>): Promise<Measurement> {
  const pages = pageSet();
  const texts: Record<string, string> = {};
  for (const page of pages) texts[page.name] = await extract(page.html);
  let passes = 0;
  const started = performance.now();
  while (passes < ROUNDS || performance.now() - started < MIN_MS) {
    for (const page of pages) await extract(page.html);
    passes++;
  }
  return { pagesPerSecond: (passes * pages.length) / ((performance.now() - started) / 1000), texts };
}

export const engines: Record<string, () => Promise<Measurement>> = {
  CUGAr: () => measure(async (html) => (await extractMainText(html, linkedomParser)).text),
  'readability + linkedom': () =>
    measure(async (html) => {
      const { document } = parseHTML(html);
      const article = new Readability(document as unknown as Document).parse();
      return article?.textContent ?? '';
    }),
};

/** Token F1 of two texts: the harmonic mean of precision and recall over their word multisets. */
export function tokenF1(predicted: string, reference: string): number {
  const counts = new Map<string, number>();
  for (const word of tokenize(reference)) counts.set(word, (counts.get(word) ?? 0) + 1);
  const predictedWords = tokenize(predicted);
  const referenceSize = [...counts.values()].reduce((a, b) => a + b, 0);
  if (predictedWords.length === 0 || referenceSize === 0) return predictedWords.length === referenceSize ? 1 : 0;
  let overlap = 0;
  for (const word of predictedWords) {
    const left = counts.get(word) ?? 0;
    if (left > 0) {
      overlap++;
      counts.set(word, left - 1);
    }
  }
  const precision = overlap / predictedWords.length;
  const recall = overlap / referenceSize;
  return overlap === 0 ? 0 : (2 * precision * recall) / (precision + recall);
}

const mean = (values: readonly number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);

export async function run(): Promise<BenchResult> {
  const pages = pageSet();
  const load = loadavg()[0]!;
  const ours = measureIsolated<Measurement>('extract.bench.ts', 'CUGAr');
  const peer = measureIsolated<Measurement>('extract.bench.ts', 'readability + linkedom');
  const generated = pages.filter((page) => page.gold !== undefined);
  const goldF1 = (m: Measurement) => mean(generated.map((page) => tokenF1(m.texts[page.name] ?? '', page.gold!)));
  const agreement = mean(pages.map((page) => tokenF1(ours.texts[page.name] ?? '', peer.texts[page.name] ?? '')));
  const ratio = ours.pagesPerSecond / peer.pagesPerSecond;
  return {
    name: 'extract',
    title: 'Main-text extraction (internet_extract) vs Readability',
    method: `${pages.length} pages (${pages.length - generated.length} saved pages from tests/fixtures/pages and ${generated.length} generated in ten layouts (div soup, two-column articles and cited links among them) with navigation, sidebars, comments, related links, cookie banners and footers), each extractor in its own Node process: one warm-up pass, then full passes for at least ${MIN_MS / 1000} s. Readability runs over the same pure-JS DOM (linkedom), as it would on a Worker. Quality is token F1 against the article text each generated page was built from; agreement is token F1 between the two extractors' texts over all pages.`,
    columns: ['extractor', 'pages/s', 'token F1 vs generated article text', 'token F1 vs the other extractor'],
    rows: [
      ['CUGAr (extractMainText)', fmt(ours.pagesPerSecond, 0), fmt(goldF1(ours), 3), fmt(agreement, 3)],
      ['@mozilla/readability + linkedom', fmt(peer.pagesPerSecond, 0), fmt(goldF1(peer), 3), fmt(agreement, 3)],
    ],
    targets: [
      { label: 'speed vs Readability (pages/s ratio)', measured: `${fmt(ratio, 2)}×`, target: '≥ 1×', met: ratio >= 1 },
      {
        label: 'token F1 vs generated article text',
        measured: `${fmt(goldF1(ours), 3)} vs ${fmt(goldF1(peer), 3)}`,
        target: '≥ 0.9',
        met: goldF1(ours) >= 0.9,
      },
    ],
    notes: [
      `Command: \`node --import tsx bench/run.ts extract\`; the 1-minute load average was ${fmt(load, 1)} when it started (the machine is shared, so absolute pages/s are low; the two engines ran back to back under the same load).`,
      `Per saved page, token F1 between the two extractors: ${pages
        .filter((page) => page.gold === undefined)
        .map((page) => `${page.name} ${fmt(tokenF1(ours.texts[page.name] ?? '', peer.texts[page.name] ?? ''), 2)}`)
        .join(', ')}.`,
      'The generated pages and the extractor were written by the same people: a token F1 of 1 on them shows the rules handle these ten layouts, not that they generalise to the open web. The speed ratio moved between 1.5× and 2.5× across five runs on this loaded machine.',
      'Readability keeps text that CUGAr drops on purpose (bylines, author names of forum posts) and joins blocks without separators; some disagreement is a difference of policy, not of accuracy.',
    ],
    measuredAt: new Date().toISOString().slice(0, 10),
    machine: machineDescription(),
  };
}
