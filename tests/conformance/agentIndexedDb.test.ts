import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Orchestrator, ToolRegistry, eventsOf, registerBuiltinTools, replay, staticModels, type Model } from '../../src/core/index.ts';
import { createSequentialIds } from '../../src/core/testing.ts';
import { IndexedDbStore } from '../../src/web/indexedDbStore.ts';
import { scriptedModel } from '../support/scriptedModel.ts';

// An agent run in the tab's store: an approval in the middle of the loop survives closing the
// database and opening it again (a reload), and the run goes on with a new orchestrator.
// Real IndexedDB in Chromium; fake-indexeddb in Node.
const fake = typeof indexedDB === 'undefined' ? await import('fake-indexeddb') : undefined;
const idb = fake ? { indexedDB: fake.indexedDB, IDBKeyRange: fake.IDBKeyRange } : {};

function registry(): ToolRegistry {
  const tools = new ToolRegistry();
  registerBuiltinTools(tools);
  tools.register('demo', 'pay_invoice', {
    description: 'Pay an invoice',
    parameters: z.object({ invoice: z.string(), amount: z.number().positive() }),
    requiresApproval: true,
    handler: ({ invoice, amount }) => ({ paid: invoice, amount }),
  });
  return tools;
}

const orchestrator = (store: IndexedDbStore, model: Model) =>
  new Orchestrator({ registry: registry(), store, ids: createSequentialIds(`idb`), sleep: async () => undefined, models: staticModels([['m1', model]]) });

describe('agent runs in IndexedDB', () => {
  it('pause for an approval, survive a reopen of the database, and complete', async () => {
    const name = `cugar-agent-${Date.now()}`;
    let store = await new IndexedDbStore(name, idb).open();
    const first = scriptedModel([{ calls: [{ tool: 'pay_invoice', input: { invoice: 'INV-7', amount: 120 } }] }], 'm1');
    const paused = await orchestrator(store, first).start('pay invoice INV-7 (120)', 'demo');
    expect(paused.status).toBe('paused');
    await store.close();

    store = await new IndexedDbStore(name, idb).open();
    const second = scriptedModel([{ text: 'Paid INV-7.' }], 'm1');
    const done = await orchestrator(store, second).resolveApproval(paused.pendingApproval!.approvalId, { decision: 'approve', by: 'ada' });
    expect(done).toMatchObject({ status: 'completed', outputs: { 't1.call-0': { paid: 'INV-7', amount: 120 }, answer: 'Paid INV-7.' } });
    expect(JSON.stringify(second.calls[0]!.prompt)).toContain('INV-7');
    const journal = await store.readJournal(paused.runId);
    expect(eventsOf(journal, 'model_call_complete').map((e) => e.data.turn)).toEqual([1, 2]);
    expect((await replay(journal, registry())).ok).toBe(true);
    await store.close();
  });
});
