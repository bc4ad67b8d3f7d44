import type { ParserOptions, ParserPlugin } from '@babel/parser';
import * as z from 'zod';
import { findingAt, type Finding } from './finding.ts';
import type { AstNode } from './walk.ts';

/** The languages the analyzer parses: plain JavaScript (with JSX), TypeScript, and TSX. */
export const CodeLanguageSchema = z.enum(['javascript', 'typescript', 'jsx', 'tsx']);
export type CodeLanguage = z.output<typeof CodeLanguageSchema>;

const PLUGINS: Readonly<Record<CodeLanguage, ParserPlugin[]>> = {
  javascript: [],
  jsx: ['jsx'],
  typescript: ['typescript'],
  tsx: ['typescript', 'jsx'],
};

type Parse = (input: string, options?: ParserOptions) => unknown;
let parser: Promise<Parse> | undefined;

/**
 * @babel/parser, loaded on first use: pages and bundles that never analyse code do not carry it
 * (where the bundler splits dynamic imports).
 */
function loadParser(): Promise<Parse> {
  parser ??= import('@babel/parser').then((babel) => babel.parse as Parse);
  return parser;
}

/** A parsed source (its `File` node), or the `syntax` finding that says why it does not parse. */
export type ParseOutcome = { ok: true; file: AstNode } | { ok: false; finding: Finding };

/**
 * Parse `source` with @babel/parser, errors never recovered: an unparsable source is a `syntax`
 * finding at the error's position. `module: true` parses an ES module (strict, `import`/`export`);
 * otherwise the parser decides from the source (`unambiguous`). A source nested too deeply for
 * the parser is a `syntax` finding too.
 */
export async function parseSource(source: string, options: { language: CodeLanguage; module: boolean }): Promise<ParseOutcome> {
  const parse = await loadParser();
  try {
    const file = parse(source, {
      sourceType: options.module ? 'module' : 'unambiguous',
      plugins: PLUGINS[options.language],
      errorRecovery: false,
      createImportExpressions: true,
      allowAwaitOutsideFunction: !options.module,
    }) as AstNode;
    return { ok: true, file };
  } catch (error) {
    if (error instanceof RangeError) return { ok: false, finding: findingAt({}, 'syntax', 'critical', 'the source is nested too deeply to parse') };
    const loc = (error as { loc?: { line: number; column: number } }).loc;
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, finding: findingAt(loc ? { loc: { start: loc } } : {}, 'syntax', 'critical', `does not parse: ${message}`) };
  }
}
