import { afterAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { SandboxError, ToolRegistry, WORKERD_SANDBOX_REASON, refusingSandbox, sandboxedToolSpec, sha256Hex } from '../../src/core/index.ts';
import { Worker } from 'node:worker_threads';
import { readFileSync } from 'node:fs';
import { NODE_SANDBOX_EXEC_ARGV, createNodeSandbox } from '../../src/edge/nodeSandbox.ts';
import { codeOf } from '../support/sandboxOutcome.ts';

// The Node sandbox through its public surface: load (audit, then a warm worker), call, limits,
// recovery after a terminated worker, close; and the refusal of hosts that cannot isolate code.

const sandbox = createNodeSandbox();
afterAll(() => sandbox.close());

describe('the Node sandbox', () => {
  it('runs a tool in one warm worker: many calls, JSON in and out, named by its content hash', async () => {
    const source = 'export default async function (input) { return { sum: input.values.reduce((a, b) => a + b, 0), at: input.at }; }';
    const tool = await sandbox.load(source);
    expect(tool.id).toBe(`sha256:${sha256Hex(source)}`);
    for (let i = 0; i < 50; i++) expect(await tool.call({ values: [i, 1, 2], at: 'x' })).toEqual({ sum: i + 3, at: 'x' });
    expect(tool.starts).toBe(1);
    await tool.close();
  });

  it('accepts each tool shape: default function, arrow, named handler, handler constant, with helpers', async () => {
    const shapes = [
      'export default function handler(input) { return input.n + 1; }',
      'export default (input) => input.n + 1;',
      'const one = 1;\nfunction inc(n) { return n + one; }\nexport async function handler(input) { return inc(input.n); }',
      'export const handler = async ({ n }) => n + 1;',
      'class Counter { constructor(n) { this.n = n; } next() { return this.n + 1; } }\nexport default (input) => new Counter(input.n).next();',
    ];
    for (const source of shapes) {
      const tool = await sandbox.load(source);
      expect(await tool.call({ n: 41 }), source).toBe(42);
      await tool.close();
    }
  });

  it('keeps calls in order and runs them one at a time', async () => {
    const tool = await sandbox.load('let count = 0;\nexport default async function (input) { count += 1; await Promise.resolve(); return [input.i, count]; }');
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => tool.call({ i })));
    expect(answers).toEqual(Array.from({ length: 20 }, (_, i) => [i, i + 1]));
    await tool.close();
  });

  it('terminates a call past its time limit and starts a new worker for the next call', async () => {
    const tool = await sandbox.load('export default function (input) { if (input.spin) { let i = 0; while (i >= 0) i++; } return "done"; }', {
      limits: { timeoutMs: 200 },
    });
    const started = performance.now();
    const error = await tool.call({ spin: true }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SandboxError);
    expect(error).toMatchObject({ code: 'timeout', failureMode: 'RESOURCE', retryable: true });
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(await tool.call({ spin: false })).toBe('done');
    expect(tool.starts).toBe(2);
    expect(await codeOf(tool.call({ spin: true }, { timeoutMs: 50 }))).toBe('timeout');
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('stop')), 50);
    expect(await codeOf(tool.call({ spin: true }, { signal: controller.signal, timeoutMs: 10_000 }))).toBe('timeout');
    expect(await tool.call({ spin: false })).toBe('done');
    await tool.close();
  });

  it('disarms the time limit of a cancelled call: it never stops a later call', async () => {
    const tool = await sandbox.load('export default (input) => { const end = Date.now() + input.ms; while (Date.now() < end); return input.ms; };');
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    expect(await codeOf(tool.call({ ms: 60_000 }, { signal: controller.signal, timeoutMs: 600 }))).toBe('timeout');
    expect(await tool.call({ ms: 1_000 }, { timeoutMs: 5_000 })).toBe(1_000);
    expect(tool.starts).toBe(2);
    await tool.close();
  });

  it('kills a worker that runs out of its memory and recovers', async () => {
    const tool = await sandbox.load(
      'export default function (input) { const all = []; for (let i = 0; i < input.n; i++) all.push(new Array(100000).fill(i)); return all.length; }',
      { limits: { memoryMb: 16, timeoutMs: 20_000 } },
    );
    expect(await codeOf(tool.call({ n: 100_000 }))).toBe('memory');
    expect(await tool.call({ n: 3 })).toBe(3);
    await tool.close();
  });

  it('refuses input that is not JSON or too large, and output that is not JSON or too large, changing nothing', async () => {
    const tool = await sandbox.load('export default (input) => input.make === "fn" ? (() => 1) : input.make === "big" ? "x".repeat(5000) : input;', {
      limits: { maxInputChars: 1_000, maxOutputChars: 1_000 },
    });
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    expect(await codeOf(tool.call(cyclic))).toBe('bad_input');
    expect(await codeOf(tool.call(10n))).toBe('bad_input');
    expect(await codeOf(tool.call(undefined))).toBe('bad_input');
    expect(await codeOf(tool.call({ text: 'y'.repeat(2_000) }))).toBe('bad_input');
    expect(await codeOf(tool.call({ make: 'fn' }))).toBe('bad_output');
    expect(await codeOf(tool.call({ make: 'big' }))).toBe('bad_output');
    expect(await tool.call({ make: 'echo', list: [1, 'two', null, { three: true }] })).toEqual({ make: 'echo', list: [1, 'two', null, { three: true }] });
    expect(tool.starts).toBe(1);
    await tool.close();
  });

  it('reports what a handler throws, as text, and keeps the worker', async () => {
    const tool = await sandbox.load('export default (input) => { if (input.fail) throw new RangeError("out of range: " + input.fail); return "ok"; }');
    const error = (await tool.call({ fail: 7 }).catch((e: unknown) => e)) as SandboxError;
    expect(error).toMatchObject({ code: 'handler_failed', failureMode: 'AGENT' });
    expect(error.message).toContain('RangeError: out of range: 7');
    expect(await tool.call({})).toBe('ok');
    expect(tool.starts).toBe(1);
    await tool.close();
  });

  it('refuses a source the audit refuses, listing every finding, and starts no worker', async () => {
    const error = (await sandbox
      .load('import fs from "node:fs";\nexport default () => fetch("https://x").then(() => eval("1"));')
      .catch((e: unknown) => e)) as SandboxError;
    expect(error).toBeInstanceOf(SandboxError);
    expect(error).toMatchObject({ code: 'audit_failed', failureMode: 'POLICY', retryable: false });
    const rules = (error.details as { findings: Array<{ rule: string }> }).findings.map((f) => f.rule);
    expect(rules).toEqual(expect.arrayContaining(['import_forbidden', 'filesystem_access', 'network_access', 'dynamic_code', 'global_not_allowed']));
    for (const rule of rules) expect(error.message).toContain(rule);
  });

  it('reports a source whose top level throws as a failed load', async () => {
    expect(await codeOf(sandbox.load('const bad = [].at.call(null);\nexport default () => 1;'))).toBe('crashed');
    expect(await codeOf(sandbox.load('export default () => 1; const x = ;'))).toBe('audit_failed');
    expect(await codeOf(sandbox.load('export default () => 1;', { limits: { timeoutMs: -1 } }))).toBe('bad_input');
  });

  it('refuses calls after close, and close stops a call under way at once', async () => {
    const tool = await sandbox.load('export default (input) => { if (input.spin) for (let i = 0; i >= 0; i++); return 1; };', {
      limits: { timeoutMs: 30_000 },
    });
    const running = codeOf(tool.call({ spin: true }));
    const queued = codeOf(tool.call({ spin: false }));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = performance.now();
    await tool.close();
    expect(await running).toBe('closed');
    expect(await queued).toBe('closed');
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(await codeOf(tool.call({}))).toBe('closed');
  });

  it('closing the sandbox terminates its tools', async () => {
    const own = createNodeSandbox();
    const tools = await Promise.all([own.load('export default () => 1;'), own.load('export default () => 2;')]);
    await own.close();
    for (const tool of tools) expect(await codeOf(tool.call({}))).toBe('closed');
  });
});

describe("the Node sandbox worker's own realm", () => {
  it('may read no file, start no process and no worker under its options, while the host may', async () => {
    // What the worker's realm could do if code ever reached it: the same options, in a plain worker.
    const probe = `const { parentPort } = require('node:worker_threads');
      const attempt = (f) => { try { f(); return 'allowed'; } catch (e) { return e.code; } };
      parentPort.postMessage({
        read: attempt(() => require('node:fs').readFileSync(${JSON.stringify(import.meta.filename)})),
        spawn: attempt(() => require('node:child_process').execFileSync('true')),
        worker: attempt(() => new (require('node:worker_threads').Worker)('1', { eval: true })),
      });`;
    const worker = new Worker(probe, { eval: true, execArgv: [...NODE_SANDBOX_EXEC_ARGV], env: {} });
    const answer = await new Promise((resolve, reject) => worker.once('message', resolve).once('error', reject));
    await worker.terminate();
    expect(answer).toEqual({ read: 'ERR_ACCESS_DENIED', spawn: 'ERR_ACCESS_DENIED', worker: 'ERR_ACCESS_DENIED' });
    expect(readFileSync(import.meta.filename, 'utf8')).toContain('ERR_ACCESS_DENIED');
  });
});

describe('hosts that cannot isolate code', () => {
  it('refuse every load with unsupported_host and say why', async () => {
    const workerd = refusingSandbox('workerd', WORKERD_SANDBOX_REASON);
    const error = (await workerd.load('export default () => 1;').catch((e: unknown) => e)) as SandboxError;
    expect(error).toBeInstanceOf(SandboxError);
    expect(error).toMatchObject({ code: 'unsupported_host', failureMode: 'SYSTEM' });
    expect(error.message).toMatch(/workerd.*no code generation/);
    expect(error.toJSON()).toMatchObject({ name: 'SandboxError', code: 'unsupported_host' });
  });
});

describe('a sandboxed tool in a registry', () => {
  it('registers like any tool, validates inputs in the host and runs each call in the warm worker', async () => {
    const registry = new ToolRegistry();
    const loaded = await sandbox.load('export default (input) => ({ words: input.text.split(/\\s+/).filter(Boolean).length });');
    registry.register(
      'dev',
      'word_count',
      sandboxedToolSpec(loaded, { description: 'Count the words of a text', parameters: z.object({ text: z.string().max(1000) }), capabilities: ['text'] }),
    );
    const tool = registry.resolve('dev', 'word_count');
    expect(tool).toMatchObject({ allowNetwork: false, capabilities: ['text', 'sandbox'] });
    const context = { signal: new AbortController().signal } as never;
    expect(await tool.handler(tool.parameters.parse({ text: 'one two  three' }), context)).toEqual({ words: 3 });
    expect(tool.parameters.safeParse({ text: 5 }).success).toBe(false);
    expect(loaded.starts).toBe(1);
    await loaded.close();
  });

  it("stops a call when the run's signal aborts", async () => {
    const loaded = await sandbox.load('export default () => { for (let i = 0; i >= 0; i++); };', { limits: { timeoutMs: 30_000 } });
    const spec = sandboxedToolSpec(loaded, { description: 'Spin', parameters: z.object({}) });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = performance.now();
    expect(await codeOf(Promise.resolve(spec.handler({}, { signal: controller.signal } as never)))).toBe('timeout');
    expect(performance.now() - started).toBeLessThan(5_000);
    await loaded.close();
  });
});
