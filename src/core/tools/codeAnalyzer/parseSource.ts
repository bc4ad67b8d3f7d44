import * as z from 'zod';
import { findingAt, type Finding } from './finding.ts';
import type { AstNode } from './walk.ts';

/** The languages the analyzer parses: plain JavaScript (with JSX), TypeScript, and TSX. */
export const CodeLanguageSchema = z.enum(['javascript', 'typescript', 'jsx', 'tsx']);
export type CodeLanguage = z.output<typeof CodeLanguageSchema>;

/** The options the analyzer passes its parser: a subset of @babel/parser's. */
export interface CodeParserOptions {
  sourceType: 'module' | 'unambiguous';
  plugins: Array<'typescript' | 'jsx'>;
  errorRecovery: false;
  createImportExpressions: true;
  allowAwaitOutsideFunction: boolean;
}

/**
 * A JavaScript parser with @babel/parser's `parse` signature, returning Babel's AST (a `File`
 * node with positions): what the code analyzer and the patch auditor read. Hosts hand it in
 * (`parse` from '@babel/parser', or a function that loads it on first use), so the core entry
 * does not carry a parser it may never use.
 */
export type CodeParser = (input: string, options: CodeParserOptions) => unknown;
/** A {@link CodeParser}, or a function that loads one (called once, on first use). */
export type CodeParserSource = CodeParser | { load: () => Promise<CodeParser> };

const PLUGINS: Readonly<Record<CodeLanguage, Array<'typescript' | 'jsx'>>> = {
  javascript: [],
  jsx: ['jsx'],
  typescript: ['typescript'],
  tsx: ['typescript', 'jsx'],
};

const loaded = new WeakMap<object, Promise<CodeParser>>();

/** The parser of a {@link CodeParserSource}, loading it once. */
export function resolveParser(source: CodeParserSource): Promise<CodeParser> {
  if (typeof source === 'function') return Promise.resolve(source);
  let parser = loaded.get(source);
  if (!parser) loaded.set(source, (parser = source.load()));
  return parser;
}

/** A parsed source (its `File` node), or the `syntax` finding that says why it does not parse. */
export type ParseOutcome = { ok: true; file: AstNode } | { ok: false; finding: Finding };

/**
 * Parse `source`, errors never recovered: an unparsable source is a `syntax` finding at the
 * error's position. `module: true` parses an ES module (strict, `import`/`export`); otherwise the
 * parser decides from the source (`unambiguous`). A source nested too deeply for the parser is a
 * `syntax` finding too.
 */
export async function parseSource(source: string, options: { language: CodeLanguage; module: boolean; parser: CodeParserSource }): Promise<ParseOutcome> {
  const parse = await resolveParser(options.parser);
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
