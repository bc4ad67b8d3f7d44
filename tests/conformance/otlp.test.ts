import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { InMemoryStore, OTLP_VALUE_LIMIT, Orchestrator, ToolRegistry, ValidationError, readOtlp, registerBuiltinTools, toOtlp } from '../../src/core/index.ts';
import { createSequentialIds } from '../../src/core/testing.ts';

describe('reading OTLP JSON', () => {
  it('reads back what toOtlp exports: the run span first, its tool calls under it in start order', async () => {
    const registry = new ToolRegistry();
    registerBuiltinTools(registry, 'demo');
    const store = new InMemoryStore();
    const orchestrator = new Orchestrator({ registry, store, ids: createSequentialIds('otlp') });
    const outcome = await orchestrator.start('add 2 and 3, then multiply the result by 4', 'demo');
    expect(outcome.status).toBe('completed');
    const spans = readOtlp(JSON.parse(JSON.stringify(toOtlp(await store.readJournal(outcome.runId)))));
    expect(spans.filter((s) => !s.name.startsWith('stage ')).map((s) => [s.name, s.depth])).toEqual([
      ['invoke_agent demo', 0],
      ['execute_tool add', 1],
      ['execute_tool multiply', 1],
    ]);
    // Each stage is a span under the run, from its start to the next stage's.
    expect(spans.filter((s) => s.name.startsWith('stage ')).map((s) => [s.name, s.depth])).toEqual(
      ['initialize', 'plan', 'route', 'execute', 'aggregate', 'complete'].map((stage) => [`stage ${stage}`, 1]),
    );
    expect(spans[0]!.service).toBe('cugar');
    const add = spans.find((s) => s.name === 'execute_tool add')!;
    expect(add.attributes['gen_ai.tool.name']).toBe('add');
    expect(add.attributes['cugar.attempt']).toBe(1);
    expect(JSON.parse(add.attributes['gen_ai.tool.call.arguments'] as string)).toEqual({ a: 2, b: 3 });
    expect(JSON.parse(add.attributes['gen_ai.tool.call.result'] as string)).toBe(5);
    expect(spans.every((s) => s.statusCode === 1 && s.endMs >= s.startMs)).toBe(true);
  });

  it('carries tool arguments and results redacted and bounded', async () => {
    const registry = new ToolRegistry();
    registry.register('demo', 'login', {
      description: 'log in somewhere',
      parameters: z.object({ user: z.string(), password: z.string() }),
      handler: ({ user }) => ({ user, session: 'x'.repeat(20_000) }),
    });
    const store = new InMemoryStore();
    const orchestrator = new Orchestrator({ registry, store, ids: createSequentialIds('otlp-redact') });
    const outcome = await orchestrator.start('login(user="ana", password="hunter2-very-secret")', 'demo');
    expect(outcome.status).toBe('completed');
    const [call] = readOtlp(JSON.parse(JSON.stringify(toOtlp(await store.readJournal(outcome.runId))))).filter((s) => s.name === 'execute_tool login');
    const args = call!.attributes['gen_ai.tool.call.arguments'] as string;
    expect(args).toContain('"user":"ana"');
    expect(args).not.toContain('hunter2');
    const result = call!.attributes['gen_ai.tool.call.result'] as string;
    expect(result.length).toBeLessThan(OTLP_VALUE_LIMIT + 40);
    expect(result).toMatch(/… \(\d+ characters\)$/);
  });

  it('accepts other producers: numeric times, enum status names, nested attribute values, orphans and cycles', () => {
    const spans = readOtlp({
      resourceSpans: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'elsewhere' } }] },
          scopeSpans: [
            {
              spans: [
                {
                  traceId: 't',
                  spanId: 'c',
                  parentSpanId: 'a',
                  name: 'same start, earlier in the file',
                  startTimeUnixNano: '2000000',
                  endTimeUnixNano: '2000000',
                },
                {
                  traceId: 't',
                  spanId: 'b',
                  parentSpanId: 'a',
                  name: 'child',
                  startTimeUnixNano: 2_000_000,
                  endTimeUnixNano: 3_500_000,
                  status: { code: 'STATUS_CODE_ERROR', message: 'boom' },
                  attributes: [{ key: 'list', value: { arrayValue: { values: [{ intValue: '1' }, { boolValue: true }] } } }],
                },
                { traceId: 't', spanId: 'a', name: 'root', startTimeUnixNano: '1000000', endTimeUnixNano: '4000000' },
                { traceId: 't', spanId: 'o', parentSpanId: 'missing', name: 'orphan', startTimeUnixNano: '5000000', endTimeUnixNano: '5000000' },
                { traceId: 't', spanId: 'x', parentSpanId: 'y', name: 'cycle x', startTimeUnixNano: '6000000', endTimeUnixNano: '7000000' },
                { traceId: 't', spanId: 'y', parentSpanId: 'x', name: 'cycle y', startTimeUnixNano: '6500000', endTimeUnixNano: '7000000' },
              ],
            },
          ],
        },
      ],
    });
    expect(spans.map((s) => `${s.name}@${s.depth}`)).toEqual(['root@0', 'same start, earlier in the file@1', 'child@1', 'orphan@0', 'cycle x@0', 'cycle y@0']);
    expect(spans[2]).toMatchObject({ startMs: 2, endMs: 3.5, statusCode: 2, statusMessage: 'boom', service: 'elsewhere', attributes: { list: [1, true] } });
  });

  it('refuses what is not OTLP trace JSON with a typed error', () => {
    for (const bad of [
      null,
      42,
      {},
      { resourceSpans: 'no' },
      { resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: 't', spanId: 's', name: 'n', startTimeUnixNano: 'soon', endTimeUnixNano: '1' }] }] }] },
    ]) {
      expect(() => readOtlp(bad)).toThrow(ValidationError);
      try {
        readOtlp(bad);
      } catch (error) {
        expect((error as ValidationError).code).toBe('invalid_otlp');
      }
    }
  });
});
