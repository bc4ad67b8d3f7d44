import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IDBKeyRange, indexedDB } from 'fake-indexeddb';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  Orchestrator,
  ToolRegistry,
  exportJournal,
  importJournal,
  parseJournal,
  registerBuiltinTools,
  replay,
  verifyJournal,
  type Store,
} from '../../src/core/index.ts';
import { SqliteStore } from '../../src/edge/sqliteStore.ts';
import { IndexedDbStore } from '../../src/web/indexedDbStore.ts';

const dir = mkdtempSync(join(tmpdir(), 'cugar-portable-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function registry(sent: number[]) {
  const r = new ToolRegistry();
  registerBuiltinTools(r);
  r.register('demo', 'pay', {
    description: 'pay an invoice',
    parameters: z.object({ amount: z.number() }),
    requiresApproval: true,
    handler: ({ amount }) => (sent.push(amount), `paid ${amount}`),
  });
  return r;
}

async function carry(from: Store, to: Store) {
  const sent: number[] = [];
  const tools = registry(sent);
  const paused = await new Orchestrator({ registry: tools, store: from }).start('add 2 and 3 then pay(amount=5)', 'demo');
  expect(paused.status).toBe('paused');
  // Export as text, as a user would download it, and import it elsewhere.
  const text = exportJournal(await from.readJournal(paused.runId));
  const events = parseJournal(text);
  expect(verifyJournal(events).ok).toBe(true);
  await importJournal(to, events);
  await expect(importJournal(to, events)).rejects.toMatchObject({ code: 'run_exists' });
  const [pending] = await to.listApprovals({ status: 'pending' });
  expect(pending).toMatchObject({ runId: paused.runId, tool: 'pay' });
  const done = await new Orchestrator({ registry: tools, store: to }).resolveApproval(pending!.approvalId, { decision: 'approve', by: 'ada' });
  expect(done).toMatchObject({ status: 'completed', outputs: { 'step-0': 'paid 5' } });
  expect(sent).toEqual([5]);
  const journal = await to.readJournal(paused.runId);
  expect(verifyJournal(journal).ok).toBe(true);
  expect(journal.slice(0, events.length)).toEqual(events);
  expect((await replay(journal, tools)).ok).toBe(true);
}

describe('portable journals', () => {
  it('moves a run paused for approval from IndexedDB to SQLite, where it is approved and completed', async () => {
    await carry(await new IndexedDbStore('portable-a', { indexedDB, IDBKeyRange }).open(), new SqliteStore(join(dir, 'a.db')));
  });

  it('and the reverse: from SQLite to IndexedDB', async () => {
    await carry(new SqliteStore(join(dir, 'b.db')), await new IndexedDbStore('portable-b', { indexedDB, IDBKeyRange }).open());
  });

  it('refuses a tampered journal on import, writing nothing', async () => {
    const store = new SqliteStore(join(dir, 'c.db'));
    const sent: number[] = [];
    const source = new SqliteStore(join(dir, 'd.db'));
    const run = await new Orchestrator({ registry: registry(sent), store: source }).start('add 1 and 1', 'demo');
    const events = await source.readJournal(run.runId);
    const tampered = events.map((e, i) => (i === 2 ? { ...e, at: e.at + 1 } : e));
    await expect(importJournal(store, tampered)).rejects.toMatchObject({ code: 'journal_invalid' });
    expect(await store.listRuns()).toEqual([]);
  });
});
