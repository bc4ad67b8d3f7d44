// A plan of independent CPU-bound steps of a tool written at run time (sandboxed), run with a
// worker pool of one and of two: the speed-up of parallel waves on real worker_threads.
import { loadavg } from 'node:os';
import { parse } from '@babel/parser';
import { Worker, parseConfig } from '../src/core/index.ts';
import { createRuntime } from '../src/api/runtime.ts';
import { createNodeSandbox } from '../src/edge/nodeSandbox.ts';
import { installNodeDigest } from '../src/edge/nodeDigest.ts';
import { SqliteStore } from '../src/edge/sqliteStore.ts';
import { measureInterleaved } from './isolate.ts';
import { machineDescription, type BenchResult } from './report.ts';
import { collect, fmt, percentile, time } from './stats.ts';

const STEPS = 8;
const WORK = 20_000_000;
const PASSES = 5;
const BUSY = 'export default function busy(input) { let x = 0; for (let i = 0; i < input.n; i++) x = (x * 31 + i) % 1000003; return { x }; }';

/** Milliseconds of one run of the plan on a host with a pool of `pool` workers (median of 3 after a warm-up run). */
async function planOn(pool: number): Promise<number> {
  installNodeDigest();
  const sandbox = createNodeSandbox({ poolSize: pool });
  const runtime = await createRuntime(new SqliteStore(':memory:'), parseConfig({}).config, {
    toolVersions: { sandbox, parser: parse, limits: { timeoutMs: 60_000 } },
    orchestrator: { workers: Array.from({ length: pool }, (_, i) => new Worker({ id: `worker-${i + 1}` })), routing: 'load_balanced', parallelSteps: pool },
  });
  const versions = runtime.toolVersions!;
  const proposal = {
    source: BUSY,
    description: 'Busy arithmetic for a while',
    inputSchema: { type: 'object', properties: { n: { type: 'integer', minimum: 1 } }, required: ['n'], additionalProperties: false },
    meta: { cost: 0, latency: 5_000, capabilities: [], idempotent: true },
  };
  const proposed = await versions.propose('demo', 'busy', proposal, 'bench');
  await versions.approve('demo', 'busy', proposed.hash, 'bench');
  const plan = Array.from({ length: STEPS }, (_, i) => ({ tool: 'busy', input: { n: WORK + i } }));
  const once = async () => {
    const outcome = await runtime.orchestrator.start('busy work', 'demo', { plan });
    if (outcome.status !== 'completed') throw new Error(`run ${outcome.status}`);
  };
  await once();
  const samples: number[] = [];
  for (let i = 0; i < 3; i++) {
    collect();
    samples.push(await time(once));
  }
  await sandbox.close();
  return percentile(samples, 50);
}

export const engines: Record<string, () => Promise<number>> = {
  pool1: () => planOn(1),
  pool2: () => planOn(2),
};

/** Pools of one and two, interleaved over passes; each figure is the median of the passes. */
export async function run(): Promise<BenchResult> {
  const passes = measureInterleaved<number>('workers.bench.ts', Object.keys(engines), PASSES);
  const one = percentile(passes['pool1']!, 50);
  const two = percentile(passes['pool2']!, 50);
  const speedup = one / two;
  return {
    name: 'workers',
    title: `Parallel steps on real workers (${STEPS} independent CPU-bound sandboxed steps)`,
    method: `A tool written at run time (audited, approved, run in the Node sandbox's worker_threads workers) loops ${fmt(WORK, 0)} times per call; a run's explicit plan calls it ${STEPS} times with inputs that do not depend on each other. The host runs with a worker pool of one (steps one at a time, one sandbox worker) and of two (worker_pool_size 2: waves of two steps, each routed by load when ready, the tool served by two sandbox workers), every run journaled in SQLite. Each pool runs in its own process: a warm-up run, then the median of 3 runs; the figure is the median over ${PASSES} interleaved passes.`,
    columns: ['worker pool', 'ms per run', 'speed-up'],
    rows: [
      ['1 (one step at a time)', fmt(one, 0), '1.00×'],
      ['2 (waves of two)', fmt(two, 0), `${fmt(speedup, 2)}×`],
    ],
    targets: [{ label: 'speed-up of a pool of two on 2 cores', measured: `${fmt(speedup, 2)}×`, target: 'reported (ideal 2×)', met: speedup > 1 }],
    notes: [
      `Load average (1 min) when the measurement ended: ${fmt(loadavg()[0]!, 1)} on 2 cores; with other work on the machine, the second core is partly taken and the speed-up falls short of 2×.`,
      'Journal order does not depend on which call of a wave finishes first: starts and completions are appended in plan order (tests/conformance/parallelSteps.test.ts).',
    ],
    measuredAt: new Date().toISOString().slice(0, 10),
    machine: machineDescription(),
  };
}
