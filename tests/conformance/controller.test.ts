import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  Controller,
  EventBus,
  ExecutionResultSchema,
  MAX_GOAL_BYTES,
  NotFoundError,
  PolicyEnforcer,
  ToolRegistry,
  TraceEventSchema,
  ValidationError,
  createSequentialIds,
  registerBuiltinTools,
  steppingClock,
} from '../../src/core/index.ts';

function setup(extra?: (registry: ToolRegistry) => void, policy?: PolicyEnforcer) {
  const registry = new ToolRegistry();
  registerBuiltinTools(registry);
  extra?.(registry);
  const bus = new EventBus();
  const controller = new Controller({ registry, ids: createSequentialIds('c'), clock: steppingClock(1_000, 5), bus, ...(policy ? { policy } : {}) });
  return { registry, bus, controller };
}

describe('Controller.run', () => {
  it('plans and executes a multi-step goal, carrying the trace id everywhere', async () => {
    const { controller } = setup();
    const result = await controller.run('add 2 and 3 then multiply the result by 4', 'demo');
    expect(ExecutionResultSchema.parse(result)).toBeTruthy();
    expect(result.success).toBe(true);
    expect(result.outputs).toEqual({ 'step-0': 5, 'step-1': 20 });
    expect(result.traceId).toBe('trace_c_1');
    expect(result.events.map((e) => e.type)).toEqual([
      'run_started',
      'plan_started',
      'plan_created',
      'tool_call_start',
      'tool_call_complete',
      'tool_call_start',
      'tool_call_complete',
      'run_completed',
    ]);
    for (const event of result.events) {
      expect(TraceEventSchema.parse(event)).toBeTruthy();
      expect(event.traceId).toBe(result.traceId);
      expect(event.profile).toBe('demo');
    }
    const complete = result.events.filter((e) => e.type === 'tool_call_complete');
    expect(complete.map((e) => e.stepIndex)).toEqual([0, 1]);
    expect(complete.every((e) => e.durationMs === 5)).toBe(true);
  });

  it('continues a given trace id and hands handlers their context', async () => {
    const seen: unknown[] = [];
    const { controller } = setup((r) =>
      r.register('demo', 'probe', {
        description: 'probe the context of a call',
        parameters: z.object({}),
        handler: (_input, context) => {
          seen.push({ ...context, signal: context.signal instanceof AbortSignal });
          return 'ok';
        },
      }),
    );
    const result = await controller.run('probe({})', 'demo', { traceId: 'trace-from-caller' });
    expect(result.success).toBe(true);
    expect(seen).toEqual([{ profile: 'demo', traceId: 'trace-from-caller', runId: result.runId, stepIndex: 0, signal: true, idempotencyKey: `${result.runId}:step-0`, attempt: 1 }]);
  });

  it('stops at the first failing step and reports it', async () => {
    const { controller } = setup();
    const result = await controller.run('divide 1 by 0 then echo "never"', 'demo');
    expect(result.success).toBe(false);
    expect(result.stopReason).toBe('failed');
    expect(result.error).toMatchObject({ code: 'division_by_zero', failureMode: 'USER' });
    expect(result.events.filter((e) => e.type === 'tool_call_start')).toHaveLength(1);
    expect(result.events.at(-2)!.type).toBe('tool_call_error');
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
      r.register('demo', 'http_get', { description: 'fetch a url over http', parameters: z.object({ url: z.string() }), allowNetwork: true, handler: () => ++fetched });
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
    const { controller, bus } = setup();
    const events: unknown[] = [];
    bus.subscribe((e) => events.push(e));
    const cases: Array<[() => Promise<unknown>, new (...a: never[]) => Error, string]> = [
      [() => controller.run('', 'demo'), ValidationError, 'validation_failed'],
      [() => controller.run('x'.repeat(MAX_GOAL_BYTES + 1), 'demo'), ValidationError, 'validation_failed'],
      [() => controller.run('é'.repeat(MAX_GOAL_BYTES / 2 + 1), 'demo'), ValidationError, 'validation_failed'],
      [() => controller.run('add 1 and 2', 'ghost'), NotFoundError, 'unknown_profile'],
      [() => controller.run('add 1 and 2', 'bad profile'), ValidationError, 'validation_failed'],
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
  });

  it('treats NaN and Infinity as invalid numbers', async () => {
    const { controller } = setup();
    const result = await controller.run('{"tool":"add","input":{"a":1e999,"b":1}}', 'demo');
    expect(result.error?.code).toBe('invalid_input');
    const overflow = await controller.run('multiply(1e308, 10)', 'demo');
    expect(overflow.error?.code).toBe('non_finite_result');
  });

  it('redacts secrets before events leave the core', async () => {
    const { controller, bus } = setup();
    const seen: string[] = [];
    bus.subscribe((e) => seen.push(JSON.stringify(e)));
    const result = await controller.run('echo "my key is sk-abcdefghijklmnopqrstuvwx"', 'demo', { metadata: { apiKey: 'hunter2', user: 'ada' } });
    expect(result.outputs['step-0']).toBe('my key is sk-abcdefghijklmnopqrstuvwx');
    const all = seen.join('\n') + JSON.stringify(result.events);
    expect(all).not.toContain('hunter2');
    expect(all).not.toContain('sk-abcdefghijklmnopqrstuvwx');
    expect(all).toContain('ada');
    expect(bus.getTraceHistory(result.traceId)).toHaveLength(result.events.length);
  });

  it('is deterministic: same inputs and ports give the same result', async () => {
    const a = await setup().controller.run('add 2 and 3 then multiply the result by 4', 'demo');
    const b = await setup().controller.run('add 2 and 3 then multiply the result by 4', 'demo');
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
  });
});
