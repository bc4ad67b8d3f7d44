import { describe, expect, it } from 'vitest';
import { InMemoryStore, Orchestrator, ToolRegistry, registerBuiltinTools, staticModels, toTraceRecords } from '../../src/core/index.ts';
import { createSequentialIds, steppingClock } from '../../src/core/testing.ts';
import { spansOf } from '../../src/web/dashboard/TraceView.tsx';
import { apiCallError, scriptedModel } from '../support/scriptedModel.ts';

// The dashboard's waterfall shows an agent run's model calls as `chat {model}` spans, with the
// request, the answer, usage and finish reason in the detail panel; a failed call is an error span.

describe('trace view of an agent run', () => {
  it('has a span per model call attempt beside the tool spans', async () => {
    const registry = new ToolRegistry();
    registerBuiltinTools(registry);
    const model = scriptedModel([{ error: apiCallError(503) }, { calls: [{ tool: 'add', input: { a: 1, b: 2 } }] }, { text: 'Three.' }], 'm1');
    const o = new Orchestrator({
      registry,
      store: new InMemoryStore(),
      ids: createSequentialIds('trace'),
      clock: steppingClock(1_000, 10),
      sleep: async () => undefined,
      models: staticModels([['m1', model]]),
    });
    const outcome = await o.start('add one and two', 'demo');
    const spans = spansOf(toTraceRecords(await o.store.readJournal(outcome.runId)));
    const chats = spans.filter((span) => span.label.startsWith('chat '));
    expect(chats.map((span) => [span.label, span.kind])).toEqual([
      ['chat m1 #1', 'error'],
      ['chat m1 #2', 'model'],
      ['chat m1 #1', 'model'],
    ]);
    expect(chats[0]!.error).toMatchObject({ code: 'model_unavailable' });
    expect(chats[2]!.output).toEqual({ text: 'Three.', toolCalls: [] });
    expect(chats[2]!.extra).toMatchObject({ turn: 2, finishReason: 'stop', usage: { totalTokens: 15 } });
    expect(JSON.stringify(chats[1]!.input)).toContain('add one and two');
    expect(chats.every((span) => span.end >= span.start)).toBe(true);
    expect(spans.some((span) => span.kind === 'tool' && span.tool === 'add')).toBe(true);
  });
});
