import { describe, expect, it } from 'vitest';
import { InMemoryStore, Orchestrator, ToolRegistry, eventsOf, registerBuiltinTools, replay, staticModels } from '../../src/core/index.ts';
import { createSequentialIds } from '../../src/core/testing.ts';
import { scriptedModel, type ScriptedTurn } from '../support/scriptedModel.ts';

// Review: with REVIEW_ANSWERS an agent's answer is checked by the model against the goal and the
// tool results before the run completes; a failed check sends the model back to work, and every
// third failed check starts the conversation over with the failures in context.

function registry(): ToolRegistry {
  const tools = new ToolRegistry();
  registerBuiltinTools(tools);
  return tools;
}

async function run(turns: ScriptedTurn[]) {
  const model = scriptedModel(turns, 'm1');
  const o = new Orchestrator({
    registry: registry(),
    store: new InMemoryStore(),
    ids: createSequentialIds('rev'),
    sleep: async () => undefined,
    models: staticModels([['m1', model]]),
    config: { reviewAnswers: true, maxLlmCalls: 20 },
  });
  const outcome = await o.start('what is 6 times 7, and is it even?', 'demo');
  return { model, outcome, journal: await o.store.readJournal(outcome.runId) };
}

const PASS = { text: '{"done": true, "reason": "both parts answered"}' };
const fail = (reason: string) => ({ text: JSON.stringify({ done: false, reason }) });

describe('agent runs with review', () => {
  it('complete once the review passes; a failed review sends the model back with the reason', async () => {
    const { model, outcome, journal } = await run([
      { calls: [{ tool: 'multiply', input: { a: 6, b: 7 } }] },
      { text: 'It is 42.' },
      fail('it does not say whether 42 is even'),
      { text: 'It is 42, which is even.' },
      PASS,
    ]);
    expect(outcome).toMatchObject({ status: 'completed', outputs: { answer: 'It is 42, which is even.', 't1.call-0': 42 } });
    expect(model.calls).toHaveLength(5);
    const review = model.calls[2]!;
    expect(review.tools).toBeUndefined();
    expect(review.responseFormat).toEqual({ type: 'json' });
    expect(JSON.stringify(review.prompt)).toContain('multiply({\\"a\\":6,\\"b\\":7}) → 42');
    expect(JSON.stringify(model.calls[3]!.prompt)).toContain('it does not say whether 42 is even');
    expect(eventsOf(journal, 'agent_turn').map((t) => t.data.review?.passed)).toEqual([undefined, undefined, false, undefined, true]);
    expect((await replay(journal, registry())).ok).toBe(true);
  });

  it('start over after three failed reviews, with what they found', async () => {
    const { model, outcome, journal } = await run([
      { text: 'Maybe 40.' },
      fail('no tool was used'),
      { text: 'Perhaps 41.' },
      fail('still guessing'),
      { text: 'Around 42.' },
      fail('not computed'),
      { calls: [{ tool: 'multiply', input: { a: 6, b: 7 } }] },
      { text: '42, even.' },
      PASS,
    ]);
    expect(outcome).toMatchObject({ status: 'completed', outputs: { answer: '42, even.' } });
    const restart = model.calls[6]!.prompt;
    expect(restart[0]!.role === 'system' && restart[0]!.content).toContain('Earlier attempts at this goal failed review');
    expect(restart[0]!.role === 'system' && restart[0]!.content).toContain('- still guessing');
    // The new attempt starts from the goal alone.
    expect(restart).toHaveLength(2);
    expect((await replay(journal, registry())).ok).toBe(true);
  });
});
