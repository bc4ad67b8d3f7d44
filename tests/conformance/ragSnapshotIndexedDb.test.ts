import { IndexedDbStore } from '../../src/web/indexedDbStore.ts';
import { describeRagSnapshots } from '../support/ragSnapshotCases.ts';

// Real IndexedDB in Chromium; fake-indexeddb in Node.
const fake = typeof indexedDB === 'undefined' ? await import('fake-indexeddb') : undefined;
const idb = fake ? { indexedDB: fake.indexedDB, IDBKeyRange: fake.IDBKeyRange } : {};
let n = 0;

describeRagSnapshots('IndexedDB', {
  open: () => new IndexedDbStore(`cugar-rag-snapshot-${Date.now()}-${n++}`, idb).open(),
  async reopen(store) {
    const name = (store as IndexedDbStore).db.name;
    await store.close();
    return new IndexedDbStore(name, idb).open();
  },
});
