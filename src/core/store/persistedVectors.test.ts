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
