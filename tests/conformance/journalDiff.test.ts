import { describe, expect, it } from 'vitest';
import {
  InMemoryStore,
  Orchestrator,
  ToolRegistry,
  diffJournals,
  eventsOf,
  formatDifference,
  registerBuiltinTools,
  staticModels,
  type JournalEvent,
} from '../../src/core/index.ts';
import { assertReplays, createSequentialIds, sealEvent, steppingClock } from '../../src/core/testing.ts';
import { scriptedModel, type ScriptedTurn } from '../support/scriptedModel.ts';

// Golden journals: the first divergence between two journals, in a form a CI log shows, and a
// helper that replays a recorded agent journal against the current code.

function registry(): ToolRegistry {
  const tools = new ToolRegistry();
  registerBuiltinTools(tools);
  return tools;
}

async function record(turns: ScriptedTurn[]): Promise<JournalEvent[]> {
  const o = new Orchestrator({
    registry: registry(),
    store: new InMemoryStore(),
    ids: createSequentialIds('golden'),
    clock: steppingClock(5_000, 3),
    sleep: async () => undefined,
    models: staticModels([['m1', scriptedModel(turns, 'm1')]]),
  });
  const { runId } = await o.start('what is 4 times 5?', 'demo');
  return o.store.readJournal(runId);
}

describe('journal diff and golden replays', () => {
  it('finds nothing between identical runs and the first differing field otherwise', async () => {
    const turns: ScriptedTurn[] = [{ calls: [{ tool: 'multiply', input: { a: 4, b: 5 } }] }, { text: 'Twenty.' }];
    const golden = await record(turns);
    expect(diffJournals(golden, await record(turns))).toBeUndefined();

    const changed = await record([turns[0]!, { text: 'It is 20.' }]);
    const difference = diffJournals(golden, changed)!;
    const answer = eventsOf(golden, 'model_call_complete')[1]!;
    expect(difference.seq).toBe(answer.seq);
    expect(difference.fields).toContainEqual({ path: '.data.text', a: '"Twenty."', b: '"It is 20."' });
    const text = formatDifference(difference, { a: 'golden', b: 'new' });
    expect(text.split('\n')[0]).toBe(`journals differ at seq ${answer.seq}: golden has model_call_complete, new has model_call_complete`);
    expect(text).toContain('.data.text: golden="Twenty." new="It is 20."');

    const shorter = diffJournals(golden, golden.slice(0, 5))!;
    expect(shorter).toMatchObject({ seq: 5, a: { type: golden[5]!.type } });
    expect(shorter.b).toBeUndefined();
  });

  it('replays a golden agent journal, and fails with the divergence when the recording and the code part', async () => {
    const golden = await record([{ calls: [{ tool: 'multiply', input: { a: 4, b: 5 } }] }, { text: 'Twenty.' }]);
    await expect(assertReplays(golden, registry())).resolves.toBeUndefined();
    // A recording whose tool call the current code would not have made: the step's input differs.
    const turn = eventsOf(golden, 'agent_turn')[0]!;
    const edited: JournalEvent[] = [];
    for (const e of golden) {
      const data = e.seq === turn.seq ? { ...turn.data, steps: [{ ...turn.data.steps[0]!, input: { a: 4, b: 6 } }] } : e.data;
      edited.push(sealEvent(edited.at(-1), e.runId, e.type, e.at, data as never) as JournalEvent);
    }
    await expect(assertReplays(edited, registry())).rejects.toThrow(
      new RegExp(`journals differ at seq ${turn.seq}: recorded has agent_turn, replayed has agent_turn`),
    );
    await expect(assertReplays(edited, registry())).rejects.toThrow(/\.data\.steps\[0\]\.input\.b: recorded=6 replayed=5/);
  });
});
