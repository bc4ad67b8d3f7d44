import { describe, expect, it } from 'vitest';
import { parse } from '@babel/parser';
import fc from 'fast-check';
import { SandboxError, TOOL_GLOBALS, assertAudited as assertWith, auditToolSource as auditWith, type AuditLimits } from '../../src/core/index.ts';

const auditToolSource = (source: string, limits: AuditLimits = {}) => auditWith(source, parse, limits);
const assertAudited = (source: string) => assertWith(source, parse);

const rules = async (source: string, limits = {}) => (await auditToolSource(source, limits)).findings.map((f) => f.rule);

describe('the patch auditor', () => {
  it('passes plain tool code and hands back its factory', async () => {
    const report = await auditToolSource(
      'const TAX = 0.2;\nfunction round(n) { return Math.round(n * 100) / 100; }\nexport async function handler(input) {\n  const lines = input.items.map(({ price, qty }) => price * qty);\n  return { total: round(lines.reduce((a, b) => a + b, 0) * (1 + TAX)), at: new Date(0).toISOString(), keys: Object.keys(input) };\n}\n',
    );
    expect(report).toMatchObject({ ok: true, findings: [] });
    expect(report.factorySource).toMatch(/^\(function \(\) \{\n'use strict';\n/);
    expect(report.factorySource).toContain('const __cugarHandler = handler;');
    expect(report.factorySource).not.toContain('export');
  });

  it('refuses every construct it does not allow, each with its rule', async () => {
    const refused: Array<[string, string]> = [
      ['import x from "y";\nexport default () => x;', 'import_forbidden'],
      ['export { a } from "./a.js";\nexport default () => 1;', 'import_forbidden'],
      ['export default async () => (await import("./x.js")).default;', 'import_forbidden'],
      ['export default () => import.meta.url;', 'import_forbidden'],
      ['export default () => console.log(1);', 'global_not_allowed'],
      ['export default (i) => structuredClone(i);', 'global_not_allowed'],
      ['export default () => new TextEncoder().encode("x");', 'global_not_allowed'],
      ['export default () => Reflect.ownKeys({});', 'global_not_allowed'],
      ['export default (i) => i.constructor;', 'member_not_allowed'],
      ['export default () => Array.prototype.slice;', 'member_not_allowed'],
      ['export default (i) => i["proto" + "type"];', 'member_not_allowed'],
      ['export default () => ({ __proto__: null });', 'member_not_allowed'],
      ['export default (o) => Object.defineProperty(o, "x", { value: 1 });', 'member_not_allowed'],
      ['export default (o) => Object.setPrototypeOf(o, null);', 'member_not_allowed'],
      ['export default () => "constructor";', 'member_not_allowed'],
      ['const x = await 1;\nexport default () => x;', 'top_level_await'],
      ['const __cugarHandler = 1;\nexport default () => 1;', 'reserved_name'],
      ['export default (x) => { while (x-->0); return x; };', 'html_comment'],
      ['export default () => { debugger; };', 'member_not_allowed'],
      [`export default (s) => /${'a'.repeat(300)}/.test(s);`, 'regex_too_long'],
      ['export default () => 1;\nexport const other = 2;', 'export_shape'],
      ['export const handle = () => 1;', 'export_shape'],
      ['export default class Tool {}', 'export_shape'],
      ['export default 42;', 'export_shape'],
      ['const handler = () => 1;', 'export_shape'],
      ['export default (x: number) => x;', 'syntax'],
      ['export default () => <div />;', 'syntax'],
      ['export default () => { while (true) {} };', 'unbounded_loop'],
      ['export default () => globalThis;', 'global_object'],
      ['export default () => eval("1");', 'dynamic_code'],
    ];
    for (const [source, rule] of refused) {
      const report = await auditToolSource(source);
      expect(report.ok, source).toBe(false);
      expect(report.factorySource, source).toBeUndefined();
      expect(
        report.findings.map((f) => f.rule),
        source,
      ).toContain(rule);
    }
  });

  it('lists every finding with its position, and the refusal says them all', async () => {
    const source = 'export default (i) => {\n  fetch(i.url);\n  console.log(i);\n  return i.constructor;\n};';
    const report = await auditToolSource(source);
    expect(report.findings.map((f) => [f.rule, f.line])).toEqual(
      expect.arrayContaining([
        ['network_access', 2],
        ['global_not_allowed', 2],
        ['global_not_allowed', 3],
        ['member_not_allowed', 4],
      ]),
    );
    const error = (await assertAudited(source).catch((e: unknown) => e)) as SandboxError;
    expect(error).toBeInstanceOf(SandboxError);
    expect(error.code).toBe('audit_failed');
    expect((error.details as { findings: unknown[] }).findings).toHaveLength(report.findings.length);
    expect(error.message).toContain(`${report.findings.length} findings`);
  });

  it('enforces size and complexity limits', async () => {
    expect(await rules(`export default () => ${'1 + '.repeat(20)}1;`, { maxChars: 50 })).toEqual(['too_large']);
    expect(await rules(`export default () => 1;\n${'\n'.repeat(30)}`, { maxLines: 10 })).toContain('too_large');
    expect(await rules(`export default () => [${'1,'.repeat(100)}];`, { maxNodes: 50 })).toContain('too_large');
    const branches = Array.from({ length: 12 }, (_, i) => `if (x === ${i}) return ${i};`).join('\n');
    expect(await rules(`export default (x) => {\n${branches}\nreturn -1;\n};`, { maxComplexity: 10 })).toContain('too_complex');
    const fine = await auditToolSource(`export default (x) => {\n${branches}\nreturn -1;\n};`);
    expect(fine.ok).toBe(true);
  });

  it('keeps low findings as warnings that do not refuse', async () => {
    const branches = Array.from({ length: 17 }, (_, i) => `if (x === ${i}) return ${i};`).join('\n');
    const report = await auditToolSource(`export default (x) => {\n${branches}\nreturn -1;\n};`);
    expect(report.ok).toBe(true);
    expect(report.warnings.map((w) => w.rule)).toEqual(['complexity']);
    expect(report.score).toBe(97);
  });

  it('never throws on a hostile source', async () => {
    for (const source of ['', '(((((', '\u0000', '`${', '/*', 'export default', '{'.repeat(20_000), 'x'.repeat(70_000)]) {
      const report = await auditToolSource(source);
      expect(report.ok, source.slice(0, 20)).toBe(false);
      expect(report.findings.length).toBeGreaterThan(0);
    }
  });

  it('answers every input with a report, and hands out a factory only with a pass', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string({ maxLength: 120 }),
          fc.string({ maxLength: 80 }).map((body) => `export default (input) => ${body};`),
        ),
        async (source) => {
          const report = await auditToolSource(source);
          expect(report.ok).toBe(report.findings.length === 0);
          expect(report.factorySource !== undefined).toBe(report.ok);
          if (report.ok) expect(report.factorySource).toMatch(/^\(function \(\) \{\n'use strict';\n[\s\S]*\nreturn __cugarHandler;\n\}\)$/);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('allows only the language globals', () => {
    for (const name of ['fetch', 'console', 'globalThis', 'Function', 'eval', 'Proxy', 'Reflect', 'WebAssembly', 'SharedArrayBuffer', 'setTimeout'])
      expect(TOOL_GLOBALS.has(name), name).toBe(false);
    for (const name of ['Math', 'JSON', 'Date', 'Array', 'Object', 'Map', 'Set', 'RegExp', 'Promise']) expect(TOOL_GLOBALS.has(name), name).toBe(true);
  });
});
