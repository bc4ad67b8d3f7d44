import Dexie from 'dexie';
import { describe, expect, it } from 'vitest';
import { createHeadSigner, generateSigningKey } from '../../src/core/signing.ts';
import { auditHeadLog } from '../../src/core/index.ts';
import { sealEvent } from '../../src/core/testing.ts';
import { IndexedDbStore, requestPersistentStorage } from '../../src/web/indexedDbStore.ts';
import { describeMemoryConformance, describeStoreConformance } from '../support/storeConformance.ts';

// Real IndexedDB in Chromium; fake-indexeddb in Node.
const fake = typeof indexedDB === 'undefined' ? await import('fake-indexeddb') : undefined;
const idb = fake ? { indexedDB: fake.indexedDB, IDBKeyRange: fake.IDBKeyRange } : {};

let n = 0;
const name = () => `cugar-test-${Date.now()}-${n++}`;
const signer = createHeadSigner(generateSigningKey());
const reopen = async (store: IndexedDbStore, groupCommit = true) => {
  const dbName = store.db.name;
  await store.close();
  return new IndexedDbStore(dbName, { ...idb, groupCommit, signer }).open();
};

for (const groupCommit of [true, false]) {
  describeStoreConformance(`IndexedDB (${groupCommit ? 'group commit' : 'one transaction per append'})`, {
    open: () => new IndexedDbStore(name(), { ...idb, groupCommit, signer }).open(),
    reopen: (store) => reopen(store as IndexedDbStore, groupCommit),
    connect: (store) => new IndexedDbStore((store as IndexedDbStore).db.name, { ...idb, groupCommit, signer }).open(),
    signer,
  });
}
describeMemoryConformance('IndexedDB', { open: () => new IndexedDbStore(name(), idb).open(), reopen: (store) => reopen(store as IndexedDbStore) });

function first(runId: string) {
  const event = sealEvent(undefined, runId, 'stage', 1, { stage: 'initialize' });
  return {
    runId,
    events: [event],
    expectedHead: null,
    run: { runId, traceId: 't', profile: 'demo', goal: 'g', status: 'running' as const, createdAt: 1, updatedAt: 1, head: { seq: 0, hash: event.hash } },
  };
}

describe('IndexedDbStore', () => {
  it('surfaces a full disk as a RESOURCE failure and loses nothing', async () => {
    const store = new IndexedDbStore(name(), idb);
    let full = false;
    store.db.use({
      stack: 'dbcore',
      name: 'quota',
      create: (down) => ({
        ...down,
        table: (table) => {
          const inner = down.table(table);
          return {
            ...inner,
            mutate: (req) =>
              full && table === 'events' ? Promise.reject(new DOMException('The quota has been exceeded.', 'QuotaExceededError')) : inner.mutate(req),
          };
        },
      }),
    });
    await store.open();
    await store.append(first('kept'));
    full = true;
    await expect(store.append(first('lost'))).rejects.toMatchObject({ code: 'quota_exceeded', failureMode: 'RESOURCE' });
    full = false;
    expect(await store.readJournal('kept')).toHaveLength(1);
    expect(await store.readJournal('lost')).toEqual([]);
    expect(await store.getRun('lost')).toBeUndefined();
    await store.close();
  });

  it('closes cleanly when another tab upgrades the database', async () => {
    const dbName = name();
    const store = await new IndexedDbStore(dbName, idb).open();
    await store.append(first('r'));
    const other = new Dexie(dbName, idb);
    other.version(5).stores({ extra: 'id' });
    await other.open();
    expect(store.closedByOtherTab).toBe(true);
    await expect(store.readJournal('r')).rejects.toMatchObject({ code: 'store_closed' });
    other.close();
  });

  it('starts the log of heads on a database written before it, entering its runs as predating the log', async () => {
    const dbName = name();
    // A database as the first schema left it: runs and events, no log.
    const before = new Dexie(dbName, idb);
    before.version(1).stores({ events: '[runId+seq], runId', runs: 'runId, status, profile, traceId, createdAt', approvals: 'approvalId', usage: 'profile' });
    const old = first('old-run');
    await before.table('events').bulkAdd(old.events);
    await before.table('runs').put({ ...old.run, status: 'completed' });
    before.close();
    const store = await new IndexedDbStore(dbName, { ...idb, signer }).open();
    // The upgrade dropped the indexes nothing reads and kept the rows.
    expect(await store.readJournal('old-run')).toEqual(old.events);
    expect(await store.listRuns({ status: 'completed' })).toMatchObject([{ runId: 'old-run' }]);
    expect(store.db.events.schema.indexes.map((index) => index.name)).toEqual([]);
    expect(store.db.runs.schema.indexes.map((index) => index.name)).toEqual(['status']);
    expect(await store.readHeadLog()).toEqual({ entries: [] });
    expect(auditHeadLog(await store.readHeadLog(), await store.listRuns())).toMatchObject({ ok: true, predating: 1, findings: [] });
    await store.append(first('new-run'));
    const log = await store.readHeadLog();
    expect(log.entries).toMatchObject([
      { index: 0, runId: 'old-run', seq: 0, predates: true },
      { index: 1, runId: 'new-run', seq: 0 },
    ]);
    const audit = auditHeadLog(log, await store.listRuns(), (head, sig) => signer.verifyLog(head, sig));
    expect(audit).toMatchObject({ ok: true, predating: 1, findings: [] });
    await store.close();
  });

  it('asks for persistent storage when the browser offers it', async () => {
    expect(await requestPersistentStorage(undefined)).toBe(false);
    expect(await requestPersistentStorage({ persisted: async () => false, persist: async () => true } as unknown as StorageManager)).toBe(true);
  });
});
