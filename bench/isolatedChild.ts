// Child-process entry of measureIsolated(): loads one benchmark module, runs one engine, prints its JSON result.
import type { IsolatedModule } from './isolate.ts';

const [module, engine] = process.argv.slice(2);
const loaded = (await import(`./${module}`)) as IsolatedModule<unknown>;
const measure = loaded.engines[engine!];
if (!measure) throw new Error(`no engine ${engine} in ${module}`);
process.stdout.write(`${JSON.stringify(await measure())}\n`);
