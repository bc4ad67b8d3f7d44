import { describe, expect, it } from 'vitest';
import { IvfVectorIndex } from '../../src/core/vector/ivfVectorIndex.ts';
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
