import { describe, expect, it } from 'vitest';
import {
  EXECUTION_NAMESPACE,
  GOALS_NAMESPACE,
  InMemoryStore,
  PLANS_NAMESPACE,
  REFLECTION_NAMESPACE,
  eventsOf,
  forkRun,
  memoryManagerRunMemory,
  nearIdenticalGoals,
  replay,
  staticModels,
  toolsToAvoid,
  type RunMemory,
  type Store,
} from '../../src/core/index.ts';
import { CrashOnce } from '../support/crashOnce.ts';
import { Crash } from '../support/harness.ts';
import { FIRST, NEAR, memoryManager, orchestrator, registry } from '../support/memoryLoop.ts';
import { scriptedModel } from '../support/scriptedModel.ts';

// Memory in the loop of every run (seed 004), in each runtime: goals, plans, results and
// reflections go to the profile's namespaces; a later lexical plan reads the reflections
// (journaled, so replay never reads memory) and leaves out a tool that failed for a
// near-identical goal; memory failures are warnings; a crash around the reflection resumes
// without a second write.

describe('memory in the loop of lexical runs', () => {
  it('writes goal, plan, results and reflection, and a later near-identical goal plans without the tool that failed', async () => {
    const memory = await memoryManager();
    const calls: string[] = [];
    const o = orchestrator(registry(calls), new InMemoryStore(), { memory: memoryManagerRunMemory(memory) });

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
    const firstJournal = await o.store.readJournal(first.runId);
    expect(eventsOf(firstJournal, 'reflection').at(-1)!.data.summary).toBe(reflection.summary);
    expect(firstJournal[0]!.type === 'stage' && firstJournal[0]!.data.inputs?.memory).toEqual({});

    calls.length = 0;
    const later = await o.start(NEAR, 'demo');
    expect(later.status).toBe('completed');
    // The tool that failed for a near-identical goal is not chosen again.
    expect(calls).toEqual(['forecast_service']);
    const journal = await o.store.readJournal(later.runId);
    const [recalled] = eventsOf(journal, 'memory_recalled');
    expect(recalled!.data.avoid).toEqual(['weather_forecast']);
    expect(recalled!.data.notes[0]).toMatchObject({ goal: FIRST, success: true, failed: ['weather_forecast'], succeeded: ['forecast_service'] });
    expect(recalled!.seq).toBeLessThan(eventsOf(journal, 'plan_created')[0]!.seq);
    expect(eventsOf(journal, 'plan_created').map((e) => e.data.plan.steps.map((s) => s.tool))).toEqual([['forecast_service']]);

    // Replay reads the notes from the journal and writes nothing.
    expect(await replay(journal, registry())).toMatchObject({ ok: true, events: journal.length });
    expect(await replay(firstJournal, registry())).toMatchObject({ ok: true, events: firstJournal.length });
    expect(await memory.query('demo', REFLECTION_NAMESPACE)).toHaveLength(2);
  });

  it('leaves a tool in when the goal is only related, and plans as before without memory', async () => {
    const memory = await memoryManager();
    const o = orchestrator(registry(), new InMemoryStore(), { memory: memoryManagerRunMemory(memory) });
    await o.start(FIRST, 'demo');
    const related = await o.start('weather forecast for Paris', 'demo');
    const journal = await o.store.readJournal(related.runId);
    const [recalled] = eventsOf(journal, 'memory_recalled');
    expect(recalled!.data.notes.length).toBeGreaterThan(0);
    expect(recalled!.data.avoid).toBeUndefined();
    expect(eventsOf(journal, 'plan_created')[0]!.data.plan.steps[0]!.tool).toBe('weather_forecast');

    const plain = orchestrator(registry(), new InMemoryStore(), { prefix: 'plain' });
    const run = await plain.start(NEAR, 'demo');
    const plainJournal = await plain.store.readJournal(run.runId);
    expect(plainJournal[0]!.type === 'stage' && plainJournal[0]!.data.inputs?.memory).toBeUndefined();
    expect(eventsOf(plainJournal, 'memory_recalled')).toHaveLength(0);
    expect(eventsOf(plainJournal, 'plan_created')[0]!.data.plan.steps[0]!.tool).toBe('weather_forecast');
    // Runs without memory in the loop keep the reflector's one line.
    expect(eventsOf(plainJournal, 'reflection').at(-1)!.data.summary).toMatch(/^\[[^\]]+\] completed: run run_plain_1 in profile demo for /);
  });

  it('plans with a tool that failed before when nothing else serves the goal', async () => {
    const memory = await memoryManager();
    const o = orchestrator(registry([], false), new InMemoryStore(), { memory: memoryManagerRunMemory(memory) });
    expect((await o.start(FIRST, 'demo')).status).toBe('failed');
    const later = await o.start(NEAR, 'demo');
    const journal = await o.store.readJournal(later.runId);
    expect(eventsOf(journal, 'memory_recalled')[0]!.data.avoid).toEqual(['weather_forecast']);
    expect(eventsOf(journal, 'plan_created')[0]!.data.plan.steps.map((step) => step.tool)).toEqual(['weather_forecast']);
  });

  it('decides near-identical goals and the tools to avoid from the notes alone', () => {
    expect(nearIdenticalGoals(FIRST, NEAR)).toBe(true);
    expect(nearIdenticalGoals(FIRST, 'weather forecast for Paris')).toBe(false);
    expect(nearIdenticalGoals('', FIRST)).toBe(false);
    const note = { id: 'n', text: '', goal: FIRST, failed: ['a', 'b'], succeeded: ['c'] };
    expect(toolsToAvoid(NEAR, [note])).toEqual(['a', 'b']);
    // A tool that also worked for a near-identical goal stays; notes without a goal (older runs) count for nothing.
    expect(toolsToAvoid(NEAR, [note, { id: 'm', text: '', goal: NEAR, succeeded: ['b'] }])).toEqual(['a']);
    expect(toolsToAvoid(NEAR, [{ id: 'o', text: FIRST, failed: ['a'] }])).toEqual([]);
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
    const journal = await o.store.readJournal(outcome.runId);
    expect(eventsOf(journal, 'memory_warning').map((w) => [w.data.operation, w.data.error.code, w.data.error.message])).toEqual([
      ['recall', 'memory_failed', 'the memory database is locked'],
      ['remember', 'memory_failed', 'the memory disk is full'],
    ]);
    expect(journal.at(-1)!.type).toBe('run_completed');
    expect(await replay(journal, registry())).toMatchObject({ ok: true, events: journal.length });
  });
});

describe('a crash around the reflection', () => {
  it('re-issues a reflection call whose answer was lost, as the next attempt, and replays', async () => {
    const inner = new InMemoryStore();
    const memory = await memoryManager();
    const model = scriptedModel([{ text: 'lost in the crash' }, { text: 'weather_forecast is down; use forecast_service.' }], 'm1');
    const make = (store: Store) => orchestrator(registry(), store, { memory: memoryManagerRunMemory(memory), models: staticModels([['m1', model]]) });
    const crashing = make(new CrashOnce(inner, (events) => events.some((e) => e.type === 'model_call_complete' && e.data.purpose === 'reflect')));
    await expect(crashing.start(FIRST, 'demo', { runId: 'crash-reflect', mode: 'lexical' })).rejects.toThrow(Crash);
    const outcome = await make(inner).resume('crash-reflect');
    expect(outcome.status).toBe('completed');
    const journal = await inner.readJournal('crash-reflect');
    expect(eventsOf(journal, 'model_call_start').map((e) => [e.data.purpose, e.data.attempt, e.data.rerun ?? false])).toEqual([
      ['reflect', 1, false],
      ['reflect', 2, true],
    ]);
    expect(eventsOf(journal, 'reflection').at(-1)!.data.summary).toBe('weather_forecast is down; use forecast_service.');
    expect(await memory.query('demo', REFLECTION_NAMESPACE)).toHaveLength(1);
    expect(await replay(journal, registry())).toMatchObject({ ok: true, events: journal.length });
  });

  it('finishes after a crash between the memory write and run_completed without writing memory twice', async () => {
    const inner = new InMemoryStore();
    const memory = await memoryManager();
    const make = (store: Store) => orchestrator(registry(), store, { memory: memoryManagerRunMemory(memory) });
    await expect(
      make(new CrashOnce(inner, (events) => events.some((e) => e.type === 'run_completed'))).start(FIRST, 'demo', { runId: 'crash-finish' }),
    ).rejects.toThrow(Crash);
    expect(await memory.query('demo', REFLECTION_NAMESPACE)).toHaveLength(1);
    const outcome = await make(inner).resume('crash-finish');
    expect(outcome.status).toBe('completed');
    for (const namespace of [GOALS_NAMESPACE, PLANS_NAMESPACE, EXECUTION_NAMESPACE, REFLECTION_NAMESPACE])
      expect(await memory.query('demo', namespace), namespace).toHaveLength(1);
    const journal = await inner.readJournal('crash-finish');
    expect(await replay(journal, registry())).toMatchObject({ ok: true, events: journal.length });
  });
});

describe('a fork of a run with memory in the loop', () => {
  it('keeps the notes the source recalled before the fork point, whatever the memory holds now', async () => {
    const memory = await memoryManager();
    const store = new InMemoryStore();
    const runMemory = memoryManagerRunMemory(memory);
    await orchestrator(registry(), store, { memory: runMemory }).start(FIRST, 'demo', { runId: 'lexical-first' });
    const model = scriptedModel([{ text: 'Use forecast_service: weather_forecast is down.' }], 'm1');
    const agent = orchestrator(registry(), store, { memory: runMemory, models: staticModels([['m1', model]]), prefix: 'agent' });
    const source = await agent.start(NEAR, 'demo', { runId: 'agent-source', mode: 'agent' });
    expect(source.status).toBe('completed');
    const journal = await store.readJournal('agent-source');
    const [recalled] = eventsOf(journal, 'memory_recalled');
    expect(recalled!.data.notes.map((n) => n.goal)).toContain(FIRST);
    // Memory moves on (the source's own reflection, then a note of another run) before the fork.
    await runMemory.remember('demo', { runId: 'other', goal: NEAR, summary: 'a later note', success: true });
    const answer = eventsOf(journal, 'model_call_complete').find((e) => e.data.purpose === undefined)!;
    const live = scriptedModel([{ text: 'Forked: forecast_service it is.' }, { text: 'a reflection' }], 'm1');
    const fork = await forkRun(journal, {
      registry: registry(),
      store,
      runId: 'agent-fork',
      models: staticModels([['m1', live]]),
      memory: runMemory,
      reflectWithModel: true,
      sleep: async () => undefined,
      at: answer.seq,
      edit: { kind: 'model_answer', text: 'Forked: forecast_service it is.' },
    });
    expect(fork.status).toBe('completed');
    const forked = await store.readJournal('agent-fork');
    expect(eventsOf(forked, 'memory_recalled')[0]!.data).toEqual(recalled!.data);
  });
});
