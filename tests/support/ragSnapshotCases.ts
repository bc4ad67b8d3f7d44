// The RAG keyword snapshot cases, run against every store that keeps snapshots (SQLite in the
// node project, IndexedDB in Chromium): a restart loads the snapshot and ranks exactly as a
// fresh build; a snapshot that no longer matches the stored vectors is rebuilt, never used.
import { describe, expect, it } from 'vitest';
import { HashingEmbedder, RagIndex, RagLoader, RagRetriever, type VectorBackend } from '../../src/core/index.ts';
import { KEYWORD_SNAPSHOT } from '../../src/core/rag/ragIndex.ts';
import { hasVectorSnapshots } from '../../src/core/stores.ts';

/** A store under test: its vector backend, and a way to close it and open the same data again. */
export interface SnapshotStore {
  vectors(dimension: number): VectorBackend;
  close(): Promise<void>;
}

const DIM = 64;
const PROFILE = 'docs';
const QUERIES = ['honey bee colonies', 'steeped tea', 'mites in summer hives', 'ninety degrees', 'planets orbit the sun', 'zzz unknown'];

const corpus = (from: number, count: number) =>
  Array.from({ length: count }, (_, i) => {
    const n = from + i;
    const topics = [
      'Varroa mites weaken honey bee colonies',
      'Oolong tea can be steeped several times',
      'Planets orbit the sun in ellipses',
      'Hives need treatment in late summer',
    ];
    return {
      path: `doc-${n}.md`,
      text: `${topics[n % topics.length]}. Note ${n} mentions ${topics[(n * 7) % topics.length]!.toLowerCase()} at ninety degrees.`,
    };
  });

/** Every query's results in every mode. */
async function rankings(retriever: RagRetriever): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const query of QUERIES) for (const mode of ['vector', 'keyword', 'hybrid'] as const) out.push(await retriever.search(PROFILE, query, { k: 8, mode }));
  return out;
}

/** The same backend without its snapshot methods, so RAG rebuilds its keyword index from the stored chunks: the fresh build to compare with. */
function withoutSnapshots(backend: VectorBackend): VectorBackend {
  return {
    dimension: backend.dimension,
    connect: () => backend.connect(),
    upsert: (profile, records) => backend.upsert(profile, records),
    search: (profile, query, options) => backend.search(profile, query, options),
    delete: (profile, ids) => backend.delete(profile, ids),
    count: (profile) => backend.count(profile),
    list: (profile, options) => backend.list(profile, options),
  };
}

/** Count calls to `list`, which only a rebuild of the keyword index makes. */
function countingLists(backend: VectorBackend): { backend: VectorBackend; lists: () => number } {
  let lists = 0;
  const original = backend.list.bind(backend);
  backend.list = (profile, options) => {
    lists++;
    return original(profile, options);
  };
  return { backend, lists: () => lists };
}

export function describeRagSnapshots(name: string, factory: { open(): Promise<SnapshotStore>; reopen(store: SnapshotStore): Promise<SnapshotStore> }): void {
  const embedder = new HashingEmbedder({ dimension: DIM });
  const open = async (store: SnapshotStore) => {
    const vectors = store.vectors(DIM);
    await vectors.connect();
    return vectors;
  };
  const fresh = async (store: SnapshotStore) => rankings(new RagRetriever(new RagIndex(withoutSnapshots(await open(store)), embedder)));

  describe(`RAG keyword snapshots: ${name}`, () => {
    it('loads the keyword index from its snapshot after a restart and ranks exactly as a fresh build', async () => {
      let store = await factory.open();
      const vectors = await open(store);
      expect(hasVectorSnapshots(vectors)).toBe(true);
      await new RagLoader(new RagIndex(vectors, embedder), { size: 400, overlap: 0 }).ingest(PROFILE, corpus(0, 40));
      const before = await rankings(new RagRetriever(new RagIndex(vectors, embedder)));

      store = await factory.reopen(store);
      const { backend, lists } = countingLists(await open(store));
      const restarted = await rankings(new RagRetriever(new RagIndex(backend, embedder)));
      expect(lists()).toBe(0);
      expect(restarted).toEqual(before);
      expect(restarted).toEqual(await fresh(store));
      expect(JSON.stringify(restarted)).toContain('doc-1.md');
      await store.close();
    });

    it('keeps ranking as a fresh build through adds, replacements and removals after loading a snapshot, and snapshots them', async () => {
      let store = await factory.open();
      await new RagLoader(new RagIndex(await open(store), embedder), { size: 400, overlap: 0 }).ingest(PROFILE, corpus(0, 30));
      store = await factory.reopen(store);
      const { backend, lists } = countingLists(await open(store));
      const index = new RagIndex(backend, embedder);
      const loader = new RagLoader(index, { size: 400, overlap: 0 });
      await loader.ingest(PROFILE, [...corpus(30, 5), { path: 'doc-3.md', text: 'Replaced: comets and planets far from the sun.' }]);
      const { RagDocuments } = await import('../../src/core/index.ts');
      await new RagDocuments(index).remove(PROFILE, 'doc-4.md');
      const changed = await rankings(new RagRetriever(index));
      expect(lists()).toBeGreaterThan(0); // ingest lists the stored chunks to find replaced ones
      const listsBefore = lists();
      expect(changed).toEqual(await fresh(store));
      expect(JSON.stringify(changed)).toContain('doc-33.md');
      expect(JSON.stringify(changed)).not.toContain('doc-4.md');

      // The removal came after the ingest's snapshot, so the snapshot is stale; persisting takes a new one.
      expect(await index.persist(PROFILE)).toBe(true);
      store = await factory.reopen(store);
      const reopened = countingLists(await open(store));
      expect(await rankings(new RagRetriever(new RagIndex(reopened.backend, embedder)))).toEqual(changed);
      expect(reopened.lists()).toBe(0);
      expect(listsBefore).toBeGreaterThan(0);
      await store.close();
    });

    it('rebuilds instead of using a snapshot the stored vectors moved on from, or one that is corrupt', async () => {
      let store = await factory.open();
      await new RagLoader(new RagIndex(await open(store), embedder), { size: 400, overlap: 0 }).ingest(PROFILE, corpus(0, 20));
      // Another writer that keeps no keyword index adds and removes chunks after the snapshot.
      store = await factory.reopen(store);
      const other = await open(store);
      await other.upsert(PROFILE, [
        { id: 'late.md#0', vector: embedder.embed('late comets'), metadata: { path: 'late.md', chunk: 0, offset: 0, text: 'Late comets and planets.' } },
      ]);
      await other.delete(PROFILE, ['doc-2.md#0']);
      store = await factory.reopen(store);
      const stale = countingLists(await open(store));
      const rebuilt = await rankings(new RagRetriever(new RagIndex(stale.backend, embedder)));
      expect(stale.lists()).toBe(1);
      expect(rebuilt).toEqual(await fresh(store));
      expect(JSON.stringify(rebuilt)).not.toContain('doc-2.md');
      const planets = await new RagRetriever(new RagIndex(withoutSnapshots(await open(store)), embedder)).search(PROFILE, 'late comets', { mode: 'keyword' });
      expect(planets.map((hit) => hit.path)).toContain('late.md');

      // The rebuild was snapshotted: the next start loads it. A corrupt snapshot is rebuilt again.
      store = await factory.reopen(store);
      const vectors = await open(store);
      const again = countingLists(vectors);
      expect(await rankings(new RagRetriever(new RagIndex(again.backend, embedder)))).toEqual(rebuilt);
      expect(again.lists()).toBe(0);
      if (!hasVectorSnapshots(vectors)) throw new Error('no snapshots');
      const generation = await vectors.snapshotGeneration(PROFILE);
      expect(await vectors.writeSnapshot(PROFILE, KEYWORD_SNAPSHOT, generation!, new Uint8Array([1, 2, 3, 4, 5]))).toBe(true);
      expect(await vectors.writeSnapshot(PROFILE, KEYWORD_SNAPSHOT, generation! - 1, new Uint8Array(8))).toBe(false);
      store = await factory.reopen(store);
      const corrupt = countingLists(await open(store));
      expect(await rankings(new RagRetriever(new RagIndex(corrupt.backend, embedder)))).toEqual(rebuilt);
      expect(corrupt.lists()).toBe(1);
      await store.close();
    });
  });
}
