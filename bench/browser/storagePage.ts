// Runs the storage workloads against real IndexedDB in the page; driven by storage.bench.ts.
import { IndexedDbStore } from '../../src/web/indexedDbStore.ts';
import { appends, coldQuery, ingest } from '../storageWorkload.ts';

const passes: Record<string, number> = {};
const api = {
  async ingest() {
    const store = await new IndexedDbStore('bench-ingest').open();
    const vectors = store.vectors(256);
    return ingest(vectors);
  },
  async appends(groupCommit: boolean) {
    const name = `bench-appends-${groupCommit}-${(passes[String(groupCommit)] = (passes[String(groupCommit)] ?? 0) + 1)}`;
    const store = await new IndexedDbStore(name, { groupCommit }).open();
    const rate = await appends(store);
    // Each pass starts from an empty origin: earlier passes' databases are not left to weigh on later ones.
    await store.close();
    await new Promise<void>((resolve, reject) => {
      const deletion = indexedDB.deleteDatabase(name);
      deletion.onsuccess = () => resolve();
      deletion.onerror = () => reject(deletion.error);
    });
    return rate;
  },
  async coldQuery() {
    const store = await new IndexedDbStore('bench-ingest').open();
    return coldQuery(store.vectors(256));
  },
};
(globalThis as unknown as { cugarBench: typeof api }).cugarBench = api;
