import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { verifyJournal } from '../../src/core/index.ts';
import { createSeededRandom } from '../../src/core/testing.ts';
import { SqliteStore } from '../../src/edge/sqliteStore.ts';

const root = join(import.meta.dirname, '..', '..');

/** What a kill campaign found. */
export interface KillReport {
  kills: number;
  runs: number;
  completed: number;
  steps: number;
  ledgerLines: number;
  duplicateEffects: number;
  missingEffects: number;
  unverified: number;
  seconds: number;
}

/** Bundle the child once so each process starts in tens of milliseconds. */
async function bundleChild(out: string): Promise<void> {
  await build({
    entryPoints: [join(root, 'tests/support/killChild.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile: out,
    external: ['better-sqlite3'],
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
    logLevel: 'silent',
  });
}

function runChild(script: string, args: string[], killAfterMs: number | undefined): Promise<{ killed: boolean; code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let killed = false;
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.stdout.on('data', (chunk: Buffer) => {
      if (killAfterMs !== undefined && chunk.toString().includes('ready')) {
        setTimeout(() => {
          killed = child.kill('SIGKILL');
        }, killAfterMs);
      }
    });
    child.on('error', reject);
    child.on('exit', (code) => resolve({ killed: killed && code === null, code, stderr }));
  });
}

/**
 * Run a kill campaign: `kills` worker processes, each SIGKILLed at a seeded random moment
 * while it runs plans against one SQLite file, then one process that finishes everything.
 */
export async function killCampaign(options: {
  dir: string;
  kills: number;
  runs: number;
  steps: number;
  seed: number;
  maxDelayMs?: number;
}): Promise<KillReport> {
  const started = performance.now();
  mkdirSync(options.dir, { recursive: true });
  // The bundle lives in the checkout so it resolves better-sqlite3 from node_modules.
  mkdirSync(join(root, '.vitest-reports'), { recursive: true });
  const script = join(root, '.vitest-reports', `kill-child-${options.seed}.mjs`);
  const db = join(options.dir, 'kill.db');
  const ledger = join(options.dir, 'ledger.txt');
  for (const file of [db, `${db}-wal`, `${db}-shm`, ledger]) rmSync(file, { force: true });
  await bundleChild(script);
  const random = createSeededRandom(options.seed);
  let kills = 0;
  for (let i = 0; kills < options.kills && i < options.kills * 3; i++) {
    const delay = Math.floor(random.next() * (options.maxDelayMs ?? 60));
    const result = await runChild(script, [db, ledger, String(options.seed + i), String(options.runs), String(options.steps)], delay);
    if (result.killed) kills++;
    else if (result.code !== 0) throw new Error(`worker ${i} failed: ${result.stderr}`);
  }
  const finish = await runChild(script, [db, ledger, String(options.seed), String(options.runs), String(options.steps)], undefined);
  if (finish.code !== 0) throw new Error(`finishing worker failed: ${finish.stderr}`);

  const store = new SqliteStore(db);
  const runs = await store.listRuns();
  const lines = existsSync(ledger) ? readFileSync(ledger, 'utf8').split('\n').slice(0, -1) : [];
  const counts = new Map<string, number>();
  for (const line of lines) counts.set(line, (counts.get(line) ?? 0) + 1);
  let unverified = 0;
  let missing = 0;
  let steps = 0;
  for (const run of runs) {
    const journal = await store.readJournal(run.runId);
    if (!verifyJournal(journal, run.head).ok) unverified++;
    for (let n = 0; n < options.steps; n++) {
      steps++;
      if (counts.get(`${run.runId}:step-${n}`) !== 1) missing += counts.has(`${run.runId}:step-${n}`) ? 0 : 1;
    }
  }
  await store.close();
  return {
    kills,
    runs: runs.length,
    completed: runs.filter((r) => r.status === 'completed').length,
    steps,
    ledgerLines: lines.length,
    duplicateEffects: [...counts.values()].filter((c) => c > 1).length,
    missingEffects: missing,
    unverified,
    seconds: (performance.now() - started) / 1000,
  };
}
