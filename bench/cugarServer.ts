// The Node host as `cugar serve` starts it, for the HTTP benchmark: same settings, same store,
// and one addition: a line `stats` on stdin prints the SQLite store's write counters, so
// the benchmark counts transactions instead of guessing them.
import { createInterface } from 'node:readline';
import { loadHostSettings, orchestratorOptionsOf } from '../src/cli/hostConfig.ts';
import { parseRateLimit, startServer } from '../src/edge/nodeServer.ts';
import { SqliteStore } from '../src/edge/sqliteStore.ts';

const dataDir = process.argv[2];
if (!dataDir) throw new Error('usage: cugarServer.ts <data-dir>');
const settings = await loadHostSettings({ env: process.env });
const rateLimit = parseRateLimit(process.env['CUGAR_RATE_LIMIT']);
const { approval, orchestrator: fromFile } = settings;
const server = await startServer({
  port: 0,
  hostname: '127.0.0.1',
  dataDir,
  tokens: settings.tokens,
  ...(rateLimit ? { rateLimit } : {}),
  ...(approval ? { approval } : {}),
  config: settings.config,
  mcp: settings.mcp,
  modelEnv: settings.modelEnv,
  secrets: settings.secrets,
  orchestrator: orchestratorOptionsOf(fromFile),
  log: (line) => process.stderr.write(`${line}\n`),
});
const store = server.runtime.store;
createInterface({ input: process.stdin }).on('line', (line) => {
  if (line.trim() !== 'stats') return;
  void store.listRuns({ status: 'running' }).then((running) => {
    const writes = store instanceof SqliteStore ? store.journalWrites : { transactions: Number.NaN, batches: Number.NaN };
    const memory = store instanceof SqliteStore ? store.memoryWrites.facts + store.memoryWrites.vectors : Number.NaN;
    process.stdout.write(`stats ${JSON.stringify({ ...writes, memory, running: running.length })}\n`);
  });
});
process.once('SIGTERM', () => void server.close().then(() => process.exit(0)));
