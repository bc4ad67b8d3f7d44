import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse } from '@babel/parser';
import { ToolRegistry, ValidationError, analyzeCode as analyzeWith, registerCodeTools, type CodeLanguage } from '../../src/core/index.ts';

const analyzeCode = (source: string, options: { language?: CodeLanguage } = {}) => analyzeWith(source, { ...options, parser: parse });

const rulesOf = async (source: string, language: 'javascript' | 'typescript' | 'jsx' | 'tsx' = 'typescript') =>
  (await analyzeCode(source, { language })).findings.map((f) => `${f.rule}/${f.severity}`);

describe('code_analyzer rules', () => {
  const cases: Array<[string, string, string]> = [
    ['eval', `eval('1 + 1')`, 'dynamic_code/critical'],
    ['indirect eval through the global', `globalThis.eval('1')`, 'dynamic_code/critical'],
    ['the Function constructor', `const f = new Function('a', 'return a')`, 'dynamic_code/critical'],
    ['a string timer', `setTimeout('alert(1)', 10)`, 'dynamic_code/critical'],
    ['a computed string timer', 'setInterval(`run(${x})`, 10)', 'dynamic_code/high'],
    ['constructor.constructor', `a.constructor.constructor('return this')()`, 'constructor_escape/critical'],
    ["x['constr' + 'uctor']", `x['constr' + 'uctor']`, 'constructor_escape/critical'],
    ['a template that spells __proto__', 'x[`__pro${"to"}__`]', 'constructor_escape/critical'],
    ['.constructor alone', `value.constructor === Object`, 'constructor_escape/medium'],
    ['process', `process.exit(1)`, 'process_access/high'],
    ['process.binding', `process.binding('fs')`, 'process_access/critical'],
    ['child_process', `import { exec } from 'node:child_process'`, 'process_access/critical'],
    ['require of child_process', `const cp = require('child_process')`, 'process_access/critical'],
    ['fs', `import { readFileSync } from 'fs'`, 'filesystem_access/high'],
    ['fs/promises', `const fs = await import('node:fs/promises')`, 'filesystem_access/high'],
    ['fetch', `fetch('https://example.com')`, 'network_access/high'],
    ['XMLHttpRequest', `new XMLHttpRequest()`, 'network_access/high'],
    ['WebSocket', `new WebSocket('wss://x')`, 'network_access/high'],
    ['http', `import http from 'node:http'`, 'network_access/high'],
    ['net', `const net = require('net')`, 'network_access/high'],
    ['dns', `import dns from 'dns'`, 'network_access/high'],
    ['import of a URL', `await import('https://cdn.example.com/x.js')`, 'network_access/critical'],
    ['fetch through the global object', `self['fetch']('x')`, 'network_access/high'],
    ['sendBeacon', `navigator.sendBeacon('/x', data)`, 'network_access/high'],
    ['import by expression', `await import(name)`, 'dynamic_import/critical'],
    ['require by expression', `require('./' + name)`, 'dynamic_import/critical'],
    ['require as a value', `const r = require; r('fs')`, 'dynamic_import/high'],
    ['Object.prototype mutation', `Object.prototype.isAdmin = true`, 'prototype_tampering/critical'],
    ['Array.prototype mutation', `Array.prototype.map = () => []`, 'prototype_tampering/critical'],
    ['delete on a built-in prototype', `delete Array.prototype.includes`, 'prototype_tampering/critical'],
    ['setPrototypeOf on a built-in', `Object.setPrototypeOf(Object.prototype, evil)`, 'prototype_tampering/critical'],
    ['defineProperty on a prototype', `Reflect.defineProperty(String.prototype, 'x', { value: 1 })`, 'prototype_tampering/critical'],
    ['__proto__ in a literal', `const o = { __proto__: evil }`, 'prototype_tampering/high'],
    ['__proto__ access', `obj.__proto__.x = 1`, 'prototype_tampering/high'],
    ['setPrototypeOf on an own object', `Object.setPrototypeOf(mine, other)`, 'prototype_tampering/medium'],
    ['globalThis', `globalThis.x = 1`, 'global_object/medium'],
    ['window', `window.location.href`, 'global_object/medium'],
    ['while (true)', `while (true) { work(); }`, 'unbounded_loop/high'],
    ['for (;;)', `for (;;) { work(); }`, 'unbounded_loop/high'],
    ['do … while (1)', `do { work(); } while (1)`, 'unbounded_loop/high'],
    ['a break of an inner loop only', `while (true) { for (const x of xs) { break; } }`, 'unbounded_loop/high'],
    ['a break of a labelled block inside', `for (;;) { inner: { break inner; } }`, 'unbounded_loop/high'],
    ['a return inside a nested function only', `while (true) { const f = () => { return 1; }; }`, 'unbounded_loop/high'],
    ['WebAssembly', `WebAssembly.instantiate(bytes)`, 'webassembly/high'],
    ['SharedArrayBuffer', `new SharedArrayBuffer(8)`, 'shared_memory/medium'],
    ['Atomics', `Atomics.wait(view, 0, 0)`, 'shared_memory/medium'],
    ['with', `with (obj) { x = 1; }`, 'with_statement/medium'],
  ];
  for (const [name, source, expected] of cases) {
    it(`finds ${name}`, async () => {
      expect(await rulesOf(source, name === 'with' ? 'javascript' : 'typescript')).toContain(expected);
    });
  }

  const clean: Array<[string, string]> = [
    ['a loop with a break', `while (true) { if (done()) break; }`],
    ['a loop with a return', `function f() { for (;;) { if (x) return 1; } }`],
    ['a loop with a labelled break to itself', `outer: for (;;) { for (const y of ys) { break outer; } }`],
    ['a bounded loop', `for (let i = 0; i < 10; i++) total += i;`],
    ['property names that are words', `const o = { fetch: 1, eval: 2, process: 3 }; o.fetch; o.process;`],
    ['a shadowing declaration', `function f(process) { return process; }`],
    ['a string that mentions eval', `const s = 'eval(1) and fetch()';`],
    ['a function timer', `setTimeout(() => run(), 10)`],
    ['TypeScript types that name globals', `let w: Window; type P = typeof process;`],
  ];
  for (const [name, source] of clean) {
    it(`does not flag ${name}`, async () => {
      const report = await analyzeCode(source);
      expect(report.findings.filter((f) => f.severity !== 'info' && f.rule !== 'global_object' && f.rule !== 'process_access')).toEqual([]);
      if (name !== 'TypeScript types that name globals') expect(report.score).toBe(100);
    });
  }

  it('resolves names by scope: a local binding is not the global, the global in another scope still is', async () => {
    const report = await analyzeCode(
      `function local(fetch) { return fetch; }\nfunction remote() { return fetch('https://x'); }\nconst process = 1; { let eval2 = process; }`,
    );
    expect(report.findings.map((f) => [f.rule, f.line])).toEqual([['network_access', 2]]);
    expect(await rulesOf(`try { x(); } catch (fetch) { fetch.message; }\nclass A { m(process) { return process; } }`)).toEqual([]);
    expect(await rulesOf(`{ const fetch = 1; }\nfetch('x');`)).toEqual(['network_access/high']);
    expect(await rulesOf(`for (var i = 0; i < 1; i++) { var fetch = 2; }\nfetch;`)).toEqual([]);
  });

  it('reports positions, a score, a verdict and one recommendation per rule', async () => {
    const report = await analyzeCode(`const a = 1;\nfetch('x');\neval('2');\neval('3');`, { language: 'javascript' });
    expect(report.findings.map((f) => [f.rule, f.line, f.column])).toEqual([
      ['network_access', 2, 0],
      ['dynamic_code', 3, 0],
      ['dynamic_code', 4, 0],
    ]);
    expect(report.score).toBe(0);
    expect(report.verdict).toBe('unsafe');
    expect(report.recommendations).toHaveLength(2);
    expect(report.recommendations[0]).toMatch(/eval/);
    const mild = await analyzeCode(`globalThis.x = 1;`);
    expect([mild.score, mild.verdict]).toEqual([92, 'safe']);
    const review = await analyzeCode(`fetch('x')`);
    expect([review.score, review.verdict]).toEqual([80, 'review']);
  });

  it('measures size and cyclomatic complexity', async () => {
    const branches = Array.from({ length: 20 }, (_, i) => `if (x === ${i}) y++;`).join('\n');
    const report = await analyzeCode(`function busy(x) {\n${branches}\n}`);
    expect(report.metrics).toMatchObject({ functions: 1, maxComplexity: 21 });
    expect(report.findings).toContainEqual(expect.objectContaining({ rule: 'complexity', severity: 'low', line: 1 }));
    const large = await analyzeCode(`const s = '${'a'.repeat(120_000)}';`);
    expect(large.findings.map((f) => f.rule)).toContain('size');
  });

  it('parses TypeScript, JSX and TSX, and says when it cannot', async () => {
    expect((await analyzeCode(`const x: number = <number>y;`, { language: 'typescript' })).parsed).toBe(true);
    expect((await analyzeCode(`const el = <div onClick={() => fetch('/x')}>hi</div>;`, { language: 'jsx' })).findings.map((f) => f.rule)).toContain(
      'network_access',
    );
    expect((await analyzeCode(`const el: JSX.Element = <App<string> />;`, { language: 'tsx' })).parsed).toBe(true);
    const broken = await analyzeCode(`function (`, { language: 'javascript' });
    expect(broken).toMatchObject({ parsed: false, score: 0, verdict: 'unsafe', findings: [{ rule: 'syntax', severity: 'critical', line: 1 }] });
    expect((await analyzeCode(`const x: number = 1;`, { language: 'javascript' })).parsed).toBe(false);
  });

  it('gives a typed result for hostile sources: deep nesting, huge input, anything at all', async () => {
    expect(await analyzeCode('('.repeat(50_000) + '1' + ')'.repeat(50_000))).toMatchObject({ parsed: false, findings: [{ rule: 'syntax' }] });
    expect(await analyzeCode('['.repeat(30_000))).toMatchObject({ parsed: false });
    await expect(analyzeCode('x'.repeat(1_000_001))).rejects.toBeInstanceOf(ValidationError);
    await expect(analyzeCode('1', { language: 'cobol' as never })).rejects.toBeInstanceOf(ValidationError);
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 200 }), async (source) => {
        const report = await analyzeCode(source, { language: 'javascript' });
        expect(report.score).toBeGreaterThanOrEqual(0);
        expect(report.score).toBeLessThanOrEqual(100);
        expect(report.parsed || report.findings[0]?.rule === 'syntax').toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});

describe('the code_analyzer tool', () => {
  it('loads a parser given as a loader once, on first use', async () => {
    let loads = 0;
    const lazy = { load: async () => (loads++, parse) };
    expect(loads).toBe(0);
    const reports = await Promise.all([analyzeWith('fetch(x)', { parser: lazy }), analyzeWith('eval(x)', { parser: lazy })]);
    expect(reports.map((r) => r.findings[0]?.rule)).toEqual(['network_access', 'dynamic_code']);
    expect(loads).toBe(1);
  });

  it('is registered with its schema, capabilities and no network, and its handler analyses validated input', async () => {
    const registry = new ToolRegistry();
    expect(registerCodeTools(registry, parse, 'dev')).toEqual(['code_analyzer']);
    const tool = registry.resolve('dev', 'code_analyzer');
    expect(tool).toMatchObject({ capabilities: ['code.analyze'], allowNetwork: false, idempotent: true, requiresApproval: false });
    expect(tool.inputSchema).toMatchObject({ properties: { source: { type: 'string' } }, required: ['source'] });
    const input = tool.parameters.parse({ source: 'eval(input)' });
    expect(input).toEqual({ source: 'eval(input)' });
    expect(tool.inputSchema['required']).toEqual(['source']);
    const report = await tool.handler(input, {} as never);
    expect(report).toMatchObject({ parsed: true, verdict: 'unsafe', findings: [{ rule: 'dynamic_code' }] });
    expect(tool.parameters.safeParse({ source: 'x'.repeat(1_000_001) }).success).toBe(false);
    expect(tool.parameters.safeParse({ source: 1 }).success).toBe(false);
  });
});

describe('code analyzer: module names that are Object.prototype members', () => {
  it('reports an import of "constructor" or "toString" as a plain import, with a valid severity', async () => {
    const report = await analyzeCode("import a from 'constructor';\nconst b = require('toString');\nimport c from 'hasOwnProperty';");
    expect(report.findings.map((f) => f.rule)).not.toContain('process_access');
    for (const finding of report.findings) expect(['info', 'low', 'medium', 'high', 'critical']).toContain(finding.severity);
  });
});
