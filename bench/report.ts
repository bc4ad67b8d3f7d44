import { readdirSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';

/** One benchmark's results, stored as JSON under bench/results and rendered into docs/benchmarks.md. */
export interface BenchResult {
  name: string;
  title: string;
  /** How the numbers were obtained, in a sentence or two. */
  method: string;
  columns: string[];
  rows: Array<Array<string | number>>;
  /** Target checks: the measured ratio or figure next to the goal. */
  targets: Array<{ label: string; measured: string; target: string; met: boolean }>;
  notes?: string[];
  measuredAt: string;
  machine: string;
}

const here = new URL('.', import.meta.url).pathname;
const resultsDir = join(here, 'results');
const docsFile = join(here, '..', 'docs', 'benchmarks.md');

export function machineDescription(): string {
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  return `${cpus().length} × ${cpu}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
}

export function saveResult(result: BenchResult): void {
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(join(resultsDir, `${result.name}.json`), JSON.stringify(result, null, 2) + '\n');
}

function table(columns: string[], rows: Array<Array<string | number>>): string {
  const head = `| ${columns.join(' | ')} |\n| ${columns.map(() => '---').join(' | ')} |`;
  return [head, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

/** Rebuild docs/benchmarks.md from every stored result. */
export function writeReport(): void {
  mkdirSync(resultsDir, { recursive: true });
  const results = readdirSync(resultsDir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => JSON.parse(readFileSync(join(resultsDir, f), 'utf8')) as BenchResult);
  const sections = results.map((r) => {
    const targets = r.targets.length
      ? `\n\n${table(
          ['target', 'measured', 'goal', 'met'],
          r.targets.map((t) => [t.label, t.measured, t.target, t.met ? 'yes' : '**no**']),
        )}`
      : '';
    const notes = r.notes?.length ? `\n\n${r.notes.map((n) => `- ${n}`).join('\n')}` : '';
    return `## ${r.title}\n\n${r.method}\n\nMeasured ${r.measuredAt} on ${r.machine}.\n\n${table(r.columns, r.rows)}${targets}${notes}`;
  });
  const text = `# Benchmarks

Produced by \`npm run bench\` (or \`npm run bench -- <name>\` for one of: ${results.map((r) => `\`${r.name}\``).join(', ')}).
Each table comes from one run: CUGAr and its peers get the same seeded data, each engine in a fresh
Node process one after the other (so no library loaded for one can slow another). The ratios matter
more than the absolute figures: the machine is shared and noisy.
Peers are installed under \`bench/\` only and are never dependencies of the product.

${sections.join('\n\n')}
`;
  writeFileSync(docsFile, text);
}
