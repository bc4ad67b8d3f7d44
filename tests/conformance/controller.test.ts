import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  Controller,
  ExecutionResultSchema,
  MAX_GOAL_BYTES,
  NotFoundError,
  PolicyEnforcer,
  ToolRegistry,
  ValidationError,
  eventsOf,
  verifyJournal,
  type JournalEvent,
  registerBuiltinTools,
} from '../../src/core/index.ts';
import { createSequentialIds, steppingClock } from '../../src/core/testing.ts';

function setup(extra?: (registry: ToolRegistry) => void, policy?: PolicyEnforcer) {
  const registry = new ToolRegistry();
  registerBuiltinTools(registry);
  extra?.(registry);
  const controller = new Controller({ registry, ids: createSequentialIds('c'), clock: steppingClock(1_000, 5), ...(policy ? { policy } : {}) });
  return { registry, controller };
}

describe('Controller.run', () => {
  it('plans and executes a multi-step goal, carrying the trace id everywhere', async () => {
    const { controller } = setup();
    const result = await controller.run('add 2 and 3 then multiply the result by 4', 'demo');
    expect(ExecutionResultSchema.parse(result)).toBeTruthy();
    expect(result.success).toBe(true);
    expect(result.outputs).toEqual({ 'step-0': 5, 'step-1': 20 });
    expect(result.traceId).toBe('trace_c_1');
    // The result carries the run's journal: the one event model, hash-chained and verifiable.
    expect(verifyJournal(result.events).ok).toBe(true);
    expect(await controller.orchestrator.store.readJournal(result.runId)).toEqual(result.events);
    expect(eventsOf(result.events, 'stage').map((e) => e.data.stage)).toEqual(['initialize', 'plan', 'route', 'execute', 'aggregate', 'complete']);
    expect(result.events.filter((e) => e.type.startsWith('tool_call')).map((e) => e.type)).toEqual([
      'tool_call_start',
      'tool_call_complete',
      'tool_call_start',
      'tool_call_complete',
    ]);
    expect(result.events.every((e) => e.runId === result.runId)).toBe(true);
    expect(eventsOf(result.events, 'stage')[0]!.data.inputs).toMatchObject({ traceId: result.traceId, profile: 'demo' });
    const starts = eventsOf(result.events, 'tool_call_start');
    expect(starts.map((e) => e.data.index)).toEqual([0, 1]);
    const complete = eventsOf(result.events, 'tool_call_complete');
    expect(complete.every((e) => e.data.durationMs === 5)).toBe(true);
    expect(result.plan.steps.map((s) => s.tool)).toEqual(['add', 'multiply']);
    expect(result.logs[0]).toBe('planned 2 step(s) [add, multiply]: planned');
  });

  it('continues a given trace id and hands handlers their context', async () => {
    const seen: unknown[] = [];
    const { controller } = setup((r) =>
      r.register('demo', 'probe', {
        description: 'probe the context of a call',
        parameters: z.object({}),
        handler: (_input, context) => {
          seen.push({ ...context, signal: context.signal instanceof AbortSignal, secret: typeof context.secret });
          return 'ok';
        },
      }),
    );
    const result = await controller.run('probe({})', 'demo', { traceId: 'trace-from-caller' });
    expect(result.success).toBe(true);
    expect(seen).toEqual([
      {
        profile: 'demo',
        traceId: 'trace-from-caller',
        runId: result.runId,
        stepIndex: 0,
        signal: true,
        idempotencyKey: `${result.runId}:step-0`,
        attempt: 1,
        secret: 'function',
      },
    ]);
  });

  it('stops at the first failing step and reports it', async () => {
    const { controller } = setup();
    const result = await controller.run('divide 1 by 0 then echo "never"', 'demo');
    expect(result.success).toBe(false);
    expect(result.stopReason).toBe('failed');
    expect(result.error).toMatchObject({ code: 'division_by_zero', failureMode: 'USER' });
    expect(result.events.filter((e) => e.type === 'tool_call_start')).toHaveLength(1);
    expect(eventsOf(result.events, 'tool_call_error').map((e) => e.data.final)).toEqual([true]);
    expect(result.events.at(-1)!.type).toBe('run_completed');
  });

  it('validates inputs before any handler runs', async () => {
    let calls = 0;
    const { controller } = setup((r) =>
      r.register('demo', 'strict_tool', { description: 'strict', parameters: z.object({ n: z.number().int().positive() }), handler: () => ++calls }),
    );
    for (const goal of ['strict_tool(n=-1)', 'strict_tool(n="x")', 'strict_tool(n=1.5)', 'strict_tool()']) {
      const result = await controller.run(goal, 'demo');
      expect(result.success, goal).toBe(false);
      expect(result.error?.code).toBe('invalid_input');
    }
    expect(calls).toBe(0);
  });

  it('refuses network tools unless the profile allows the network', async () => {
    let fetched = 0;
    const register = (r: ToolRegistry) =>
      r.register('demo', 'http_get', {
        description: 'fetch a url over http',
        parameters: z.object({ url: z.string() }),
        allowNetwork: true,
        handler: () => ++fetched,
      });
    const denied = await setup(register).controller.run('http_get(url="http://127.0.0.1/")', 'demo');
    expect(denied.error).toMatchObject({ code: 'network_not_allowed', failureMode: 'POLICY' });
    const allowed = await setup(register, new PolicyEnforcer({ demo: { allowNetwork: true } })).controller.run('http_get(url="http://127.0.0.1/")', 'demo');
    expect(allowed.success).toBe(true);
    expect(fetched).toBe(1);
  });

  it('abstains when no tool is relevant', async () => {
    const result = await setup().controller.run('book a table for two in Rome', 'demo');
    expect(result).toMatchObject({ success: false, stopReason: 'no_relevant_tool', error: { code: 'no_relevant_tool' } });
  });

  it('rejects bad requests with typed errors before anything happens', async () => {
    const { controller } = setup();
    const events: unknown[] = [];
    controller.subscribe((e) => events.push(e));
    const cases: Array<[() => Promise<unknown>, new (...a: never[]) => Error, string]> = [
      [() => controller.run('', 'demo'), ValidationError, 'validation_failed'],
      [() => controller.run('x'.repeat(MAX_GOAL_BYTES + 1), 'demo'), ValidationError, 'validation_failed'],
      [() => controller.run('é'.repeat(MAX_GOAL_BYTES / 2 + 1), 'demo'), ValidationError, 'validation_failed'],
      [() => controller.run('add 1 and 2', 'ghost'), NotFoundError, 'unknown_profile'],
      [() => controller.run('add 1 and 2', 'bad profile'), ValidationError, 'invalid_profile'],
      [() => controller.run('add 1 and 2', 'demo', { metadata: { n: Number.NaN } }), ValidationError, 'validation_failed'],
      [() => controller.run('add 1 and 2', 'demo', { preferences: { costWeight: -1 } }), ValidationError, 'validation_failed'],
      [() => controller.run(42 as unknown as string, 'demo'), ValidationError, 'validation_failed'],
    ];
    for (const [call, type, code] of cases) {
      const error = await call().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(type);
      expect((error as { code: string }).code).toBe(code);
    }
    expect(events).toEqual([]);
    expect(await controller.orchestrator.store.listRuns()).toEqual([]);
  });

  it('treats NaN and Infinity as invalid numbers', async () => {
    const { controller } = setup();
    const result = await controller.run('{"tool":"add","input":{"a":1e999,"b":1}}', 'demo');
    expect(result.error?.code).toBe('invalid_input');
    const overflow = await controller.run('multiply(1e308, 10)', 'demo');
    expect(overflow.error?.code).toBe('non_finite_result');
  });

  it('redacts secrets before events leave the core', async () => {
    const { controller } = setup();
    const seen: JournalEvent[] = [];
    controller.subscribe((e) => seen.push(e));
    const result = await controller.run('echo "my key is sk-abcdefghijklmnopqrstuvwx"', 'demo', { metadata: { apiKey: 'hunter2', user: 'ada' } });
    expect(result.outputs['step-0']).toBe('my key is sk-abcdefghijklmnopqrstuvwx');
    const all = JSON.stringify(seen) + JSON.stringify(result.events) + JSON.stringify(result.logs);
    expect(all).not.toContain('hunter2');
    expect(all).not.toContain('sk-abcdefghijklmnopqrstuvwx');
    expect(all).toContain('ada');
    expect(seen).toHaveLength(result.events.length);
    expect(await controller.orchestrator.getTraceHistory(result.traceId)).toHaveLength(result.events.length);
  });

  it('pauses for a human and continues through the same orchestrator', async () => {
    const { controller } = setup((r) =>
      r.register('demo', 'wire_money', {
        description: 'wire money to an account',
        parameters: z.object({ amount: z.number() }),
        requiresApproval: true,
        idempotent: false,
        handler: ({ amount }) => `sent ${amount}`,
      }),
    );
    const paused = await controller.run('wire_money(amount=5)', 'demo');
    expect(paused).toMatchObject({ success: false, status: 'paused', stopReason: 'paused' });
    const approval = (await controller.orchestrator.listApprovals({ status: 'pending' }))[0]!;
    const done = await controller.orchestrator.resolveApproval(approval.approvalId, { decision: 'approve', by: 'ada' });
    expect(done).toMatchObject({ status: 'completed', outputs: { 'step-0': 'sent 5' } });
  });

  it('cancels the run when the caller aborts', async () => {
    const abort = new AbortController();
    const { controller } = setup((r) =>
      r.register('demo', 'slow_job', {
        description: 'a slow job',
        parameters: z.object({}),
        handler: (_input, context) =>
          new Promise((resolve) => {
            context.signal.addEventListener('abort', () => resolve('stopped'));
            abort.abort();
          }),
      }),
    );
    const result = await controller.run('slow_job()', 'demo', { signal: abort.signal });
    expect(result).toMatchObject({ status: 'cancelled', success: false });
  });

  it('is deterministic: same inputs and ports give the same result', async () => {
    const a = await setup().controller.run('add 2 and 3 then multiply the result by 4', 'demo');
    const b = await setup().controller.run('add 2 and 3 then multiply the result by 4', 'demo');
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
  });
});
