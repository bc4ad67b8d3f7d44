// Runs one engine of one benchmark in a fresh Node process, so no library loaded for a peer
// (natural pulls in database drivers, for one) can slow down another engine's code.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** A benchmark module whose engines can be measured one process at a time. */
export interface IsolatedModule<T> {
  engines: Record<string, () => Promise<T>>;
}

const here = fileURLToPath(new URL('.', import.meta.url));

/** Measure `engine` of `module` (a file name under bench/) in a child process; returns its JSON result. */
export function measureIsolated<T>(module: string, engine: string): T {
  const child = spawnSync(process.execPath, ['--expose-gc', '--max-old-space-size=8192', '--import', 'tsx', `${here}isolatedChild.ts`, module, engine], {
    cwd: `${here}..`,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, DOTENV_CONFIG_QUIET: 'true' },
  });
  if (child.status !== 0) throw new Error(`${module} ${engine} exited with ${child.status ?? child.signal}`);
  const line = child.stdout.trim().split('\n').at(-1) ?? '';
  return JSON.parse(line) as T;
}

/**
 * Measure each of `engines` of `module` in `passes` interleaved passes, every engine once per pass
 * in a fresh process (a process settles at a speed of its own, so figures are taken over several).
 * With `rotate`, each pass starts one engine later, so no engine always runs first. Returns each
 * engine's results in pass order.
 */
export function measureInterleaved<T>(module: string, engines: readonly string[], passes: number, options: { rotate?: boolean } = {}): Record<string, T[]> {
  const results: Record<string, T[]> = Object.fromEntries(engines.map((name) => [name, []]));
  for (let pass = 0; pass < passes; pass++)
    for (let k = 0; k < engines.length; k++) {
      const name = engines[options.rotate ? (pass + k) % engines.length : k]!;
      results[name]!.push(measureIsolated<T>(module, name));
    }
  return results;
}
