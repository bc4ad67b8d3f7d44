#!/usr/bin/env node
// `npm test`: every check and every suite, then one summary line `N passed, N failed[, N skipped]`.
// Installs what npm cannot (Debian's chromium) when it is missing and we are root.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const bin = (name) => join(root, 'node_modules', '.bin', name);
const reports = join(root, '.vitest-reports');
const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

let passed = 0;
let failed = 0;
let skipped = 0;
const problems = [];

function run(label, command, args, options = {}) {
  console.log(`\n▶ ${label}`);
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...options.env } });
  const ok = result.status === 0;
  if (!ok) problems.push(`${label} (exit ${result.status ?? result.signal})`);
  return ok;
}

function ensureChromium() {
  if (existsSync(chromium)) return true;
  if (typeof process.getuid === 'function' && process.getuid() === 0) {
    console.log(`Chromium is missing at ${chromium}; installing Debian's chromium package…`);
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
    spawnSync('apt-get', ['install', '-y', '-qq', 'chromium'], { stdio: 'inherit', env });
    if (existsSync(chromium)) return true;
  }
  console.error(
    `\nChromium is required for the browser suites and was not found at ${chromium}.\n` +
      `Install it with:  sudo apt-get install chromium   (Debian/Ubuntu)\n` +
      `or point CHROMIUM_PATH at an existing Chromium or Chrome binary.\n`,
  );
  return false;
}

function countVitest(file) {
  if (!existsSync(file)) {
    failed += 1;
    problems.push(`${file} was not written`);
    return;
  }
  const report = JSON.parse(readFileSync(file, 'utf8'));
  passed += report.numPassedTests ?? 0;
  failed += report.numFailedTests ?? 0;
  skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  // A suite that failed to load counts as a failure even though it ran no test.
  for (const suite of report.testResults ?? []) {
    if (suite.status === 'failed' && (suite.assertionResults ?? []).length === 0) {
      failed += 1;
      problems.push(`suite failed to load: ${suite.name}`);
    }
  }
}

rmSync(reports, { recursive: true, force: true });
mkdirSync(reports, { recursive: true });

if (!run('typecheck', bin('tsc'), ['--noEmit', '-p', 'tsconfig.json'])) failed += 1;
if (!run('typecheck (core: no DOM, no Node)', bin('tsc'), ['--noEmit', '-p', 'src/core/tsconfig.json'])) failed += 1;
if (!run('lint', bin('eslint'), ['--max-warnings', '0', '.'])) failed += 1;
if (!run('format (prettier --check; `npm run format` fixes it)', bin('prettier'), ['--check', '--log-level', 'warn', '.'])) failed += 1;

if (!run('build the dashboard', bin('vite'), ['build', '--logLevel', 'warn'])) failed += 1;
if (!run('build the widget', bin('vite'), ['build', '--mode', 'widget', '--logLevel', 'warn'])) failed += 1;

const projects = ['node', 'workerd'];
if (ensureChromium()) projects.push('chromium');
else {
  failed += 1;
  problems.push('chromium suites not run: no browser');
}
const vitestReport = join(reports, 'vitest.json');
run(
  `vitest (${projects.join(', ')})`,
  bin('vitest'),
  ['run', ...projects.flatMap((p) => ['--project', p]), '--reporter=default', '--reporter=json', `--outputFile.json=${vitestReport}`],
  { env: { CHROMIUM_PATH: chromium, WRANGLER_SEND_METRICS: 'false', WRANGLER_SEND_ERROR_REPORTS: 'false', CLOUDFLARE_CF_FETCH_ENABLED: 'false' } },
);
countVitest(vitestReport);

if (problems.length > 0) {
  console.log('\nProblems:');
  for (const problem of problems) console.log(`  - ${problem}`);
}
console.log(`\n${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 || problems.length > 0 ? 1 : 0);
