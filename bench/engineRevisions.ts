// Compare the engine of two checkouts, interleaved on this machine:
//   git worktree add /tmp/before <commit> && ln -s "$PWD/node_modules" /tmp/before/node_modules
//   node --import tsx bench/engineRevisions.ts /tmp/before . [rounds]
// Each round runs both workloads once per checkout, each in its own process, alternating;
// the figures are medians over the rounds. Workloads: a 1,000-step explicit plan of a no-op
// tool (fastest of 7 runs in one process; the journal head must be identical), and 300
// three-step goals planned by the lexical planner through one orchestrator (runs per second).
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

const [before, after, roundsArg] = process.argv.slice(2);
if (!before || !after) {
  console.error('usage: node --import tsx bench/engineRevisions.ts <checkout-before> <checkout-after> [rounds]');
  process.exit(2);
}
const rounds = Number(roundsArg ?? 5);

/** The workload, run in a child so each checkout's modules load fresh. */
const WORKLOAD = `
import { existsSync } from 'node:fs';
import { z } from 'zod';
const [root, kind] = process.argv.slice(-2);
const core = { ...(await import(root + '/src/core/index.ts')), ...(existsSync(root + '/src/core/testing.ts') ? await import(root + '/src/core/testing.ts') : {}) };
const registry = new core.ToolRegistry();
if (kind === 'plan') {
  const STEPS = 1000;
  registry.register('bench', 'noop', { description: 'does nothing', parameters: z.object({ i: z.number() }), idempotent: true, handler: ({ i }) => i });
  const plan = Array.from({ length: STEPS }, (_, i) => ({ tool: 'noop', input: { i } }));
  let best = Infinity, head = '';
  for (let r = 0; r < 7; r++) {
    const o = new core.Orchestrator({ registry, store: new core.InMemoryStore(), ids: core.createSequentialIds('b' + r), clock: core.steppingClock(1000, 1), autonomy: { maxRepeats: STEPS + 1 } });
    const t = performance.now();
    const outcome = await o.start('run the plan', 'bench', { plan });
    best = Math.min(best, performance.now() - t);
    if (outcome.status !== 'completed') throw new Error(outcome.status);
    head = outcome.head.hash;
  }
  console.log(JSON.stringify({ value: best, head }));
} else {
  core.registerBuiltinTools(registry);
  const o = new core.Orchestrator({ registry, store: new core.InMemoryStore(), ids: core.createSequentialIds('g'), clock: core.steppingClock(1000, 1) });
  const RUNS = 300;
  const t = performance.now();
  for (let r = 0; r < RUNS; r++) if ((await o.start('add 2 and 3 then multiply the result by 4', 'demo')).status !== 'completed') throw new Error('run failed');
  console.log(JSON.stringify({ value: (RUNS / (performance.now() - t)) * 1000 }));
}
`;

function measure(root: string, kind: 'plan' | 'goals'): { value: number; head?: string } {
  const result = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', WORKLOAD, resolve(root), kind], {
    cwd: resolve(root),
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`${root} ${kind}: ${result.stderr}`);
  return JSON.parse(result.stdout.trim().split('\n').at(-1)!) as { value: number; head?: string };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const samples = { planBefore: [] as number[], planAfter: [] as number[], goalsBefore: [] as number[], goalsAfter: [] as number[] };
const heads = new Set<string>();
for (let round = 0; round < rounds; round++) {
  const a = measure(before, 'plan');
  const b = measure(after, 'plan');
  samples.planBefore.push(a.value);
  samples.planAfter.push(b.value);
  heads.add(`${a.head}|${b.head}`);
  samples.goalsBefore.push(measure(before, 'goals').value);
  samples.goalsAfter.push(measure(after, 'goals').value);
}
const identical = [...heads].every((pair) => pair.split('|')[0] === pair.split('|')[1]);
console.log(
  `1,000-step plan: before ${median(samples.planBefore).toFixed(1)} ms, after ${median(samples.planAfter).toFixed(1)} ms → ${(median(samples.planBefore) / median(samples.planAfter)).toFixed(2)}× (journal heads ${identical ? 'identical' : 'DIFFER'})`,
);
console.log(
  `300 planned 3-step goals: before ${median(samples.goalsBefore).toFixed(0)} runs/s, after ${median(samples.goalsAfter).toFixed(0)} runs/s → ${(median(samples.goalsAfter) / median(samples.goalsBefore)).toFixed(2)}×`,
);
console.log(
  `medians over ${rounds} interleaved rounds; load average ${(await import('node:os'))
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
