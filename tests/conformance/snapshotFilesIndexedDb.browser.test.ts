import { describe, expect, it } from 'vitest';
import { InMemoryVectorBackend, type VectorBackend } from '../../src/core/index.ts';
import { hasVectorSnapshots } from '../../src/core/stores.ts';
import { IndexedDbStore } from '../../src/web/indexedDbStore.ts';
import { readSnapshotFile, snapshotFileName } from '../../src/web/snapshotFiles.ts';

// Large vector snapshots are kept as files of the origin private file system, stamped with the
// profile's generation and nonce: a reload reads them instead of the rows, and never a file that
// is stale, damaged, or left behind by a database of the same name that was deleted.

const DIM = 256;
const PROFILE = 'docs';
const vector = (i: number) => Float32Array.from({ length: DIM }, (_, d) => Math.sin(i * 0.37 + d * 1.3) + (d === i % DIM ? 2 : 0));
const records = (count: number, from = 0) =>
  Array.from({ length: count }, (_, i) => ({ id: `r${i}`, vector: vector(from + i), metadata: { path: `doc-${i}.md` } }));
let n = 0;

async function opened(name: string, options: { snapshotFiles?: boolean } = {}): Promise<{ store: IndexedDbStore; vectors: VectorBackend }> {
  const store = await new IndexedDbStore(name, options).open();
  const vectors = store.vectors(DIM);
  await vectors.connect();
  return { store, vectors };
}

/** A store named anew, holding `input` and a snapshot of it. */
async function snapshotted(input: ReturnType<typeof records>, options: { snapshotFiles?: boolean } = {}) {
  const name = `cugar-snapfile-${Date.now()}-${n++}`;
  const { store, vectors } = await opened(name, options);
  await vectors.upsert(PROFILE, input);
  expect(hasVectorSnapshots(vectors) && (await vectors.snapshotVectors(PROFILE))).toBe(true);
  return { name, store, vectors };
}

async function reference(input: ReturnType<typeof records>): Promise<VectorBackend> {
  const backend = new InMemoryVectorBackend(DIM);
  await backend.connect();
  await backend.upsert(PROFILE, input);
  return backend;
}

async function expectSameSearches(vectors: VectorBackend, expected: VectorBackend, queries: number[]): Promise<void> {
  for (const q of queries) expect(await vectors.search(PROFILE, vector(q), { k: 5 })).toEqual(await expected.search(PROFILE, vector(q), { k: 5 }));
}

function deleteDatabase(name: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.deleteDatabase(name);
    request.onsuccess = () => resolve();
    request.onerror = () => reject(request.error);
  });
}

describe('vector snapshots as files (IndexedDB in Chromium)', () => {
  it('keeps a large snapshot as a file, not a value, and a reload loads it without reading the rows’ vectors', async () => {
    const input = records(1_200);
    const snapshot = await snapshotted(input);
    const { name } = snapshot;
    let { store, vectors } = snapshot;
    expect(await store.db.vectorSnapshots.get([PROFILE, 'vectors'])).toBeUndefined();
    const file = await readSnapshotFile(name, PROFILE, 'vectors');
    expect(file?.bytes.length).toBeGreaterThan(DIM * 4 * 1_200);
    await store.close();

    // The rows' vectors are damaged behind the store's back (reading them would fail): only the
    // file can give the vectors back; the hits' metadata is read from the rows.
    ({ store } = await opened(name));
    await store.db.vectors.toCollection().modify({ vector: new ArrayBuffer(0) });
    await store.close();
    ({ store, vectors } = await opened(name));
    const expected = await reference(input);
    await expectSameSearches(vectors, expected, [3, 700, 1_199]);
    expect(await vectors.count(PROFILE)).toBe(1_200);
    await store.close();
    await deleteDatabase(name);
  });

  it('does not use a file once the rows have moved on, nor a damaged one, and writes a good one again', async () => {
    const input = records(1_000);
    const snapshot = await snapshotted(input);
    const { name } = snapshot;
    let { store, vectors } = snapshot;
    const changed = [{ id: 'r5', vector: vector(5_000), metadata: { path: 'changed.md' } }];
    await vectors.upsert(PROFILE, changed);
    await store.close();

    const expected = await reference(input);
    await expected.upsert(PROFILE, changed);
    ({ store, vectors } = await opened(name));
    await expectSameSearches(vectors, expected, [5_000, 5, 900]);
    await store.close();

    // Damage the file the last load wrote again: the next load reads the rows instead.
    const root = await (await navigator.storage.getDirectory()).getDirectoryHandle('cugar-snapshots');
    const writable = await (await root.getFileHandle(snapshotFileName(name, PROFILE, 'vectors'))).createWritable();
    await writable.write(new Uint8Array(100).fill(7));
    await writable.close();
    ({ store, vectors } = await opened(name));
    await expectSameSearches(vectors, expected, [5_000, 5, 900]);
    await store.close();
    expect((await readSnapshotFile(name, PROFILE, 'vectors'))?.bytes.length).toBeGreaterThan(DIM * 4 * 1_000);
    await deleteDatabase(name);
  });

  it('never takes the file of a deleted database for that of a new one of the same name', async () => {
    const snapshot = await snapshotted(records(1_000));
    const { name } = snapshot;
    let { store, vectors } = snapshot;
    await store.close();
    await deleteDatabase(name);

    // The same name, the same count of writes, other vectors; the old file is still there.
    const other = records(1_000, 50_000);
    ({ store, vectors } = await opened(name, { snapshotFiles: false }));
    await vectors.upsert(PROFILE, other);
    // No snapshot value either, so a reload looks for the file, whose generation is the new database's.
    await store.db.vectorSnapshots.clear();
    const generation = (await store.db.vectorGenerations.get(PROFILE))?.generation;
    await store.close();
    expect((await readSnapshotFile(name, PROFILE, 'vectors'))?.generation).toBe(generation);
    ({ store, vectors } = await opened(name));
    await expectSameSearches(vectors, await reference(other), [50_001, 50_999, 3]);
    await store.close();
    await deleteDatabase(name);
  });

  it('keeps snapshots as values when files are turned off', async () => {
    const { name, store } = await snapshotted(records(1_000), { snapshotFiles: false });
    expect((await store.db.vectorSnapshots.get([PROFILE, 'vectors']))?.generation).toBe(1);
    await store.close();
    await deleteDatabase(name);
  });
});
