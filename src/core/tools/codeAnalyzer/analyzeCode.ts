import * as z from 'zod';
import { ValidationError } from '../../errors.ts';
import { RECOMMENDATIONS, RuleSchema, SEVERITY_WEIGHT, findingAt, type Finding, type Severity } from './finding.ts';
import { CodeLanguageSchema, parseSource, type CodeLanguage, type CodeParserSource } from './parseSource.ts';
import { nodeFindings } from './rules.ts';
import { collectScopes } from './scope.ts';
import { FUNCTIONS, complexityOwner, loopFinding } from './structure.ts';
import { walk, type AstNode } from './walk.ts';

/** Largest source the analyzer accepts, in characters. */
export const MAX_ANALYZED_CHARS = 1_000_000;
/** Most findings a report lists; the score counts them all. */
export const MAX_REPORTED_FINDINGS = 200;
/** A source longer than this many characters is a `size` finding. */
export const LARGE_SOURCE_CHARS = 100_000;
/** A function with a cyclomatic complexity above this is a `complexity` finding. */
export const COMPLEX_FUNCTION = 15;

/** What {@link analyzeCode} reports: a score of 0–100 (100 is nothing found), the findings and what to do. */
export interface CodeAnalysis {
  language: CodeLanguage;
  parsed: boolean;
  score: number;
  /** `unsafe` with any critical finding or a score under 50; `review` with a high one or a score under 80. */
  verdict: 'safe' | 'review' | 'unsafe';
  findings: Finding[];
  /** Whether more findings were found than listed (see {@link MAX_REPORTED_FINDINGS}). */
  truncated: boolean;
  recommendations: string[];
  metrics: { characters: number; lines: number; nodes: number; functions: number; maxComplexity: number };
}

/** The input of `analyzeCode` and the `code_analyzer` tool. */
export const AnalyzeCodeInputSchema = z.object({
  source: z.string().max(MAX_ANALYZED_CHARS).describe('JavaScript or TypeScript source to analyse'),
  // Optional rather than defaulted, so the tool's JSON Schema does not list it as required.
  language: CodeLanguageSchema.optional().describe('javascript, jsx, typescript or tsx (default typescript)'),
});

/** The findings and measures of a parsed program, in source order. */
export function inspectProgram(file: AstNode, source: string): { findings: Finding[]; metrics: CodeAnalysis['metrics'] } {
  const findings: Finding[] = [];
  const complexity = new Map<AstNode, number>();
  let nodes = 0;
  let functions = 0;
  const scopes = collectScopes(file);
  walk(file, (path) => {
    nodes++;
    if (FUNCTIONS.has(path.node.type)) {
      functions++;
      complexity.set(path.node, 1);
    }
    findings.push(...nodeFindings(path, scopes));
    const loop = loopFinding(path.node);
    if (loop) findings.push(loop);
    const owner = complexityOwner(path);
    if (owner) complexity.set(owner, (complexity.get(owner) ?? 1) + 1);
  });
  for (const [owner, value] of complexity) {
    if (value > COMPLEX_FUNCTION)
      findings.push(
        findingAt(owner, 'complexity', value > 2 * COMPLEX_FUNCTION ? 'medium' : 'low', `cyclomatic complexity ${value} (over ${COMPLEX_FUNCTION})`),
      );
  }
  if (source.length > LARGE_SOURCE_CHARS) findings.push(findingAt({}, 'size', 'medium', `${source.length} characters (over ${LARGE_SOURCE_CHARS})`));
  findings.sort((a, b) => a.line - b.line || a.column - b.column);
  const lines = source === '' ? 0 : source.split(/\r\n|\r|\n/).length;
  return { findings, metrics: { characters: source.length, lines, nodes, functions, maxComplexity: Math.max(1, ...complexity.values()) } };
}

const SEVERITY_ORDER: readonly Severity[] = ['critical', 'high', 'medium', 'low', 'info'];

/** The score of a set of findings: 100 less each finding's weight, at most three findings per rule counted. */
export function scoreFindings(findings: readonly Finding[]): number {
  const counted = new Map<string, number>();
  let score = 100;
  for (const finding of [...findings].sort((a, b) => SEVERITY_ORDER.indexOf(a.severity) - SEVERITY_ORDER.indexOf(b.severity))) {
    const n = counted.get(finding.rule) ?? 0;
    if (n >= 3) continue;
    counted.set(finding.rule, n + 1);
    score -= SEVERITY_WEIGHT[finding.severity];
  }
  return Math.max(0, score);
}

/** The report of a list of findings: score, verdict, recommendations (one per rule, the worst first). */
export function reportOf(
  findings: readonly Finding[],
  parsed: boolean,
): Pick<CodeAnalysis, 'score' | 'verdict' | 'findings' | 'truncated' | 'recommendations'> {
  const score = parsed ? scoreFindings(findings) : 0;
  const worst = findings.reduce((w, f) => Math.min(w, SEVERITY_ORDER.indexOf(f.severity)), SEVERITY_ORDER.length);
  const verdict = !parsed || worst === 0 || score < 50 ? 'unsafe' : worst === 1 || score < 80 ? 'review' : 'safe';
  const rules = [...findings]
    .sort((a, b) => SEVERITY_ORDER.indexOf(a.severity) - SEVERITY_ORDER.indexOf(b.severity))
    .map((f) => f.rule)
    .filter((rule, i, all) => all.indexOf(rule) === i);
  const recommendations = rules.flatMap((rule) => {
    const known = RuleSchema.safeParse(rule);
    return known.success && findings.some((f) => f.rule === rule && f.severity !== 'info') ? [RECOMMENDATIONS[known.data]] : [];
  });
  return { score, verdict, findings: findings.slice(0, MAX_REPORTED_FINDINGS), truncated: findings.length > MAX_REPORTED_FINDINGS, recommendations };
}

/**
 * Parse a JavaScript or TypeScript source with `parser` (@babel/parser's `parse`) and report how safe it is to run:
 * dynamic code, process, file-system and network access, computed imports, prototype tampering,
 * constructor escapes, unbounded loops, the global object, size and complexity.
 * An unparsable source is a report with `parsed: false`, score 0 and the `syntax` finding;
 * input that breaks the schema (not a string, over {@link MAX_ANALYZED_CHARS}) throws a `ValidationError`.
 *
 * @example
 * import { parse } from '@babel/parser';
 * const report = await analyzeCode("fetch('https://example.com')", { language: 'javascript', parser: parse });
 * report.findings[0]; // { rule: 'network_access', severity: 'high', message: 'uses fetch', line: 1, column: 0 }
 */
export async function analyzeCode(source: string, options: { language?: CodeLanguage | undefined; parser: CodeParserSource }): Promise<CodeAnalysis> {
  const input = AnalyzeCodeInputSchema.safeParse({ source, language: options.language });
  if (!input.success)
    throw new ValidationError('the code analyzer needs a source of at most 1,000,000 characters and a known language', { details: input.error.issues });
  const language = input.data.language ?? 'typescript';
  const parsed = await parseSource(input.data.source, { language, module: false, parser: options.parser });
  if (!parsed.ok) {
    const lines = source === '' ? 0 : source.split(/\r\n|\r|\n/).length;
    return {
      language,
      parsed: false,
      ...reportOf([parsed.finding], false),
      metrics: { characters: source.length, lines, nodes: 0, functions: 0, maxComplexity: 0 },
    };
  }
  const { findings, metrics } = inspectProgram(parsed.file, source);
  return { language, parsed: true, ...reportOf(findings, true), metrics };
}
