import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  InMemoryStore,
  Orchestrator,
  REFLECTION_NAMESPACE,
  ToolRegistry,
  eventsOf,
  memoryManagerRunMemory,
  registerBuiltinTools,
  replay,
  staticModels,
} from '../../src/core/index.ts';
import { createSequentialIds } from '../../src/core/testing.ts';
import { scriptedModel } from '../support/scriptedModel.ts';
import { memoryManager } from '../support/memoryLoop.ts';

// Memory in the agent loop: a finished agent run keeps its reflection (what was asked, what
// worked and what failed, written by the model from the journal's account) in the profile's
// `reflection` namespace, and a later run with a related goal recalls it before its first
// model call, journaled, so it replays unchanged.

function registry(): ToolRegistry {
  const tools = new ToolRegistry();
  registerBuiltinTools(tools);
  tools.register('demo', 'book_flight', {
    description: 'Book a flight by its number',
    parameters: z.object({ flight: z.string() }),
    handler: ({ flight }) => {
      if (flight.startsWith('LH')) throw new Error(`flight ${flight} is sold out`);
      return { booked: flight };
    },
  });
  return tools;
}

describe('agent runs and memory', () => {
  it('keep a reflection after a run and recall it in a later run of the profile', async () => {
    const memory = await memoryManager();
    const tools = registry();
    const first = scriptedModel(
      [
        { calls: [{ tool: 'book_flight', input: { flight: 'LH100' } }] },
        { calls: [{ tool: 'book_flight', input: { flight: 'AF200' } }] },
        { text: 'Booked AF200; LH100 was sold out.' },
        // The run's reflection, written by the model from the journal's account of the run.
        { text: 'Asked to book a flight to Paris for Friday: book_flight failed for LH100 (sold out), AF200 worked.' },
      ],
      'm1',
    );
    const o = new Orchestrator({
      registry: tools,
      store: new InMemoryStore(),
      ids: createSequentialIds('memrun'),
      sleep: async () => undefined,
      retry: { maxAttempts: 1 },
      models: staticModels([['m1', first]]),
      memory: memoryManagerRunMemory(memory),
      reflectWithModel: true,
    });
    const booked = await o.start('book a flight to Paris for Friday', 'demo');
    expect(booked.status).toBe('completed');
    const kept = await memory.query('demo', REFLECTION_NAMESPACE);
    expect(kept).toHaveLength(1);
    const summary = (kept[0]!.value as { summary: string }).summary;
    expect(summary).toBe('Asked to book a flight to Paris for Friday: book_flight failed for LH100 (sold out), AF200 worked.');
    const account = first.calls[3]!.prompt[1]!;
    const asked = account.role === 'user' && account.content[0]?.type === 'text' ? account.content[0].text : '';
    expect(asked).toContain('Failed: book_flight (t1.call-0): tool_failed — flight LH100 is sold out');
    expect(asked).toContain('answered: "Booked AF200; LH100 was sold out."');

    const second = scriptedModel([{ text: 'I will try AF first this time.' }, { text: 'Tried AF first for Monday; nothing failed.' }], 'm1');
    const later = new Orchestrator({
      registry: tools,
      store: o.store,
      ids: createSequentialIds('memrun2'),
      sleep: async () => undefined,
      models: staticModels([['m1', second]]),
      memory: memoryManagerRunMemory(memory),
      reflectWithModel: true,
    });
    const outcome = await later.start('book a flight to Paris for Monday', 'demo');
    expect(outcome.status).toBe('completed');
    const journal = await later.store.readJournal(outcome.runId);
    const recalled = eventsOf(journal, 'memory_recalled');
    expect(recalled).toHaveLength(1);
    expect(recalled[0]!.data.notes[0]).toMatchObject({ goal: 'book a flight to Paris for Friday', failed: ['book_flight'], succeeded: ['book_flight'] });
    expect(recalled[0]!.data.notes[0]!.text).toContain('LH100 (sold out)');
    const system = second.calls[0]!.prompt[0]!;
    expect(system.role === 'system' && system.content).toContain('Notes from earlier runs of this profile');
    expect(system.role === 'system' && system.content).toContain('LH100 (sold out)');
    // Replay reads what was recalled from the journal, whatever the memory holds now.
    expect(await replay(journal, tools)).toMatchObject({ ok: true, events: journal.length });
    expect(await memory.query('demo', REFLECTION_NAMESPACE)).toHaveLength(2);
  });
});
