// `npm run bench [-- name …]`: runs the named benchmarks (all by default), stores each
// result under bench/results/, and rewrites docs/benchmarks.md from every stored result.
import { saveResult, writeReport, type BenchResult } from './report.ts';

const BENCHMARKS: Record<string, () => Promise<{ run: () => Promise<BenchResult> }>> = {
  embedder: () => import('./embedder.bench.ts'),
  'vector-search': () => import('./vectorSearch.bench.ts'),
  'vector-search-1m': () => import('./vectorSearch1m.bench.ts'),
  orchestrator: () => import('./orchestrator.bench.ts'),
  storage: () => import('./storage.bench.ts'),
  retrieval: () => import('./retrieval.bench.ts'),
  http: () => import('./http.bench.ts'),
  bundles: () => import('./bundles.bench.ts'),
  'trace-view': () => import('./traceView.bench.ts'),
  'large-views': () => import('./largeViews.bench.ts'),
  agent: () => import('./agent.bench.ts'),
  extract: () => import('./extract.bench.ts'),
  planner: () => import('./planner.bench.ts'),
  sandbox: () => import('./sandbox.bench.ts'),
  workers: () => import('./workers.bench.ts'),
};

const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const unknown = wanted.filter((name) => !(name in BENCHMARKS));
if (unknown.length > 0) {
  console.error(`unknown benchmark(s): ${unknown.join(', ')}; known: ${Object.keys(BENCHMARKS).join(', ')}`);
  process.exit(2);
}
for (const name of wanted.length ? wanted : Object.keys(BENCHMARKS)) {
  console.error(`▶ ${name}`);
  const { run } = await BENCHMARKS[name]!();
  const result = await run();
  saveResult(result);
  for (const row of result.rows) console.error(`  ${row.join('  ')}`);
  for (const t of result.targets) console.error(`  target ${t.label}: ${t.measured} (goal ${t.target}) ${t.met ? 'met' : 'NOT met'}`);
}
writeReport();
console.error('wrote docs/benchmarks.md');
