import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Planner, ToolRegistry, registerBuiltinTools, splitClauses } from '../../src/core/index.ts';
import { createSequentialIds } from '../../src/core/testing.ts';
import { detectToolCalls } from '../../src/core/planning/toolCallDetector.ts';
import { extractNumbers, fillSlots } from '../../src/core/planning/slotFilling.ts';

function demoRegistry(): ToolRegistry {
  const registry = new ToolRegistry();
  registerBuiltinTools(registry);
  return registry;
}

function plan(goal: string, extra: Partial<Parameters<Planner['plan']>[0]> = {}, planner = new Planner({ ids: createSequentialIds('p') })) {
  return { plan: planner.plan({ goal, profile: 'demo', registry: demoRegistry(), traceId: 't', runId: 'r', ...extra }) };
}

describe('Planner: pattern plan', () => {
  it('takes explicit calls from the goal without ranking', () => {
    const { plan: p } = plan('please add(a=10, b=5) and then multiply(3, 4)');
    expect(p.source).toBe('pattern');
    expect(p.stopReason).toBe('explicit_calls');
    expect(p.steps).toEqual([
      { name: 'step-0', tool: 'add', input: { a: 10, b: 5 }, index: 0 },
      { name: 'step-1', tool: 'multiply', input: { a: 3, b: 4 }, index: 1 },
    ]);
  });

  it('reads JSON calls, including string-encoded arguments', () => {
    const tools = new Map([
      ['echo', ['message']],
      ['add', ['a', 'b']],
    ]);
    expect(detectToolCalls('run {"tool":"echo","input":{"message":"hi"}} now', tools)).toMatchObject([{ tool: 'echo', input: { message: 'hi' } }]);
    expect(detectToolCalls('{"name":"add","arguments":"{\\"a\\":1,\\"b\\":2}"}', tools)).toMatchObject([{ tool: 'add', input: { a: 1, b: 2 } }]);
    expect(detectToolCalls('{"name":"unknown","arguments":{}}', tools)).toEqual([]);
  });

  it('ignores call-like prose for tools the profile does not have, and grouped expressions', () => {
    const tools = new Map([
      ['calculate', ['expression']],
      ['echo', ['message']],
    ]);
    expect(detectToolCalls('the total (roughly) of print(x)', tools)).toEqual([]);
    expect(detectToolCalls('calculate (2+3)*4', tools)).toEqual([]);
    expect(detectToolCalls("echo('a, b', )", tools)).toMatchObject([{ tool: 'echo', input: { message: 'a, b' } }]);
    expect(detectToolCalls('calculate(max(1, 2) + 3)', tools)).toMatchObject([{ tool: 'calculate', input: { expression: 'max(1, 2) + 3' } }]);
  });
});

describe('Planner: ranking', () => {
  it('picks the relevant tool, never all tools, and records every candidate with scores', () => {
    const { plan: p } = plan('add 10 and 5');
    expect(p.source).toBe('ranking');
    expect(p.steps).toMatchObject([{ name: 'step-0', tool: 'add', input: { a: 10, b: 5 }, index: 0 }]);
    expect(p.steps[0]!.sources).toMatchObject({ a: { start: 4, end: 6 }, b: { start: 11, end: 12 } });
    expect(p.candidates).toHaveLength(8);
    expect(p.candidates.filter((c) => c.selected).map((c) => c.tool)).toEqual(['add']);
    const selected = p.candidates.find((c) => c.selected)!;
    for (const c of p.candidates) expect(c.score).toBeLessThanOrEqual(selected.score);
    expect(p.planId).toBe('plan_p_1');
  });

  it("is pure and shared: the same request gives the same plan, with the caller's plan id and step limit", () => {
    const planner = new Planner({ ids: createSequentialIds('p'), maxSteps: 1 });
    const a = plan('add 2 and 3 then multiply the result by 4', { planId: 'run_1:plan:0', maxSteps: 5 }, planner).plan;
    const b = plan('add 2 and 3 then multiply the result by 4', { planId: 'run_1:plan:0', maxSteps: 5 }, planner).plan;
    expect(a).toEqual(b);
    expect(a.planId).toBe('run_1:plan:0');
    expect(a.steps).toHaveLength(2);
    expect(plan('add 2 and 3 then multiply the result by 4', {}, planner).plan).toMatchObject({ steps: [{ tool: 'add' }], stopReason: 'max_steps' });
  });

  it('orders candidates by score and scores correlate with similarity', () => {
    const planner = new Planner({ ids: createSequentialIds() });
    const tools = demoRegistry().definitions('demo');
    const sims = planner.similarities('count the words of this text', tools);
    const ranked = [...sims.entries()].sort((a, b) => b[1] - a[1]);
    expect(ranked[0]![0]).toBe('text_stats');
    const { plan: p } = plan('count the words of this text');
    const scores = p.candidates.map((c) => c.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });

  it('splits sequenced goals into steps and references earlier results', () => {
    const { plan: p } = plan('add 2 and 3, then multiply the result by 4; finally echo "done"');
    expect(p.steps.map((s) => s.tool)).toEqual(['add', 'multiply', 'echo']);
    expect(p.steps[1]!.input).toEqual({ a: { $ref: 'step-0' }, b: 4 });
    expect(p.steps[2]!.input).toEqual({ message: 'done' });
    expect(splitClauses('echo "then and; then"; add 1 and 2')).toEqual(['echo "then and; then"', 'add 1 and 2']);
  });

  it('abstains with an empty plan and a reason when nothing is relevant', () => {
    const { plan: p } = plan('book me a flight to Lisbon');
    expect(p.steps).toEqual([]);
    expect(p.stopReason).toBe('no_relevant_tool');
    expect(p.candidates.every((c) => !c.selected)).toBe(true);
    expect(p.refusals).toMatchObject([{ clause: 0, text: 'book me a flight to Lisbon', code: 'no_match' }]);
  });

  it('weighs cost and latency by preference between equally relevant tools', () => {
    const registry = new ToolRegistry();
    const params = z.object({ url: z.string() });
    const meta = { description: 'fetch a web page', parameters: params, handler: () => 1, idempotent: true };
    registry.register('demo', 'fetch_fast', { ...meta, cost: 10, latency: 10 });
    registry.register('demo', 'fetch_cheap', { ...meta, cost: 1, latency: 1000 });
    const planner = new Planner({ ids: createSequentialIds() });
    const pick = (costWeight: number, latencyWeight: number) =>
      planner.plan({
        goal: 'fetch the web page https://example.com/a',
        profile: 'demo',
        registry,
        traceId: 't',
        runId: 'r',
        preferences: { costWeight, latencyWeight },
      }).steps[0]!.tool;
    expect(pick(1, 0)).toBe('fetch_cheap');
    expect(pick(0, 1)).toBe('fetch_fast');
  });

  it('clamps to the step limit and says so', () => {
    const goal = Array.from({ length: 8 }, (_, i) => `add ${i} and 1`).join(' then ');
    const { plan: p } = plan(goal, { preferences: { maxSteps: 3 } });
    expect(p.steps).toHaveLength(3);
    expect(p.stopReason).toBe('max_steps');
    const tight = new Planner({ ids: createSequentialIds(), maxSteps: 500 });
    expect(plan(Array.from({ length: 60 }, () => 'echo x').join('; '), {}, tight).plan.steps).toHaveLength(50);
  });

  it('excludes tools on request (replanning)', () => {
    const { plan: p } = plan('add 1 and 2', { exclude: ['add'] });
    expect(p.steps.map((s) => s.tool)).not.toContain('add');
  });
});

describe('slot filling', () => {
  it('fills numbers, quoted strings, URLs, paths and enums from the schema', () => {
    const schema = z.toJSONSchema(
      z.object({ url: z.string(), path: z.string(), mode: z.enum(['fast', 'slow']), count: z.number().int(), note: z.string() }),
    ) as Record<string, unknown>;
    expect(fillSlots(schema, { clause: 'get https://example.com/a?b=1 into ./out/data.json in slow mode 3 times "hi there"', goal: '', tool: 'get' })).toEqual({
      url: 'https://example.com/a?b=1',
      path: './out/data.json',
      mode: 'slow',
      count: 3,
      note: 'hi there',
    });
    expect(extractNumbers('add twenty and 1.5 to -3 but not "7"')).toEqual([20, 1.5, -3]);
  });
});
