#!/usr/bin/env node
// `npm start` builds the dashboard and the widget only when their sources changed since the last
// build: a fingerprint of every input file's path, size and modification time is kept beside the
// build (dist/.web-build), and a start with the same fingerprint skips both `vite build`s.
// `--force` builds anyway. Plain JavaScript, so it runs before anything is compiled.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const repository = new URL('../..', import.meta.url).pathname;
/** What the two builds read: the browser code and what it imports, and the build's own configuration. */
const INPUTS = ['src/web', 'src/core', 'src/api', 'src/mcp', 'vite.config.ts', 'tsconfig.json', 'package-lock.json', 'tests/support/chromium.ts'];
const OUTPUTS = ['dist/web/index.html', 'dist/widget/cugar-agent.iife.js', 'dist/widget/cugar-agent.es.js'];

function* files(root, path) {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) return;
  if (!stat.isDirectory()) {
    yield [relative(root, path), stat];
    return;
  }
  for (const name of readdirSync(path).sort()) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    yield* files(root, join(path, name));
  }
}

/** The inputs' fingerprint: path, size and modification time of each file, in a stable order. */
export function fingerprint(root = repository) {
  const hash = createHash('sha256');
  for (const input of INPUTS) for (const [path, stat] of files(root, join(root, input))) hash.update(`${path}\0${stat.size}\0${Math.trunc(stat.mtimeMs)}\n`);
  return hash.digest('hex');
}

/** Build when an output is missing or an input changed; returns whether it built. */
export function buildWebIfStale({ root = repository, force = false, log = (line) => process.stderr.write(`${line}\n`) } = {}) {
  const current = fingerprint(root);
  const stamp = join(root, 'dist/.web-build');
  const built = existsSync(stamp) ? readFileSync(stamp, 'utf8').trim() : '';
  if (!force && built === current && OUTPUTS.every((file) => existsSync(join(root, file)))) {
    log('dashboard and widget are up to date');
    return false;
  }
  log('building the dashboard and the widget…');
  const vite = join(root, 'node_modules/.bin/vite');
  // Errors still print; warnings about chunking are the build's business, not the person starting it.
  for (const args of [['build'], ['build', '--mode', 'widget']]) execFileSync(vite, [...args, '--logLevel', 'error'], { cwd: root, stdio: 'inherit' });
  writeFileSync(stamp, `${current}\n`);
  return true;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    buildWebIfStale({ force: process.argv.includes('--force') });
  } catch (error) {
    process.stderr.write(`the dashboard build failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}
