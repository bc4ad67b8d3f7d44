import { describe, expect, it } from 'vitest';
import { IVF_SNAPSHOT, PersistedVectorBackend } from '../../src/core/store/persistedVectors.ts';
import { IvfVectorIndex } from '../../src/core/vector/ivfVectorIndex.ts';
import { IndexedDbStore } from '../../src/web/indexedDbStore.ts';
import { IndexedDbVectorRows } from '../../src/web/indexedDbVectorRows.ts';
import { ANN_DIM, annRecords, trainedAnnIndex } from '../support/annFixture.ts';

function request<T>(req: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error ?? new Error('IndexedDB request failed'));
  });
}

// IndexedDB exists in the browser projects only.
describe.skipIf(typeof indexedDB === 'undefined')('IvfVectorIndex persisted in IndexedDB', () => {
  it('reloads its structure from IndexedDB and answers as before, without training', async () => {
    const name = `cugar-ann-${Date.now()}`;
    const open = indexedDB.open(name, 1);
    open.onupgradeneeded = () => open.result.createObjectStore('snapshots');
    const db = await request(open);
    const index = trainedAnnIndex();
    const write = db.transaction('snapshots', 'readwrite');
    await request(write.objectStore('snapshots').put(index.serialise(), 'ivf'));
    db.close();

    const again = await request(indexedDB.open(name, 1));
    const bytes = (await request(again.transaction('snapshots').objectStore('snapshots').get('ivf'))) as Uint8Array;
    again.close();
    await request(indexedDB.deleteDatabase(name));
    const reloaded = new IvfVectorIndex(ANN_DIM, { trainAt: 1000 });
    reloaded.upsert([...annRecords(3000)].reverse());
    reloaded.restore(bytes);
    expect(reloaded.trained).toBe(true);
    for (const record of annRecords(40, 77)) expect(reloaded.search(record.vector)).toEqual(index.search(record.vector));
  });
});

// Real IndexedDB in Chromium; fake-indexeddb in Node.
const fake = typeof indexedDB === 'undefined' ? await import('fake-indexeddb') : undefined;
const idb = fake ? { indexedDB: fake.indexedDB, IDBKeyRange: fake.IDBKeyRange } : {};

describe('PersistedVectorBackend with an approximate index on IndexedDB', () => {
  it('stores the structure it trained and a reopened store answers the same without training', async () => {
    const name = `cugar-ann-backend-${Date.now()}`;
    let written = 0;
    const backendOf = (store: IndexedDbStore) => {
      const rows = new IndexedDbVectorRows(store);
      const write = rows.writeSnapshot.bind(rows);
      rows.writeSnapshot = (profile, snapshot, generation, bytes) => {
        if (snapshot === IVF_SNAPSHOT) written++;
        return write(profile, snapshot, generation, bytes);
      };
      return new PersistedVectorBackend(ANN_DIM, rows, { approximateAbove: 1000 });
    };
    const queries = annRecords(10, 77).map((r) => r.vector);
    let store = await new IndexedDbStore(name, idb).open();
    const backend = backendOf(store);
    await backend.connect();
    await backend.upsert('p', annRecords(3000));
    const answers = [];
    for (const q of queries) answers.push(await backend.search('p', q));
    expect(written).toBe(1);
    await store.close();

    store = await new IndexedDbStore(name, idb).open();
    const reopened = backendOf(store);
    await reopened.connect();
    for (const [i, q] of queries.entries()) expect(await reopened.search('p', q)).toEqual(answers[i]);
    expect(written).toBe(1);
    await store.close();
  });
});
