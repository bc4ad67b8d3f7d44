import type { GenerationChange, StoredSnapshot, VectorRow, VectorRows } from '../core/stores.ts';
import { storageError, type CugarDatabase } from './indexedDbStore.ts';

/** A profile's count of writes to its vectors, bumped in the same transaction as each write. */
export interface StoredVectorGeneration {
  profile: string;
  generation: number;
}

/** A snapshot kept beside a profile's vectors, stamped with the generation it was made at. */
export interface StoredVectorSnapshot {
  profile: string;
  name: string;
  generation: number;
  bytes: ArrayBuffer;
}

/**
 * The `vectors` table as the rows a {@link PersistedVectorBackend} writes through: each write
 * in one transaction with the profile's generation, and snapshots in `vectorSnapshots`, so a
 * snapshot made before a later write is recognised as stale.
 */
export class IndexedDbVectorRows implements VectorRows {
  readonly #store: { readonly db: CugarDatabase; open(): Promise<unknown> };

  constructor(store: { readonly db: CugarDatabase; open(): Promise<unknown> }) {
    this.#store = store;
  }

  async connect(): Promise<void> {
    await this.#store.open();
  }

  async load(profile: string): Promise<VectorRow[]> {
    const rows = await this.#guard(() => this.#store.db.vectors.where('profile').equals(profile).toArray());
    return rows.map((row) => ({ id: row.id, bytes: row.vector, metadata: row.metadata }));
  }

  loadGeneration(profile: string): Promise<{ rows: VectorRow[]; generation: number }> {
    const db = this.#store.db;
    return this.#guard(() =>
      db.transaction('r', db.vectors, db.vectorGenerations, async () => ({
        rows: await this.load(profile),
        generation: (await db.vectorGenerations.get(profile))?.generation ?? 0,
      })),
    );
  }

  put(profile: string, rows: readonly VectorRow[]): Promise<GenerationChange> {
    const db = this.#store.db;
    return this.#guard(() =>
      db.transaction('rw', db.vectors, db.vectorGenerations, async () => {
        await db.vectors.bulkPut(
          rows.map((row) => ({
            profile,
            id: row.id,
            vector: row.bytes instanceof ArrayBuffer ? row.bytes : (row.bytes.slice().buffer as ArrayBuffer),
            metadata: row.metadata,
          })),
        );
        return this.#bump(profile);
      }),
    );
  }

  delete(profile: string, ids: readonly string[]): Promise<GenerationChange> {
    const db = this.#store.db;
    return this.#guard(() =>
      db.transaction('rw', db.vectors, db.vectorGenerations, async () => {
        await db.vectors.bulkDelete(ids.map((id) => [profile, id] as [string, string]));
        return this.#bump(profile);
      }),
    );
  }

  readSnapshot(profile: string, name: string): Promise<StoredSnapshot | undefined> {
    const db = this.#store.db;
    return this.#guard(() =>
      db.transaction('r', db.vectorSnapshots, db.vectorGenerations, async () => {
        const row = await db.vectorSnapshots.get([profile, name]);
        if (!row) return undefined;
        return { bytes: new Uint8Array(row.bytes), generation: row.generation, current: (await db.vectorGenerations.get(profile))?.generation ?? 0 };
      }),
    );
  }

  writeSnapshot(profile: string, name: string, generation: number, bytes: Uint8Array): Promise<boolean> {
    const db = this.#store.db;
    const copy = bytes.slice().buffer as ArrayBuffer;
    return this.#guard(() =>
      db.transaction('rw', db.vectorSnapshots, db.vectorGenerations, async () => {
        if (((await db.vectorGenerations.get(profile))?.generation ?? 0) !== generation) return false;
        await db.vectorSnapshots.put({ profile, name, generation, bytes: copy });
        return true;
      }),
    );
  }

  // Inside a write's transaction: count the write.
  async #bump(profile: string): Promise<GenerationChange> {
    const before = (await this.#store.db.vectorGenerations.get(profile))?.generation ?? 0;
    await this.#store.db.vectorGenerations.put({ profile, generation: before + 1 });
    return { before, after: before + 1 };
  }

  async #guard<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      throw storageError(error);
    }
  }
}
