import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  HashingEmbedder,
  InMemoryVectorBackend,
  MemoryManager,
  Planner,
  RagIndex,
  RagRetriever,
  ToolRegistry,
  registerBuiltinTools,
  registerMemoryTools,
  type Plan,
} from '../../src/core/index.ts';
import { InMemoryMemoryStore } from '../../src/core/stores.ts';
import { createSequentialIds, steppingClock } from '../../src/core/testing.ts';

// The requests a person types first into the playground (issue 17), over the playground's own
// tools: the built-ins and the memory tools.
function playgroundRegistry(): ToolRegistry {
  const embedder = new HashingEmbedder({ dimension: 64 });
  const vectors = new InMemoryVectorBackend(64);
  const memory = new MemoryManager({ store: new InMemoryMemoryStore(), vectors, embedder, clock: steppingClock(0, 1), ids: createSequentialIds('m') });
  const registry = new ToolRegistry();
  registerBuiltinTools(registry);
  registerMemoryTools(registry, { memory, retriever: new RagRetriever(new RagIndex(vectors, embedder)) });
  return registry;
}

const registry = playgroundRegistry();
const planner = new Planner({ ids: createSequentialIds('p') });
const NOW = Date.UTC(2026, 2, 2, 9, 0);
const plan = (goal: string, tools = registry): Plan => planner.plan({ goal, profile: 'demo', registry: tools, traceId: 't', runId: 'r', now: NOW });
const calls = (p: Plan) => p.steps.map((s) => ({ tool: s.tool, input: s.input }));

describe('planner: arguments follow the words', () => {
  it('orders operands by "from", "away from" and "by", not by position', () => {
    expect(calls(plan('subtract 5 from 10'))).toEqual([{ tool: 'subtract', input: { a: 10, b: 5 } }]);
    expect(calls(plan('take 3 away from 10'))).toEqual([{ tool: 'subtract', input: { a: 10, b: 3 } }]);
    expect(calls(plan('divide 100 by 4'))).toEqual([{ tool: 'divide', input: { a: 100, b: 4 } }]);
  });

  it('reads thousands separators, and decimal commas only where the language writes them', () => {
    expect(calls(plan('add 1,000 and 2'))).toEqual([{ tool: 'add', input: { a: 1000, b: 2 } }]);
    expect(calls(plan('add 1,250.5 and 2'))).toEqual([{ tool: 'add', input: { a: 1250.5, b: 2 } }]);
  });

  it('chains clauses: a later clause takes the earlier result, "double it" multiplies by two', () => {
    expect(calls(plan('add 2 and 3 then double it'))).toEqual([
      { tool: 'add', input: { a: 2, b: 3 } },
      { tool: 'multiply', input: { a: { $ref: 'step-0' }, b: 2 } },
    ]);
    expect(calls(plan('divide 100 by 4 then add 5'))).toEqual([
      { tool: 'divide', input: { a: 100, b: 4 } },
      { tool: 'add', input: { a: { $ref: 'step-0' }, b: 5 } },
    ]);
  });

  it('turns percentages into arithmetic the calculator reads', () => {
    for (const goal of ['what is 15% of 240', 'calculate 15% of 240'])
      expect(calls(plan(goal))).toEqual([{ tool: 'calculate', input: { expression: '15 / 100 * 240' } }]);
  });

  it('fills "to" and "text" from their own words, with spans of the goal and reasons', () => {
    const p = plan('send a message to bob saying hi');
    expect(calls(p)).toEqual([{ tool: 'send_message', input: { to: 'bob', text: 'hi' } }]);
    const sources = p.steps[0]!.sources!;
    expect(p.goal.slice(sources['to']!.start, sources['to']!.end)).toBe('bob');
    expect(p.goal.slice(sources['text']!.start, sources['text']!.end)).toBe('hi');
    expect(sources['text']!.reason).toContain('saying');
  });

  it('never counts the goal itself: a text that is only pointed at is asked for', () => {
    const p = plan('count the words in the README');
    expect(p.steps).toEqual([]);
    expect(p.stopReason).toBe('input_required');
    expect(p.inputRequired).toMatchObject({ tool: 'text_stats', missing: [{ name: 'text', type: 'string' }] });
    expect(calls(plan("count the words of 'to be or not to be'"))).toEqual([{ tool: 'text_stats', input: { text: 'to be or not to be' } }]);
  });
});

describe('planner: which tool, and when none', () => {
  it('reads "sum of" as addition, never as a message to send', () => {
    expect(calls(plan('sum of 3 and 4'))).toEqual([{ tool: 'add', input: { a: 3, b: 4 } }]);
  });

  it('sends questions about the documents to retrieval, not to memory writes', () => {
    expect(plan('tell me about beekeeping').steps).toMatchObject([{ tool: 'rag_query', input: { query: 'beekeeping' } }]);
    expect(plan('summarise the corpus document about approvals').steps.map((s) => s.tool)).toEqual(['rag_query']);
  });

  it('empties the plan when one clause has no tool, and says which and what came closest', () => {
    const p = plan('add 2 and 3 then book a flight to Lisbon');
    expect(p.steps).toEqual([]);
    expect(p.stopReason).toBe('no_relevant_tool');
    expect(p.refusals).toMatchObject([{ clause: 1, text: 'book a flight to Lisbon' }]);
  });

  it('needs stronger evidence for a tool that changes the world than for one that reads', () => {
    const tools = new ToolRegistry();
    const text = z.object({ text: z.string() });
    tools.register('demo', 'post_note', { description: 'Post a note to the team board', parameters: text, handler: () => 1, requiresApproval: true });
    tools.register('demo', 'read_note', { description: 'Read a note from the team board', parameters: text, handler: () => 1, idempotent: true });
    // One shared word ("team") is enough evidence to read, not to post.
    expect(plan('team "standup"', tools).steps.map((s) => s.tool)).toEqual(['read_note']);
    expect(plan('post the note "standup" to the team board', tools).steps.map((s) => s.tool)).toEqual(['post_note']);
  });

  it('ranks by aliases and examples in other languages', () => {
    const tools = new ToolRegistry();
    tools.register('demo', 'forecast', {
      description: 'Forecast for a city',
      parameters: z.object({ city: z.string() }),
      handler: () => 1,
      idempotent: true,
      examples: ['quel temps fera-t-il à Lyon'],
    });
    tools.register('demo', 'stock_quote', {
      description: 'Price of a share',
      parameters: z.object({ symbol: z.string() }),
      handler: () => 1,
      idempotent: true,
    });
    expect(plan('quel temps fera-t-il à Nantes ?', tools).steps).toMatchObject([{ tool: 'forecast', input: { city: 'Nantes' } }]);
  });
});

describe('planner: bad input gives a plan or a refusal, never an exception', () => {
  const odd = [
    '',
    ' ',
    'x'.repeat(64 * 1024),
    'add 1 and 2 '.repeat(6000),
    '\u0000\u0001\u0002\uFFFD\uFFFF',
    'مرحبا كيف حالك',
    'שלח הודעה לבוב',
    '🙂🙂🚀🔥',
    'add ２ and ３',
    'send 消息 to Боб saying ñ',
    '((((((((((',
    '"unterminated',
  ];

  it('handles empty, huge, binary-looking, right-to-left, emoji-only and mixed-script requests', () => {
    for (const goal of odd) {
      const p = plan(goal);
      expect(['planned', 'no_relevant_tool', 'input_required', 'max_steps', 'explicit_calls']).toContain(p.stopReason);
      if (p.stopReason === 'no_relevant_tool') expect(p.refusals?.length).toBeGreaterThanOrEqual(1);
    }
  });

  it('ranks tools whose descriptions have no words', () => {
    const tools = new ToolRegistry();
    tools.register('demo', 'x1', { description: '—', parameters: z.object({}), handler: () => 1 });
    tools.register('demo', 'x2', { description: '🙂 🙂', parameters: z.object({ v: z.number() }), handler: () => 1 });
    expect(plan('add 1 and 2', tools)).toMatchObject({ steps: [], stopReason: 'no_relevant_tool' });
  });

  it('reads words named like Object.prototype members as words, in requests and in parameter names', () => {
    const tools = new ToolRegistry();
    tools.register('demo', 'countdown', {
      description: 'Start a countdown timer.',
      parameters: z.object({ constructor: z.number().describe('Length').optional(), label: z.string().optional() }),
      handler: () => 1,
    });
    tools.register('demo', 'convert_length', {
      description: 'Convert a length between units.',
      parameters: z.object({ value: z.number(), from: z.enum(['km', 'm']), to: z.enum(['km', 'm']) }),
      handler: () => 1,
    });
    for (const goal of ['start a countdown called constructor toString valueOf __proto__', 'convert 3 constructor to hasOwnProperty', 'constructor']) {
      const p = plan(goal, tools);
      // Every value a plan holds is plain data: JSON keeps it whole.
      expect(JSON.parse(JSON.stringify(p))).toEqual(p);
      for (const step of p.steps) for (const value of Object.values(step.input)) expect(typeof value).not.toBe('function');
    }
  });

  it('never throws on any string (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300, unit: 'binary' }), (goal) => {
        const p = plan(goal);
        expect(p.goal).toBe(goal);
        for (const step of p.steps) for (const source of Object.values(step.sources ?? {})) expect(source.end).toBeLessThanOrEqual(goal.length);
      }),
      { numRuns: 300 },
    );
  });

  it('is deterministic: the same goal and instant give the same plan', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('book a table tomorrow at 19:00 for 4', 'send a message to bob saying hi', 'add 2 and 3 then double it'),
        fc.nat(),
        (goal, n) => {
          const a = planner.plan({ goal, profile: 'demo', registry, traceId: 't', runId: 'r', now: NOW + n, planId: 'p' });
          const b = planner.plan({ goal, profile: 'demo', registry, traceId: 't', runId: 'r', now: NOW + n, planId: 'p' });
          expect(a).toEqual(b);
        },
      ),
      { numRuns: 30 },
    );
  });
});
