import * as z from 'zod';
import { inspectProgram, reportOf } from '../tools/codeAnalyzer/analyzeCode.ts';
import { findingAt, type Finding } from '../tools/codeAnalyzer/finding.ts';
import { parseSource, type CodeParserSource } from '../tools/codeAnalyzer/parseSource.ts';
import { isNode, isReference, memberName, staticString, walk, type AstNode } from '../tools/codeAnalyzer/walk.ts';
import { collectScopes } from '../tools/codeAnalyzer/scope.ts';
import { FUNCTIONS } from '../tools/codeAnalyzer/structure.ts';
import { SandboxError } from './sandboxError.ts';
import { toolFactory, toolShape } from './toolSource.ts';

/**
 * The globals tool code may name: the language's own values and constructors. No host object
 * (`fetch`, `console`, timers, `structuredClone`, `TextEncoder`, `URL`) — the sandbox realm has none.
 */
export const TOOL_GLOBALS: ReadonlySet<string> = new Set([
  'Object',
  'Array',
  'Number',
  'Boolean',
  'String',
  'Symbol',
  'BigInt',
  'Date',
  'Promise',
  'RegExp',
  'Map',
  'Set',
  'WeakMap',
  'WeakSet',
  'JSON',
  'Math',
  'Intl',
  'Error',
  'AggregateError',
  'RangeError',
  'ReferenceError',
  'SyntaxError',
  'TypeError',
  'URIError',
  'ArrayBuffer',
  'DataView',
  'Uint8Array',
  'Int8Array',
  'Uint16Array',
  'Int16Array',
  'Uint32Array',
  'Int32Array',
  'Float32Array',
  'Float64Array',
  'Uint8ClampedArray',
  'BigInt64Array',
  'BigUint64Array',
  'parseInt',
  'parseFloat',
  'isNaN',
  'isFinite',
  'encodeURIComponent',
  'decodeURIComponent',
  'encodeURI',
  'decodeURI',
  'Infinity',
  'NaN',
  'undefined',
  'arguments',
]);

/** Property names tool code may not read or write: the ways to prototypes and constructors. */
const FORBIDDEN_MEMBERS = new Set([
  'constructor',
  '__proto__',
  'prototype',
  '__defineGetter__',
  '__defineSetter__',
  '__lookupGetter__',
  '__lookupSetter__',
  'caller',
  'callee',
]);
/** `Object` methods that change objects other than the caller's own new ones. */
const MUTATING_OBJECT_METHODS = new Set(['defineProperty', 'defineProperties', 'setPrototypeOf']);

/** Limits a tool source must stay within. */
export const AuditLimitsSchema = z.object({
  maxChars: z.number().int().min(1).max(1_000_000).default(64_000),
  maxLines: z.number().int().min(1).default(2_000),
  maxNodes: z.number().int().min(1).default(20_000),
  maxComplexity: z.number().int().min(1).default(40),
  /** Longest regular expression literal, in characters of its pattern. */
  maxRegexChars: z.number().int().min(1).default(200),
});
export type AuditLimits = z.input<typeof AuditLimitsSchema>;

/** What the patch auditor says about a tool source. `factorySource` is set only when it passed. */
export interface AuditReport {
  ok: boolean;
  /** Every finding that refuses the source, in source order (empty when it passed). */
  findings: Finding[];
  /** Findings that do not refuse it (low and info analyzer findings). */
  warnings: Finding[];
  score: number;
  factorySource?: string;
}

/** The audit's own rules, beyond the analyzer's: imports, shape, allowed globals and members, limits. */
function toolRules(file: AstNode, source: string, limits: z.output<typeof AuditLimitsSchema>, globals: ReadonlySet<string>): Finding[] {
  const found: Finding[] = [];
  const scopes = collectScopes(file);
  walk(file, (path) => {
    const { node } = path;
    if (
      node.type === 'Identifier' &&
      isReference(path) &&
      !scopes.isLocal(node['name'] as string, path) &&
      !TOOL_GLOBALS.has(node['name'] as string) &&
      !globals.has(node['name'] as string)
    )
      found.push(findingAt(node, 'global_not_allowed', 'critical', `${node['name'] as string} is not a global tool code may use`));
    if (node.type === 'Identifier' && (node['name'] as string).startsWith('__cugar'))
      found.push(findingAt(node, 'reserved_name', 'critical', `${node['name'] as string} is reserved for the sandbox`));
    if (
      node.type === 'ImportDeclaration' ||
      node.type === 'ImportExpression' ||
      node.type === 'ExportAllDeclaration' ||
      (node.type === 'ExportNamedDeclaration' && node['source'])
    )
      found.push(findingAt(node, 'import_forbidden', 'critical', 'tool code imports nothing: it must be one self-contained source'));
    if (node.type === 'MetaProperty') found.push(findingAt(node, 'import_forbidden', 'critical', 'import.meta is not available to tool code'));
    if (node.type === 'MemberExpression' || node.type === 'OptionalMemberExpression') {
      const name = memberName(node);
      if (name !== undefined && FORBIDDEN_MEMBERS.has(name)) found.push(findingAt(node, 'member_not_allowed', 'critical', `tool code may not use .${name}`));
      const object = node['object'];
      if (isNode(object) && object.type === 'Identifier' && object['name'] === 'Object' && name !== undefined && MUTATING_OBJECT_METHODS.has(name))
        found.push(findingAt(node, 'member_not_allowed', 'critical', `tool code may not use Object.${name}`));
    }
    if (
      (node.type === 'ObjectProperty' || node.type === 'ObjectMethod') &&
      !node['computed'] &&
      isNode(node['key']) &&
      FORBIDDEN_MEMBERS.has((node['key']['name'] ?? node['key']['value']) as string)
    )
      found.push(findingAt(node, 'member_not_allowed', 'critical', 'tool code may not define __proto__ or constructor keys'));
    if (node.type === 'AwaitExpression' && !path.ancestors.some((a) => FUNCTIONS.has(a.type)))
      found.push(findingAt(node, 'top_level_await', 'critical', 'await outside a function: tool code does its work in its handler'));
    if (node.type === 'RegExpLiteral' && (node['pattern'] as string).length > limits.maxRegexChars)
      found.push(
        findingAt(node, 'regex_too_long', 'high', `a regular expression of ${(node['pattern'] as string).length} characters (over ${limits.maxRegexChars})`),
      );
    if (
      (node.type === 'StringLiteral' || node.type === 'TemplateLiteral' || node.type === 'BinaryExpression') &&
      FORBIDDEN_MEMBERS.has(staticString(node) ?? '')
    )
      found.push(findingAt(node, 'member_not_allowed', 'critical', `a string that spells "${staticString(node)}", a way to reach .${staticString(node)}`));
    if (node.type === 'DebuggerStatement') found.push(findingAt(node, 'member_not_allowed', 'high', 'debugger statements are not allowed'));
  });
  const shape = toolShape(file['program'] as AstNode);
  if (!shape.ok) found.push(findingAt(shape.node, 'export_shape', 'critical', shape.message));
  if (/<!--|-->/.test(source)) found.push(findingAt({}, 'html_comment', 'critical', 'the source contains <!-- or -->, which change meaning outside a module'));
  return found;
}

const REFUSING = new Set(['critical', 'high', 'medium']);

/**
 * Audit a proposed tool source: the code analyzer's findings as hard rules (every critical, high
 * and medium one refuses it), size limits, and an allow-list of what tool code may use — one
 * export (`export default function` or `export [async] function handler(input)`), no import or
 * `require` at all, only the globals in {@link TOOL_GLOBALS}, no `.constructor`, `.prototype` or
 * `__proto__`, no `Object.defineProperty`/`setPrototypeOf`. The source is parsed as a plain
 * JavaScript module (no TypeScript, no JSX) by `parser` (@babel/parser's `parse`). `globals` adds
 * the globals of a realm library the source is loaded with (`SandboxLoadOptions.library`). Never
 * throws for a bad source: read `ok` and `findings`.
 */
export async function auditToolSource(
  source: string,
  parser: CodeParserSource,
  limits: AuditLimits = {},
  globals: readonly string[] = [],
): Promise<AuditReport> {
  const limit = AuditLimitsSchema.parse(limits);
  if (source.length > limit.maxChars) {
    const finding = findingAt({}, 'too_large', 'critical', `${source.length} characters (the limit is ${limit.maxChars})`);
    return { ok: false, findings: [finding], warnings: [], score: 0 };
  }
  const parsed = await parseSource(source, { language: 'javascript', module: true, parser });
  if (!parsed.ok) return { ok: false, findings: [parsed.finding], warnings: [], score: 0 };
  const inspected = inspectProgram(parsed.file, source);
  const { metrics } = inspected;
  const findings = [...inspected.findings.filter((f) => REFUSING.has(f.severity)), ...toolRules(parsed.file, source, limit, new Set(globals))];
  if (metrics.lines > limit.maxLines) findings.push(findingAt({}, 'too_large', 'critical', `${metrics.lines} lines (the limit is ${limit.maxLines})`));
  if (metrics.nodes > limit.maxNodes) findings.push(findingAt({}, 'too_large', 'critical', `${metrics.nodes} syntax nodes (the limit is ${limit.maxNodes})`));
  if (metrics.maxComplexity > limit.maxComplexity)
    findings.push(
      findingAt({}, 'too_complex', 'critical', `a function of cyclomatic complexity ${metrics.maxComplexity} (the limit is ${limit.maxComplexity})`),
    );
  findings.sort((a, b) => a.line - b.line || a.column - b.column);
  const warnings = inspected.findings.filter((f) => !REFUSING.has(f.severity));
  const score = reportOf([...findings, ...warnings], true).score;
  if (findings.length > 0) return { ok: false, findings, warnings, score };
  const shape = toolShape(parsed.file['program'] as AstNode);
  if (!shape.ok) return { ok: false, findings: [findingAt(shape.node, 'export_shape', 'critical', shape.message)], warnings, score };
  const factorySource = toolFactory(source, shape);
  // The factory must parse as a script, to the same effect: a last check that wrapping changed nothing.
  const asScript = await parseSource(factorySource, { language: 'javascript', module: false, parser });
  if (!asScript.ok) return { ok: false, findings: [{ ...asScript.finding, message: `the wrapped source ${asScript.finding.message}` }], warnings, score };
  return { ok: true, findings: [], warnings, score, factorySource };
}

/** The refusal of a failed audit: a `SandboxError('audit_failed')` listing every finding. */
export function auditRefusal(report: AuditReport): SandboxError {
  const listed = report.findings.slice(0, 20).map((f) => `${f.rule} at ${f.line}:${f.column}: ${f.message}`);
  const more = report.findings.length > 20 ? `; and ${report.findings.length - 20} more` : '';
  return new SandboxError('audit_failed', `the patch auditor refused the source (${report.findings.length} findings): ${listed.join('; ')}${more}`, {
    details: { findings: report.findings, score: report.score },
  });
}

/** The factory source of an audited tool, or the refusal thrown. */
export async function assertAudited(source: string, parser: CodeParserSource, limits: AuditLimits = {}, globals: readonly string[] = []): Promise<string> {
  const report = await auditToolSource(source, parser, limits, globals);
  if (!report.ok || report.factorySource === undefined) throw auditRefusal(report);
  return report.factorySource;
}
