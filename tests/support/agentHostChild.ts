// A Node host process for the agent kill test: the real host (SQLite under the data directory)
// with its model settings from the environment; it prints `ready <url> <token>` once it serves.
import { startServer } from '../../src/edge/nodeServer.ts';

const [dataDir, corpusDir] = process.argv.slice(2);
const server = await startServer({ port: 0, dataDir: dataDir!, corpusDir: corpusDir!, log: (line) => process.stderr.write(`${line}\n`) });
process.stdout.write(`ready ${server.url} ${server.localToken}\n`);
