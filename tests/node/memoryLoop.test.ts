import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { openAICompatibleModels } from '../../src/api/models.ts';
import {
  EXECUTION_NAMESPACE,
  GOALS_NAMESPACE,
  HashingEmbedder,
  InMemoryStore,
  InMemoryVectorBackend,
  MemoryManager,
  Orchestrator,
  PLANS_NAMESPACE,
  REFLECTION_NAMESPACE,
  ToolRegistry,
  eventsOf,
  memoryManagerRunMemory,
  replay,
  type JournalEvent,
  type ModelProvider,
  type RunMemory,
} from '../../src/core/index.ts';
import { InMemoryMemoryStore } from '../../src/core/stores.ts';
import { createSequentialIds, steppingClock } from '../../src/core/testing.ts';
import { startModelServer, type ModelServer } from '../support/modelServer.ts';

// Memory in the loop for every run (seed 004): goals, plans, results and reflections go to the
// profile's namespaces; a later lexical plan of the profile reads the reflections (journaled, so
// replay never reads memory) and leaves out a tool that failed for a near-identical goal; a
// model, when one is configured, writes the reflection over the real wire, replayed from the journal.

const KEY = 'sk-memory-loop-canary-31337';
let server: ModelServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function memoryManager(): Promise<MemoryManager> {
  const vectors = new InMemoryVectorBackend(256);
  await vectors.connect();
  return new MemoryManager({
    store: new InMemoryMemoryStore(),
    vectors,
    embedder: new HashingEmbedder({ dimension: 256 }),
    clock: steppingClock(Date.UTC(2026, 0, 1), 1000),
    ids: createSequentialIds('mem'),
  });
}

/** Two forecast tools: the one the planner ranks first is down, the backup works. */
function registry(calls: string[] = []): ToolRegistry {
  const tools = new ToolRegistry();
  tools.register('demo', 'weather_forecast', {
    description: 'Weather forecast for a city',
    parameters: z.object({ city: z.string().optional() }),
    handler: () => {
      calls.push('weather_forecast');
      throw new Error('the forecast service is down');
    },
  });
  tools.register('demo', 'forecast_service', {
    description: 'Forecast of the weather in a city from the backup service',
    parameters: z.object({ city: z.string().optional() }),
    handler: () => {
      calls.push('forecast_service');
      return { forecast: 'sunny, 21°C' };
    },
  });
  return tools;
}

function orchestrator(tools: ToolRegistry, store: InMemoryStore, options: { memory?: RunMemory; models?: ModelProvider; prefix?: string } = {}) {
  return new Orchestrator({
    registry: tools,
    store,
    ids: createSequentialIds(options.prefix ?? 'loop'),
    clock: steppingClock(Date.UTC(2026, 0, 2), 10),
    sleep: async () => undefined,
    retry: { maxAttempts: 1 },
    ...(options.memory ? { memory: options.memory } : {}),
    ...(options.models ? { models: options.models, reflectWithModel: true } : {}),
  });
}

const FIRST = 'show the weather forecast for Paris this week';
const NEAR = 'show the weather forecast for Lyon this week';

async function journalOf(o: Orchestrator, runId: string): Promise<JournalEvent[]> {
  return o.store.readJournal(runId);
}

describe('memory in the loop of lexical runs', () => {
  it('writes goal, plan, results and reflection, and a later near-identical goal plans without the tool that failed', async () => {
    const memory = await memoryManager();
    const calls: string[] = [];
    const tools = registry(calls);
    const store = new InMemoryStore();
    const o = orchestrator(tools, store, { memory: memoryManagerRunMemory(memory) });

    const first = await o.start(FIRST, 'demo');
    expect(first.status).toBe('completed');
    expect(calls).toEqual(['weather_forecast', 'forecast_service']);
    for (const namespace of [GOALS_NAMESPACE, PLANS_NAMESPACE, EXECUTION_NAMESPACE, REFLECTION_NAMESPACE]) {
      const facts = await memory.query('demo', namespace);
      expect(facts, namespace).toHaveLength(1);
      expect(facts[0]!.key).toBe(first.runId);
    }
    expect((await memory.latest('demo', GOALS_NAMESPACE))!.value).toEqual({ runId: first.runId, goal: FIRST });
    const execution = (await memory.latest('demo', EXECUTION_NAMESPACE))!.value as { steps: Array<{ tool: string; status: string }> };
    expect(execution.steps.map((s) => [s.tool, s.status])).toEqual([
      ['weather_forecast', 'failed'],
      ['forecast_service', 'completed'],
    ]);
    const reflection = (await memory.latest('demo', REFLECTION_NAMESPACE))!.value as { summary: string; failed: string[]; succeeded: string[] };
    expect(reflection.summary).toContain(`Asked: "${FIRST}"`);
    expect(reflection.summary).toContain('Worked: forecast_service');
    expect(reflection.summary).toContain('Failed: weather_forecast (step-0): tool_failed — the forecast service is down');
    expect(reflection).toMatchObject({ failed: ['weather_forecast'], succeeded: ['forecast_service'] });
    const firstJournal = await journalOf(o, first.runId);
    expect(eventsOf(firstJournal, 'reflection').at(-1)!.data.summary).toBe(reflection.summary);
    expect(firstJournal[0]!.type === 'stage' && firstJournal[0]!.data.inputs?.memory).toEqual({});

    calls.length = 0;
    const later = await o.start(NEAR, 'demo');
    expect(later.status).toBe('completed');
    // The tool that failed for a near-identical goal is not chosen again.
    expect(calls).toEqual(['forecast_service']);
    const journal = await journalOf(o, later.runId);
    const [recalled] = eventsOf(journal, 'memory_recalled');
    expect(recalled!.data.avoid).toEqual(['weather_forecast']);
    expect(recalled!.data.notes[0]).toMatchObject({ goal: FIRST, success: true, failed: ['weather_forecast'], succeeded: ['forecast_service'] });
    expect(recalled!.seq).toBeLessThan(eventsOf(journal, 'plan_created')[0]!.seq);
    expect(eventsOf(journal, 'plan_created').map((e) => e.data.plan.steps.map((s) => s.tool))).toEqual([['forecast_service']]);

    // Replay reads the notes from the journal: it matches with the memory emptied, and writes nothing.
    await memory.importState({ format: 'cugar.memory/1', profile: 'other', facts: [], vectors: [] });
    expect(await replay(journal, registry())).toMatchObject({ ok: true, events: journal.length });
    expect(await replay(firstJournal, registry())).toMatchObject({ ok: true, events: firstJournal.length });
    expect(await memory.query('demo', REFLECTION_NAMESPACE)).toHaveLength(2);
  });

  it('leaves a tool in when the goal is only related, and plans as before without memory', async () => {
    const memory = await memoryManager();
    const tools = registry();
    const o = orchestrator(tools, new InMemoryStore(), { memory: memoryManagerRunMemory(memory) });
    await o.start(FIRST, 'demo');
    const related = await o.start('weather forecast for Paris', 'demo');
    const journal = await journalOf(o, related.runId);
    const [recalled] = eventsOf(journal, 'memory_recalled');
    expect(recalled!.data.notes.length).toBeGreaterThan(0);
    expect(recalled!.data.avoid).toBeUndefined();
    expect(eventsOf(journal, 'plan_created')[0]!.data.plan.steps[0]!.tool).toBe('weather_forecast');

    const plain = orchestrator(registry(), new InMemoryStore(), { prefix: 'plain' });
    const run = await plain.start(NEAR, 'demo');
    const plainJournal = await journalOf(plain, run.runId);
    expect(plainJournal[0]!.type === 'stage' && plainJournal[0]!.data.inputs?.memory).toBeUndefined();
    expect(eventsOf(plainJournal, 'memory_recalled')).toHaveLength(0);
    expect(eventsOf(plainJournal, 'plan_created')[0]!.data.plan.steps[0]!.tool).toBe('weather_forecast');
    // Runs without memory in the loop keep the reflector's one line.
    expect(eventsOf(plainJournal, 'reflection').at(-1)!.data.summary).toMatch(/^\[[^\]]+\] completed: run run_plain_1 in profile demo for /);
  });

  it('journals a memory that fails as a warning and completes the run; replay fails the same way', async () => {
    const broken: RunMemory = {
      recall: async () => {
        throw new Error('the memory database is locked');
      },
      remember: async () => {
        throw new Error('the memory disk is full');
      },
    };
    const o = orchestrator(registry(), new InMemoryStore(), { memory: broken });
    const outcome = await o.start(FIRST, 'demo');
    expect(outcome.status).toBe('completed');
    const journal = await journalOf(o, outcome.runId);
    const warnings = eventsOf(journal, 'memory_warning');
    expect(warnings.map((w) => [w.data.operation, w.data.error.code, w.data.error.message])).toEqual([
      ['recall', 'memory_failed', 'the memory database is locked'],
      ['remember', 'memory_failed', 'the memory disk is full'],
    ]);
    expect(journal.at(-1)!.type).toBe('run_completed');
    expect(await replay(journal, registry())).toMatchObject({ ok: true, events: journal.length });
  });
});

describe('the reflection written by a model (over the wire)', () => {
  const provider = (models = ['small']) => openAICompatibleModels({ url: server!.url, models, stream: false, callTimeoutMs: 5_000 }, KEY);

  it('asks the configured model for the summary of a lexical run, journaled and replayed with the server stopped', async () => {
    const note = 'Asked for the Paris forecast. weather_forecast is down (tool_failed); forecast_service answered. Use forecast_service first.';
    server = await startModelServer([{ text: note, tokens: { input: 90, output: 30 } }]);
    const memory = await memoryManager();
    const o = orchestrator(registry(), new InMemoryStore(), { memory: memoryManagerRunMemory(memory), models: provider() });
    const outcome = await o.start(FIRST, 'demo', { mode: 'lexical' });
    expect(outcome.status).toBe('completed');
    const journal = await journalOf(o, outcome.runId);
    const [start] = eventsOf(journal, 'model_call_start');
    expect(start!.data).toMatchObject({ callId: 'reflect', purpose: 'reflect', model: 'small', attempt: 1 });
    const [complete] = eventsOf(journal, 'model_call_complete');
    expect(complete!.data).toMatchObject({ purpose: 'reflect', text: note, usage: { totalTokens: 120 } });
    expect(eventsOf(journal, 'reflection').at(-1)!.data.summary).toBe(note);
    expect(((await memory.latest('demo', REFLECTION_NAMESPACE))!.value as { summary: string }).summary).toBe(note);
    // The model was shown the journal's own account of the run, without the key.
    const sent = JSON.stringify(server.requests[0]!.body.messages);
    expect(sent).toContain(`Asked: \\"${FIRST}\\"`);
    expect(sent).toContain('Failed: weather_forecast (step-0): tool_failed');
    expect(JSON.stringify(journal)).not.toContain(KEY);

    await server.close();
    server = undefined;
    expect(await replay(journal, registry())).toMatchObject({ ok: true, events: journal.length });
  });

  it("falls back to the journal's account when the model fails", async () => {
    server = await startModelServer([{ status: 401, body: JSON.stringify({ error: { message: 'bad key' } }) }]);
    const o = orchestrator(registry(), new InMemoryStore(), { memory: memoryManagerRunMemory(await memoryManager()), models: provider() });
    const outcome = await o.start(FIRST, 'demo', { mode: 'lexical' });
    expect(outcome.status).toBe('completed');
    const journal = await journalOf(o, outcome.runId);
    const [failed] = eventsOf(journal, 'model_call_error');
    expect(failed!.data).toMatchObject({ purpose: 'reflect', next: 'stop' });
    const summary = eventsOf(journal, 'reflection').at(-1)!.data.summary;
    expect(summary).toContain(`Asked: "${FIRST}"`);
    expect(summary).toContain('Outcome: completed.');
    await server.close();
    server = undefined;
    expect(await replay(journal, registry())).toMatchObject({ ok: true, events: journal.length });
  });
});
