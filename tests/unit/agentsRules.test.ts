import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ESLint } from 'eslint';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { checkSource } from './guardrails.ts';

// AGENTS.md states CUGAr's guardrails; this file holds one check per rule. A rule without a
// check, or a check without a rule, fails the suite. Each check runs on the real tree and on a
// sample that breaks its rule, so a check that cannot fail is caught too.

const root = join(import.meta.dirname, '..', '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(?:ts|tsx)$/.test(name) ? [relative(root, path).split('\\').join('/')] : [];
  });
}
const files = sourceFiles(join(root, 'src'));
const read = (file: string) => readFileSync(join(root, file), 'utf8');

/** The rule ids AGENTS.md lists under "## Guardrails". */
function rulesInAgentsMd(): string[] {
  const text = read('AGENTS.md');
  const section = text.slice(text.indexOf('## Guardrails'), text.indexOf('\n## ', text.indexOf('## Guardrails') + 1));
  return [...section.matchAll(/^- `([a-z0-9-]+)` — /gm)].map((m) => m[1]!);
}

let eslint: ESLint | undefined;
async function lintRules(file: string, code: string): Promise<string[]> {
  eslint ??= new ESLint({ cwd: root });
  const [result] = await eslint.lintText(code, { filePath: join(root, file) });
  return (result?.messages ?? []).map((m) => m.ruleId ?? 'parse-error');
}

/** A checker-backed rule: the tree is clean, and the sample is caught. */
function sourceRule(rule: string, sample: { file: string; code: string }) {
  return async () => {
    const violations = files
      .flatMap((file) => checkSource(file, read(file), file.startsWith('src/core/') && !file.endsWith('.test.ts')))
      .filter((v) => v.rule === rule);
    expect(violations).toEqual([]);
    expect(checkSource(sample.file, sample.code, sample.file.startsWith('src/core/')).map((v) => v.rule)).toContain(rule);
  };
}

/** Calls of `.append({ … events … })`: writing events to a journal. */
function journalAppends(file: string, text: string): number[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const lines: number[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && node.expression.name.text === 'append') {
      const [arg] = node.arguments;
      if (arg && ts.isObjectLiteralExpression(arg) && arg.properties.some((p) => p.name && ts.isIdentifier(p.name) && p.name.text === 'events')) {
        lines.push(source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return lines;
}
/** Files longer than 400 lines. */
function overLimit(texts: ReadonlyMap<string, string>): string[] {
  return [...texts].filter(([, text]) => text.split('\n').length - (text.endsWith('\n') ? 1 : 0) > 400).map(([file]) => file);
}

const JOURNAL_WRITERS = new Set(['src/core/orchestrator/runSession.ts', 'src/core/orchestrator/importJournal.ts']);

const CHECKS: Record<string, () => Promise<void> | void> = {
  'core-import': async () => {
    await sourceRule('core-import', { file: 'src/core/x/sample.ts', code: `import { readFile } from 'node:fs';` })();
    const rules = (code: string) => checkSource('src/core/x/sample.ts', code, true).map((v) => v.rule);
    expect(rules(`import { APICallError } from '@ai-sdk/provider';`)).toContain('core-import');
    expect(rules(`import { type LanguageModelV2, APICallError } from '@ai-sdk/provider';`)).toContain('core-import');
    expect(rules(`import type { LanguageModelV2 } from '@ai-sdk/provider';`)).toEqual([]);
    expect(rules(`import { type LanguageModelV2 } from '@ai-sdk/provider';`)).toEqual([]);
    expect(rules(`import { createOpenAICompatible } from '@ai-sdk/openai-compatible';`)).toContain('core-import');
  },
  'core-global': sourceRule('core-global', { file: 'src/core/x/sample.ts', code: `const w = window.innerWidth;` }),
  'no-eval': sourceRule('no-eval', { file: 'src/api/sample.ts', code: `const f = new Function('return 1');` }),
  'core-folder': sourceRule('core-folder', { file: 'src/core/store/sample.ts', code: `import { Orchestrator } from '../orchestrator/orchestrator.ts';` }),
  'layer-direction': async () => {
    expect(await lintRules('src/web/sample.ts', `import { startServer } from '../edge/nodeServer.ts';\nexport { startServer };\n`)).toContain(
      'no-restricted-imports',
    );
    expect(await lintRules('src/api/sample.ts', `import { main } from '../cli/main.ts';\nexport { main };\n`)).toContain('no-restricted-imports');
    expect(await lintRules('src/core/sample.ts', `import { createApp } from '../api/app.ts';\nexport { createApp };\n`)).toContain('no-restricted-imports');
    expect(await lintRules('src/cli/sample.ts', `import { startServer } from '../edge/nodeServer.ts';\nexport { startServer };\n`)).not.toContain(
      'no-restricted-imports',
    );
    expect(await lintRules('src/api/sample.ts', `import { mountMcp } from '../mcp/httpRoute.ts';\nexport { mountMcp };\n`)).toContain('no-restricted-imports');
    expect(await lintRules('src/core/sample.ts', `import { toolParameters } from '../mcp/jsonSchema.ts';\nexport { toolParameters };\n`)).toContain(
      'no-restricted-imports',
    );
    expect(await lintRules('src/mcp/sample.ts', `import { startServer } from '../edge/nodeServer.ts';\nexport { startServer };\n`)).toContain(
      'no-restricted-imports',
    );
    expect(await lintRules('src/mcp/sample.ts', `import { createApp } from '../api/app.ts';\nexport { createApp };\n`)).not.toContain('no-restricted-imports');
  },
  'zod-namespace': async () => {
    expect(await lintRules('src/core/sample.ts', `import { z } from 'zod';\nexport const s = z.string();\n`)).toContain('no-restricted-syntax');
    expect(await lintRules('src/core/sample.ts', `import * as z from 'zod';\nexport const s = z.string();\n`)).not.toContain('no-restricted-syntax');
  },
  'one-engine': () => {
    const writers = files.filter((file) => !JOURNAL_WRITERS.has(file) && journalAppends(file, read(file)).length > 0);
    expect(writers).toEqual([]);
    for (const file of JOURNAL_WRITERS) expect(journalAppends(file, read(file)).length, file).toBeGreaterThan(0);
    expect(journalAppends('src/api/sample.ts', `await store.append({ runId, events, expectedHead: null, run });`)).toEqual([1]);
  },
  'named-exports': () => {
    const entries = [
      'src/core/index.ts',
      'src/core/signing.ts',
      'src/core/stores.ts',
      'src/core/testing.ts',
      'src/edge/node.ts',
      'src/edge/nodeSandbox.ts',
      'src/mcp/index.ts',
    ];
    const wildcards = (text: string) => (text.match(/^export \* from/gm) ?? []).length;
    for (const entry of entries) expect(wildcards(read(entry)), entry).toBe(0);
    expect(wildcards(`export * from './errors.ts';\nexport { a } from './a.ts';\n`)).toBe(1);
    const pkg = JSON.parse(read('package.json')) as { exports: Record<string, { import: string }> };
    expect(
      Object.values(pkg.exports)
        .map((e) => e.import.replace(/^\.\//, ''))
        .sort(),
    ).toEqual([...entries].sort());
  },
  'file-size': () => {
    expect(overLimit(new Map(files.map((file) => [file, read(file)])))).toEqual([]);
    expect(
      overLimit(
        new Map([
          ['src/core/big.ts', 'const x = 1;\n'.repeat(401)],
          ['src/core/small.ts', 'const x = 1;\n'.repeat(399)],
        ]),
      ),
    ).toEqual(['src/core/big.ts']);
  },
  'journal-compat': () => {
    // The check is the suite that parses, verifies, folds and replays the recorded journals.
    const suite = read('tests/conformance/legacyJournal.test.ts');
    for (const step of ['parseJournal', 'verifyJournal', 'projectRun', 'replay(']) expect(suite).toContain(step);
    expect(read('tests/fixtures/legacy-journals.ndjson').split('\n').length).toBeGreaterThan(100);
  },
};

describe('AGENTS.md guardrails are code', () => {
  it('every rule has a check and every check a rule', () => {
    const rules = rulesInAgentsMd();
    expect(rules.length).toBeGreaterThan(5);
    expect(new Set(rules).size).toBe(rules.length);
    expect([...rules].sort()).toEqual(Object.keys(CHECKS).sort());
  });

  for (const [rule, check] of Object.entries(CHECKS)) {
    it(`${rule} holds on the tree and catches a sample that breaks it`, { timeout: 60_000 }, check);
  }
});
