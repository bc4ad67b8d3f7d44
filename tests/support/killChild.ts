// A worker process for the kill test: resumes every unfinished run and starts new ones until
// `runs` exist, against one SQLite file; the parent kills it at random moments. The last
// worker is left alone to finish everything.
// Side effects go to a ledger file, deduplicated by idempotency key.
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { z } from 'zod';
import { Orchestrator, ToolRegistry, type Store } from '../../src/core/index.ts';
import { createSeededRandom } from '../../src/core/testing.ts';
import { SqliteStore } from '../../src/edge/sqliteStore.ts';

const [dbPath, ledgerPath, seedText, runsText, stepsText] = process.argv.slice(2);
const seed = Number(seedText);
const totalRuns = Number(runsText);
const stepsPerRun = Number(stepsText);
const random = createSeededRandom(seed);

// Only complete lines count: a line cut short by a kill is not an effect.
const ledger = new Set(existsSync(ledgerPath!) ? readFileSync(ledgerPath!, 'utf8').split('\n').slice(0, -1) : []);

const registry = new ToolRegistry();
registry.register('kill', 'ledger_write', {
  description: 'write an entry to the ledger once per idempotency key',
  parameters: z.object({ n: z.number().int() }),
  idempotent: true,
  handler: async ({ n }, context) => {
    await new Promise((resolve) => setTimeout(resolve, Math.floor(random.next() * 3)));
    if (!ledger.has(context.idempotencyKey)) {
      appendFileSync(ledgerPath!, `${context.idempotencyKey}\n`);
      ledger.add(context.idempotencyKey);
    }
    return n;
  },
});

const store: Store = new SqliteStore(dbPath!);
const orchestrator = new Orchestrator({ registry, store, seed, retry: { maxAttempts: 1 }, autonomy: { maxRepeats: 1_000 } });
const plan = Array.from({ length: stepsPerRun }, (_, n) => ({ tool: 'ledger_write', input: { n } }));

async function unfinished(): Promise<string[]> {
  const runs = await store.listRuns();
  return runs.filter((r) => r.status !== 'completed').map((r) => r.runId);
}

async function main(): Promise<void> {
  process.stdout.write('ready\n');
  const work: Array<Promise<unknown>> = (await unfinished()).map((runId) => orchestrator.resume(runId));
  let next = (await store.listRuns()).length;
  // Three runs at a time, so a kill often lands in the middle of several.
  for (let lane = 0; lane < 3; lane++) {
    work.push(
      (async () => {
        while (next < totalRuns) {
          const runId = `run-${next++}`;
          await orchestrator.start('write the ledger', 'kill', { runId, plan });
        }
      })(),
    );
  }
  await Promise.all(work);
  await store.close?.();
}

main().then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`${String(error?.stack ?? error)}\n`);
    process.exit(1);
  },
);
