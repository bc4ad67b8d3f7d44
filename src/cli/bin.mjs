#!/usr/bin/env node
// The `cugar` command. The CLI is TypeScript; tsx loads it without a build step.
import { register } from 'tsx/esm/api';

// A closed pipe (`cugar runs | head`) is not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}

register();
const { main } = await import('./main.ts');
process.exitCode = await main(process.argv.slice(2));
