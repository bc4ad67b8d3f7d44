import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkSource } from './guardrails.ts';

const root = join(import.meta.dirname, '..', '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(?:ts|tsx|mts|js|mjs|jsx)$/.test(name) ? [path] : [];
  });
}

describe('guardrails (code as policy)', () => {
  const files = sourceFiles(join(root, 'src')).map((path) => relative(root, path).split('\\').join('/'));

  it('finds the source tree', () => {
    expect(files.filter((f) => f.startsWith('src/core/')).length).toBeGreaterThan(20);
  });

  it('keeps src/core free of Node, DOM, host and framework imports and globals, its folders in their order, and src free of eval', () => {
    const violations = files.flatMap((file) => {
      const isCore = file.startsWith('src/core/') && !file.endsWith('.test.ts');
      return checkSource(file, readFileSync(join(root, file), 'utf8'), isCore);
    });
    expect(violations).toEqual([]);
  });

  it('catches each kind of violation (the checker itself can fail)', () => {
    const bad = [
      [`import { readFile } from 'node:fs';`, 'core-import'],
      [`import Dexie from 'dexie';`, 'core-import'],
      [`import { Hono } from 'hono';`, 'core-import'],
      [`import React from 'react';`, 'core-import'],
      [`export * from '../../edge/app.ts';`, 'core-import'],
      [`import x from '../../web/thing.ts';`, 'core-import'],
      [`import x from '../../cli/main.ts';`, 'core-import'],
      [`const m = await import(name);`, 'core-import'],
      [`const w = window.innerWidth;`, 'core-global'],
      [`document.title = 'x';`, 'core-global'],
      [`const e = process.env.X;`, 'core-global'],
      [`localStorage.setItem('a', 'b');`, 'core-global'],
      [`eval('1 + 1');`, 'no-eval'],
      [`const f = new Function('return 1');`, 'no-eval'],
      [`const f = Function('return 1');`, 'no-eval'],
      [`globalThis.eval('1');`, 'no-eval'],
      [`setTimeout('alert(1)', 1);`, 'no-eval'],
      [`import vm from 'node:vm';`, 'no-eval'],
      [`const { runInNewContext } = await import('vm');`, 'no-eval'],
      [`import { Worker } from 'node:worker_threads';`, 'no-eval'],
      [`const w = new Worker(new URL('data:text/javascript,postMessage(1)'));`, 'no-eval'],
      [`const w = new Worker(URL.createObjectURL(blob), { name: 'x' });`, 'no-eval'],
      [`const w = new SharedWorker('/worker.js');`, 'no-eval'],
      [`const tool = await loadWithoutAudit(sandbox, factory);`, 'no-eval'],
    ] as const;
    for (const [code, rule] of bad) {
      expect(
        checkSource('src/core/x/sample.ts', code, true).map((v) => v.rule),
        code,
      ).toContain(rule);
    }
    // Inside the core, the journal and routing folders never import the orchestrator.
    for (const [file, code] of [
      ['src/core/journal/trace.ts', `import { applyEvent } from '../orchestrator/runState.ts';`],
      ['src/core/routing/coordinator.ts', `export { resolveReferences } from '../orchestrator/executor.ts';`],
      ['src/core/journal/replay.ts', `const m = await import('../orchestrator/orchestrator.ts');`],
    ] as const) {
      expect(
        checkSource(file, code, true).map((v) => v.rule),
        `${file}: ${code}`,
      ).toContain('core-folder');
    }
    expect(checkSource('src/core/orchestrator/runSession.ts', `import { sealEvent } from '../journal/journal.ts';`, true)).toEqual([]);
    expect(checkSource('src/core/journal/replay.ts', `import { canonicalJson } from './canonicalJson.ts';`, true)).toEqual([]);
    // Host code may import Node, but never eval.
    expect(checkSource('src/edge/server.ts', `import { readFile } from 'node:fs';`, false)).toEqual([]);
    expect(checkSource('src/edge/server.ts', `eval(code)`, false).map((v) => v.rule)).toEqual(['no-eval']);
    // The sandbox's loaders are the one place that starts a worker from a script; the routing pool's workers are objects.
    expect(checkSource('src/edge/nodeSandbox.ts', `import { Worker } from 'node:worker_threads';\nnew Worker(url, { env: {} });`, false)).toEqual([]);
    expect(checkSource('src/web/sandbox/browserSandbox.ts', `new Worker(URL.createObjectURL(blob));`, false)).toEqual([]);
    expect(checkSource('src/core/orchestrator/x.ts', `const pool = [new Worker({ id: 'local' })];`, true)).toEqual([]);
    expect(checkSource('src/edge/nodeSandbox.ts', `import vm from 'node:vm';`, false).map((v) => v.rule)).toEqual(['no-eval']);
    // Words in strings, comments and property names are not uses.
    expect(checkSource('src/core/x/ok.ts', `// the document window\nconst s = 'process the document'; const o = { document: 1 }; o.document;`, true)).toEqual(
      [],
    );
  });
});
