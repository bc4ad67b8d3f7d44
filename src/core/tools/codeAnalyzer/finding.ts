import * as z from 'zod';

/** How much a finding weighs: `critical` is an escape or arbitrary code, `info` a note. */
export const SeveritySchema = z.enum(['critical', 'high', 'medium', 'low', 'info']);
export type Severity = z.output<typeof SeveritySchema>;

/** The rules the analyzer reports under; stable identifiers. */
export const RuleSchema = z.enum([
  'syntax',
  'dynamic_code',
  'constructor_escape',
  'process_access',
  'filesystem_access',
  'network_access',
  'dynamic_import',
  'module_import',
  'prototype_tampering',
  'global_object',
  'unbounded_loop',
  'webassembly',
  'shared_memory',
  'with_statement',
  'size',
  'complexity',
]);
export type Rule = z.output<typeof RuleSchema>;

/** One thing the analyzer found, at a 1-based line and 0-based column. */
export const FindingSchema = z.object({
  rule: z.string(),
  severity: SeveritySchema,
  message: z.string(),
  line: z.number().int().min(0),
  column: z.number().int().min(0),
});
export type Finding = z.output<typeof FindingSchema>;

/** Points one finding takes off the score of 100, by severity. */
export const SEVERITY_WEIGHT: Readonly<Record<Severity, number>> = { critical: 40, high: 20, medium: 8, low: 3, info: 0 };

/** What to do about each rule's findings, shown once per rule found. */
export const RECOMMENDATIONS: Readonly<Record<Rule, string>> = {
  syntax: 'Fix the syntax error first: nothing else can be checked until the source parses.',
  dynamic_code: 'Remove eval, Function and string timers; pass functions, and parse data with JSON.parse.',
  constructor_escape: 'Do not reach constructors through values (x.constructor, x["constr" + "uctor"]): it leads to the Function constructor.',
  process_access: 'Do not use process, child processes, workers or vm: a tool receives its input and returns its output.',
  filesystem_access: 'Do not read or write files: pass the data in the input, or use a tool the profile allows.',
  network_access: 'Do not open connections yourself: declare the network need and use a tool the profile allows to fetch.',
  dynamic_import: 'Do not load modules by computed names; a tool must be one self-contained source.',
  module_import: 'List what the code imports and keep tool sources free of imports: inline what is needed.',
  prototype_tampering: 'Do not change built-in prototypes or __proto__; use your own objects and Object.create(null) maps.',
  global_object: 'Do not read or write the global object (globalThis, self, window); use local bindings.',
  unbounded_loop: 'Give every loop a bound, or a break/return that is sure to be reached.',
  webassembly: 'Do not compile WebAssembly in tool code.',
  shared_memory: 'Do not use SharedArrayBuffer or Atomics: a blocking wait stalls the worker until it is terminated.',
  with_statement: 'Replace with statements by explicit references.',
  size: 'Split the source or trim it: large sources are slow to audit and to load.',
  complexity: 'Split functions with many branches into smaller ones.',
};

/** A finding at a node's position. */
export function findingAt(node: { loc?: { start: { line: number; column: number } } | null }, rule: string, severity: Severity, message: string): Finding {
  return { rule, severity, message, line: node.loc?.start.line ?? 0, column: node.loc?.start.column ?? 0 };
}
