import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { InMemoryStore, Orchestrator, eventsOf, replay, staticModels, type Store, type ToolRegistry } from '../../src/core/index.ts';
import { createSequentialIds, steppingClock } from '../../src/core/testing.ts';
import { CrashOnce } from '../support/crashOnce.ts';
import { delegationRegistry } from '../support/delegationTools.ts';
import { scriptedModel, type ScriptedTurn } from '../support/scriptedModel.ts';
import { IndexedDbStore } from '../../src/web/indexedDbStore.ts';

// Real IndexedDB in Chromium; fake-indexeddb in Node.
const fake = typeof indexedDB === 'undefined' ? await import('fake-indexeddb') : undefined;
const idb = fake ? { indexedDB: fake.indexedDB, IDBKeyRange: fake.IDBKeyRange } : {};

// A delegated sub-run that stops for a person pauses the run that delegated to it; deciding the
// sub-run's approval (in another process, after a restart) continues the sub-run and then its
// parent, whose delegate call takes the sub-run's result. Both journals replay.

function registry(booked: string[] = []): ToolRegistry {
  const tools = delegationRegistry();
  tools.register('travel', 'book_flight', {
    description: 'Book a seat on a flight by its number',
    parameters: z.object({ flight: z.string() }),
    requiresApproval: true,
    handler: ({ flight }) => {
      booked.push(flight);
      return { booked: flight };
    },
  });
  return tools;
}

function orchestrator(store: Store, model: ReturnType<typeof scriptedModel>, booked: string[]) {
  return new Orchestrator({
    registry: registry(booked),
    store,
    ids: createSequentialIds('dlga'),
    clock: steppingClock(Date.UTC(2026, 0, 5), 5),
    sleep: async () => undefined,
    models: staticModels([['m1', model]]),
    delegation: { profiles: ['travel'] },
  });
}

const DELEGATE: ScriptedTurn = { calls: [{ tool: 'delegate', input: { profile: 'travel', goal: 'Book flight LH1' } }] };
const BOOK: ScriptedTurn = { calls: [{ tool: 'book_flight', input: { flight: 'LH1' } }] };

async function pausedParent(runId: string, script: ScriptedTurn[], booked: string[]) {
  const model = scriptedModel(script, 'm1');
  const store = new InMemoryStore();
  const outcome = await orchestrator(store, model, booked).start('Have the travel agent book LH1', 'lead', { runId });
  const child = `${runId}.t1.call-0`;
  const [approval] = await store.listApprovals({ status: 'pending' });
  return { model, store, outcome, child, approval: approval! };
}

describe('a delegated sub-run waiting for a person', () => {
  it('pauses its parent; approved after a restart, the sub-run and then the parent complete, and both replay', async () => {
    const booked: string[] = [];
    const { model, store, outcome, child, approval } = await pausedParent(
      'lead-a',
      [DELEGATE, BOOK, { text: 'Booked LH1.' }, { text: 'The travel agent booked LH1.' }],
      booked,
    );
    expect(outcome).toMatchObject({ status: 'paused', waitingFor: { runId: child } });
    expect(approval).toMatchObject({ runId: child, tool: 'book_flight', status: 'pending' });
    const paused = await store.readJournal('lead-a');
    expect(paused.at(-1)).toMatchObject({
      type: 'run_paused',
      data: { reason: 'awaiting_subrun', waitingFor: { runId: child, approvalId: approval.approvalId } },
    });
    expect(await store.getRun('lead-a')).toMatchObject({ status: 'paused', waitingFor: child });

    // Resuming the parent while the sub-run still waits changes nothing.
    expect(await orchestrator(store, model, booked).resume('lead-a')).toMatchObject({ status: 'paused', waitingFor: { runId: child } });
    expect(await store.readJournal('lead-a')).toHaveLength(paused.length);
    expect(booked).toEqual([]);

    // Another process decides: the sub-run books once and answers, then the parent answers.
    const restarted = orchestrator(store, model, booked);
    expect(await restarted.resolveApproval(approval.approvalId, { decision: 'approve', by: 'ops' })).toMatchObject({ runId: child, status: 'completed' });
    expect(booked).toEqual(['LH1']);
    expect(await restarted.getRun('lead-a')).toMatchObject({ status: 'completed', outputs: { answer: 'The travel agent booked LH1.' } });
    const journal = await store.readJournal('lead-a');
    expect(eventsOf(journal, 'tool_call_start').map((e) => [e.data.tool, e.data.attempt, e.data.rerun ?? false])).toEqual([
      ['delegate', 1, false],
      ['delegate', 1, true],
    ]);
    expect(eventsOf(journal, 'tool_call_complete')[0]!.data.output).toMatchObject({ runId: child, status: 'completed', answer: 'Booked LH1.' });
    // The parent's model saw the sub-run's answer.
    expect(JSON.stringify(model.calls.at(-1)!.prompt)).toContain('Booked LH1.');
    for (const events of [journal, await store.readJournal(child)]) expect(await replay(events, registry())).toMatchObject({ ok: true, events: events.length });
  });

  it('waits across a reopen of the tab’s IndexedDB database, then both complete', async () => {
    const name = `cugar-delegate-${Date.now()}`;
    const booked: string[] = [];
    const model = scriptedModel([DELEGATE, BOOK, { text: 'Booked LH1.' }, { text: 'LH1 is booked.' }], 'm1');
    let store = await new IndexedDbStore(name, idb).open();
    const paused = await orchestrator(store, model, booked).start('Have the travel agent book LH1', 'lead', { runId: 'lead-i' });
    expect(paused).toMatchObject({ status: 'paused', waitingFor: { runId: 'lead-i.t1.call-0' } });
    const [approval] = await store.listApprovals({ status: 'pending' });
    await store.close();
    store = await new IndexedDbStore(name, idb).open();
    await orchestrator(store, model, booked).resolveApproval(approval!.approvalId, { decision: 'approve', by: 'ada' });
    expect(await store.getRun('lead-i')).toMatchObject({ status: 'completed' });
    expect(booked).toEqual(['LH1']);
    const journal = await store.readJournal('lead-i');
    expect(await replay(journal, registry())).toMatchObject({ ok: true, events: journal.length });
    await store.close();
  });

  it('continues the parent when the sub-run is rejected, with the sub-run’s answer', async () => {
    const booked: string[] = [];
    const { model, store, child, approval } = await pausedParent(
      'lead-r',
      [DELEGATE, BOOK, { text: 'I could not book LH1: the booking was refused.' }, { text: 'The booking of LH1 was refused.' }],
      booked,
    );
    await orchestrator(store, model, booked).resolveApproval(approval.approvalId, { decision: 'reject', reason: 'too expensive', by: 'ops' });
    expect(booked).toEqual([]);
    expect(await store.getRun(child)).toMatchObject({ status: 'completed' });
    expect((await orchestrator(store, model, booked).getRun('lead-r')).outputs['answer']).toBe('The booking of LH1 was refused.');
    const journal = await store.readJournal('lead-r');
    expect(await replay(journal, registry())).toMatchObject({ ok: true, events: journal.length });
  });

  it('resumes a parent the process left waiting when it stopped after the sub-run ended (the hosts’ sweep)', async () => {
    const booked: string[] = [];
    const { model, store, child, approval } = await pausedParent('lead-s', [DELEGATE, BOOK, { text: 'Booked LH1.' }, { text: 'Done: LH1 is booked.' }], booked);
    // The process dies as it resumes the parent: the sub-run has completed, the parent still waits.
    const dying = new CrashOnce(store, (events) => events.some((e) => e.runId === 'lead-s' && e.type === 'run_resumed'));
    await orchestrator(dying, model, booked).resolveApproval(approval.approvalId, { decision: 'approve', by: 'ops' });
    expect(await store.getRun(child)).toMatchObject({ status: 'completed' });
    expect(await store.getRun('lead-s')).toMatchObject({ status: 'paused', waitingFor: child });
    const swept = await orchestrator(store, model, booked).sweepApprovals();
    expect(swept.map((o) => [o.runId, o.status])).toEqual([['lead-s', 'completed']]);
    expect(booked).toEqual(['LH1']);
  });

  it('cancels the waiting sub-run with its parent', async () => {
    const { model, store, child } = await pausedParent('lead-c', [DELEGATE, BOOK], []);
    expect(await orchestrator(store, model, []).cancel('lead-c', 'changed my mind')).toMatchObject({ status: 'cancelled' });
    expect(await store.getRun(child)).toMatchObject({ status: 'cancelled' });
    // The sub-run's approval is decided by the cancellation: it leaves the inbox.
    expect(await store.listApprovals({ status: 'pending' })).toEqual([]);
    expect(await store.listApprovals({ status: 'cancelled' })).toMatchObject([{ runId: child, tool: 'book_flight' }]);
    const journal = await store.readJournal('lead-c');
    expect(journal.at(-1)).toMatchObject({ type: 'run_cancelled', data: { reason: 'changed my mind' } });
    expect(await replay(journal, registry())).toMatchObject({ ok: true, events: journal.length });
  });
});
