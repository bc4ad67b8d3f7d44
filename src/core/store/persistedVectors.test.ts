import { describe, expect, it } from 'vitest';
import { InMemoryVectorRows, PersistedVectorBackend, vectorFromBytes, vectorToBytes, type VectorRow, type VectorRows } from './persistedVectors.ts';

/** Rows in memory that fail on demand and count their loads. */
function flakyRows() {
  const inner = new InMemoryVectorRows();
  const state = { failPut: false, failLoad: false, loads: 0, puts: 0 };
  const rows: VectorRows = {
    load: (profile) => {
      state.loads++;
      if (state.failLoad) throw new Error('disk gone');
      return inner.load(profile);
    },
    put: (profile, list: readonly VectorRow[]) => {
      state.puts++;
      if (state.failPut) throw new Error('disk full');
      inner.put(profile, list);
    },
    delete: (profile, ids) => inner.delete(profile, ids),
  };
  return { rows, state, inner };
}

describe('PersistedVectorBackend', () => {
  it('writes storage first: a failed write leaves the index as it was', async () => {
    const { rows, state } = flakyRows();
    const backend = new PersistedVectorBackend(2, rows);
    await backend.upsert('p', [{ id: 'a', vector: Float32Array.of(1, 0) }]);
    state.failPut = true;
    await expect(backend.upsert('p', [{ id: 'b', vector: Float32Array.of(0, 1) }])).rejects.toThrow('disk full');
    expect((await backend.list('p')).map((r) => r.id)).toEqual(['a']);
    await expect(backend.upsert('p', [{ id: 'c', vector: Float32Array.of(1, 2, 3) }])).rejects.toMatchObject({ code: 'dimension_mismatch' });
    expect(state.puts).toBe(2);
  });

  it('loads a profile once, from bytes, and loads it again after a failed load', async () => {
    const { rows, state, inner } = flakyRows();
    inner.put('p', [{ id: 'a', bytes: vectorToBytes(Float32Array.of(3, 4)), metadata: { n: 1 } }]);
    const backend = new PersistedVectorBackend(2, rows);
    state.failLoad = true;
    await expect(backend.count('p')).rejects.toThrow('disk gone');
    state.failLoad = false;
    expect(await backend.count('p')).toBe(1);
    expect(await backend.search('p', Float32Array.of(3, 4))).toEqual([{ id: 'a', score: expect.closeTo(1, 6), metadata: { n: 1 } }]);
    expect(await backend.delete('p', ['a', 'missing'])).toBe(1);
    expect(inner.load('p')).toEqual([]);
    expect(state.loads).toBe(2);
  });

  it('refuses bad profiles before touching storage, and reports corrupt bytes as a SYSTEM failure', async () => {
    const { rows, state, inner } = flakyRows();
    const backend = new PersistedVectorBackend(2, rows);
    await expect(backend.count('../etc')).rejects.toMatchObject({ code: 'invalid_profile' });
    expect(state.loads).toBe(0);
    inner.put('q', [{ id: 'x', bytes: new Uint8Array([1, 2, 3]), metadata: {} }]);
    await expect(backend.count('q')).rejects.toMatchObject({ code: 'corrupt_row', failureMode: 'SYSTEM' });
    expect(() => new PersistedVectorBackend(0, rows)).toThrow(expect.objectContaining({ code: 'invalid_dimension' }));
    expect(Array.from(vectorFromBytes(new Uint8Array(vectorToBytes(Float32Array.of(0.1, -2))), 2, 'v'))).toEqual(Array.from(Float32Array.of(0.1, -2)));
  });
});

/**
 * In-memory rows that count writes and keep snapshots, as SQLite and IndexedDB do; with
 * `readMetadata`, they also read metadata by id (so vector snapshots hold none), as those two do.
 */
function snapshotRows(options: { readMetadata: boolean }) {
  const inner = new InMemoryVectorRows();
  const generations = new Map<string, number>();
  const snapshots = new Map<string, { generation: number; bytes: Uint8Array }>();
  const calls = { loads: 0, metadataReads: 0 };
  const bump = (profile: string) => {
    const before = generations.get(profile) ?? 0;
    generations.set(profile, before + 1);
    return { before, after: before + 1 };
  };
  const rows: VectorRows = {
    load: (profile) => inner.load(profile),
    loadGeneration: (profile) => {
      calls.loads++;
      return { rows: inner.load(profile), generation: generations.get(profile) ?? 0 };
    },
    put: (profile, list) => {
      inner.put(profile, list);
      return bump(profile);
    },
    delete: (profile, ids) => {
      inner.delete(profile, ids);
      return bump(profile);
    },
    readSnapshot: (profile, name) => {
      const stored = snapshots.get(`${profile}/${name}`);
      return stored && { ...stored, current: generations.get(profile) ?? 0 };
    },
    writeSnapshot: (profile, name, generation, bytes) => {
      if ((generations.get(profile) ?? 0) !== generation) return false;
      snapshots.set(`${profile}/${name}`, { generation, bytes: bytes.slice() });
      return true;
    },
    ...(options.readMetadata
      ? {
          readMetadata: (profile: string, ids: readonly string[]) => {
            calls.metadataReads++;
            const held = new Map(inner.load(profile).map((row) => [row.id, row.metadata]));
            return ids.map((id) => held.get(id));
          },
        }
      : {}),
  };
  return { rows, calls, snapshots };
}

describe.each([
  { kind: 'with their metadata', readMetadata: false },
  { kind: 'of vectors only, metadata read from the rows', readMetadata: true },
])('PersistedVectorBackend snapshots $kind', ({ readMetadata }) => {
  const vector = (seed: number) => Float32Array.from({ length: 8 }, (_, i) => Math.sin(seed * 7 + i * 3));
  const records = Array.from({ length: 30 }, (_, i) => ({ id: `r${i}`, vector: vector(i), metadata: { n: i, text: `record ${i}`, tags: ['a', i] } }));
  const everything = async (backend: PersistedVectorBackend) => [
    await backend.list('p', { vectors: true }),
    ...(await Promise.all([1, 5, 11].map((seed) => backend.search('p', vector(seed), { k: 7 })))),
  ];

  it('loads a current vector snapshot instead of the rows, with the same records, vectors and metadata', async () => {
    const { rows, calls } = snapshotRows({ readMetadata });
    const first = new PersistedVectorBackend(8, rows);
    await first.upsert('p', records);
    await first.delete('p', ['r3']);
    expect(await first.snapshotVectors('p')).toBe(true);
    const expected = await everything(first);

    const second = new PersistedVectorBackend(8, rows);
    expect(await everything(second)).toEqual(expected);
    expect(calls.loads).toBe(1); // only the first backend read the rows
    // Changes after loading a snapshot land on top of it; metadata of replaced records is the new one.
    await second.upsert('p', [{ id: 'r4', vector: vector(40), metadata: { n: 'new' } }]);
    await second.delete('p', ['r5']);
    const reference = new PersistedVectorBackend(8, { load: rows.load, put: rows.put, delete: rows.delete });
    expect(await everything(second)).toEqual(await everything(reference));
    expect(await second.metadataOf('p', ['r4', 'r6', 'r5', 'none'])).toEqual([{ n: 'new' }, { n: 6, text: 'record 6', tags: ['a', 6] }, undefined, undefined]);
    // Hits without metadata, for callers that read it elsewhere: nothing is read for them.
    const reads = calls.metadataReads;
    const bare = await new PersistedVectorBackend(8, rows).search('p', vector(1), { k: 3, metadata: false });
    expect(bare.map((hit) => hit.id)).toEqual((await second.search('p', vector(1), { k: 3 })).map((hit) => hit.id));
    expect(calls.metadataReads).toBe(reads);
  });

  it(`keeps ${readMetadata ? 'no' : 'the'} metadata in the vector snapshot`, async () => {
    const { rows, snapshots } = snapshotRows({ readMetadata });
    const backend = new PersistedVectorBackend(8, rows);
    await backend.upsert('p', records);
    expect(await backend.snapshotVectors('p')).toBe(true);
    const bytes = snapshots.get('p/vectors')!.bytes;
    const text = new TextDecoder().decode(bytes);
    expect(text.includes('record 12')).toBe(!readMetadata);
    expect(new DataView(bytes.buffer, bytes.byteOffset + bytes.length - 8).getUint32(0, true)).toBe(readMetadata ? 3 : 2);
  });

  it('reads the rows when the snapshot is stale or damaged, and snapshots what it read', async () => {
    const { rows, calls, snapshots } = snapshotRows({ readMetadata });
    const first = new PersistedVectorBackend(8, rows);
    await first.upsert('p', records);
    expect(await first.snapshotVectors('p')).toBe(true);
    // Another writer moves the rows on after the snapshot.
    await rows.put('p', [{ id: 'late', bytes: vectorToBytes(vector(99)), metadata: { late: true } }]);
    const second = new PersistedVectorBackend(8, rows);
    const reference = new PersistedVectorBackend(8, { load: rows.load, put: rows.put, delete: rows.delete });
    expect(await everything(second)).toEqual(await everything(reference));
    expect((await second.list('p')).map((r) => r.id)).toContain('late');
    expect(calls.loads).toBe(2);
    // The second backend snapshotted what it read: a third loads that.
    expect(await everything(new PersistedVectorBackend(8, rows))).toEqual(await everything(reference));
    expect(calls.loads).toBe(2);
    // A damaged snapshot is read past.
    const stored = snapshots.get('p/vectors')!;
    snapshots.set('p/vectors', { ...stored, bytes: stored.bytes.subarray(0, 40) });
    expect(await everything(new PersistedVectorBackend(8, rows))).toEqual(await everything(reference));
    expect(calls.loads).toBe(3);
    // A backend that saw someone else write cannot tell what it reflects: it takes no snapshot.
    const blind = new PersistedVectorBackend(8, rows);
    await blind.count('p');
    await rows.delete('p', ['r1']);
    await blind.upsert('p', [{ id: 'x', vector: vector(1) }]);
    expect(await blind.snapshotGeneration('p')).toBeUndefined();
    expect(await blind.snapshotVectors('p')).toBe(false);
  });
});
