import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: plain JavaScript run before anything is compiled; no declarations.
import { buildWebIfStale, fingerprint } from '../../src/cli/webBuild.mjs';

// A repository of a few files, with a `vite` that records how it was called and writes the outputs.
const root = mkdtempSync(join(tmpdir(), 'cugar-web-build-'));
mkdirSync(join(root, 'src/web'), { recursive: true });
mkdirSync(join(root, 'node_modules/.bin'), { recursive: true });
writeFileSync(join(root, 'src/web/main.tsx'), 'export {};\n');
writeFileSync(join(root, 'vite.config.ts'), 'export default {};\n');
writeFileSync(
  join(root, 'node_modules/.bin/vite'),
  '#!/bin/sh\necho "$@" >> calls.log\nmkdir -p dist/web dist/widget\ntouch dist/web/index.html dist/widget/cugar-agent.iife.js dist/widget/cugar-agent.es.js\n',
);
chmodSync(join(root, 'node_modules/.bin/vite'), 0o755);
afterAll(() => rmSync(root, { recursive: true, force: true }));

const calls = () => readFileSync(join(root, 'calls.log'), 'utf8').trim().split('\n');
const build = (force = false) => buildWebIfStale({ root, force, log: () => undefined }) as boolean;

describe('npm start builds the dashboard only when its sources changed', () => {
  it('builds both when nothing was built, then skips until a source changes', () => {
    expect(build()).toBe(true);
    expect(calls()).toEqual(['build --logLevel error', 'build --mode widget --logLevel error']);
    expect(build()).toBe(false);
    expect(calls()).toHaveLength(2);

    const file = join(root, 'src/web/main.tsx');
    const { atime, mtimeMs } = statSync(file);
    const before = fingerprint(root) as string;
    utimesSync(file, atime, new Date(mtimeMs + 5_000));
    expect(fingerprint(root)).not.toBe(before);
    expect(build()).toBe(true);
    expect(calls()).toHaveLength(4);

    // An output gone builds again; --force builds anyway.
    rmSync(join(root, 'dist/widget/cugar-agent.iife.js'));
    expect(build()).toBe(true);
    expect(build(true)).toBe(true);
    expect(build()).toBe(false);
    expect(calls()).toHaveLength(8);
  });
});
