// The sandbox workload, the same on Node and in a Chromium page: cold starts of a sandboxed tool
// and the per-call cost of calling it against the same handler called in-process.
import { auditToolSource, type CodeParserSource, type Sandbox } from '../src/core/index.ts';

/** The tool: a little arithmetic over its input, JSON in and out. */
export const TOOL_SOURCE =
  'export default function (input) { let sum = 0; for (const v of input.values) sum += v; return { sum, count: input.values.length }; }';

/** The same handler as an ordinary function of the host. */
export function inProcess(input: { values: number[] }): { sum: number; count: number } {
  let sum = 0;
  for (const v of input.values) sum += v;
  return { sum, count: input.values.length };
}

const median = (samples: number[]) => {
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

export interface SandboxFigures {
  /** `load`: audit, worker start, realm set-up, the source's top level; median, ms. */
  coldLoadMs: number;
  /** The audit alone (parse, analyzer rules, allow-list), median, ms. */
  auditMs: number;
  /** The first call on a fresh worker, median, ms. */
  firstCallMs: number;
  /** One call on the warm worker, median over rounds, µs. */
  sandboxCallUs: number;
  /** One call of the in-process function, median over rounds, µs. */
  inProcessCallUs: number;
  rounds: number;
  callsPerRound: number;
  loads: number;
}

/** Measure on `sandbox`: `loads` cold starts, then `rounds` interleaved rounds of `calls` calls each way. */
export async function measureSandbox(sandbox: Sandbox, parser: CodeParserSource, options = { loads: 15, rounds: 21, calls: 200 }): Promise<SandboxFigures> {
  const input = { values: Array.from({ length: 16 }, (_, i) => i) };
  // Warm the parser and the code paths once, untimed.
  await auditToolSource(TOOL_SOURCE, parser);
  await (await sandbox.load(TOOL_SOURCE)).close();
  const audits: number[] = [];
  const loads: number[] = [];
  const firsts: number[] = [];
  for (let i = 0; i < options.loads; i++) {
    let started = performance.now();
    await auditToolSource(TOOL_SOURCE, parser);
    audits.push(performance.now() - started);
    started = performance.now();
    const tool = await sandbox.load(TOOL_SOURCE);
    loads.push(performance.now() - started);
    started = performance.now();
    await tool.call(input);
    firsts.push(performance.now() - started);
    await tool.close();
  }
  const tool = await sandbox.load(TOOL_SOURCE);
  const sandboxed: number[] = [];
  const local: number[] = [];
  let check = 0;
  for (let round = 0; round < options.rounds; round++) {
    let started = performance.now();
    for (let i = 0; i < options.calls; i++) check += ((await tool.call(input)) as { sum: number }).sum;
    sandboxed.push(((performance.now() - started) * 1000) / options.calls);
    started = performance.now();
    for (let i = 0; i < options.calls; i++) check -= (await inProcess(input)).sum;
    local.push(((performance.now() - started) * 1000) / options.calls);
  }
  await tool.close();
  if (check !== 0) throw new Error('the sandboxed and in-process handlers disagree');
  return {
    coldLoadMs: median(loads),
    auditMs: median(audits),
    firstCallMs: median(firsts),
    sandboxCallUs: median(sandboxed),
    inProcessCallUs: median(local),
    rounds: options.rounds,
    callsPerRound: options.calls,
    loads: options.loads,
  };
}
