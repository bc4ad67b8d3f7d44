import type { GenerationChange, StoredSnapshot, VectorRow, VectorRows } from '../core/stores.ts';
import { storageError, type CugarDatabase } from './indexedDbStore.ts';
import { FILE_SNAPSHOT_BYTES, readSnapshotFile, removeSnapshotFile, snapshotFilesUsable, writeSnapshotFile } from './snapshotFiles.ts';

/** A profile's count of writes to its vectors, bumped in the same transaction as each write. */
export interface StoredVectorGeneration {
  profile: string;
  generation: number;
  /** A random id made with the count, stamped on snapshot files: a database made again under the same name has another. */
  nonce?: string;
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
 * snapshot made before a later write is recognised as stale. Snapshots of 256 KiB and more are
 * kept as files of the origin private file system where the browser has one (see
 * `snapshotFiles.ts`), stamped with the generation and the profile's nonce.
 */
export class IndexedDbVectorRows implements VectorRows {
  readonly #store: { readonly db: CugarDatabase; open(): Promise<unknown> };
  readonly #files: boolean;

  /** `options.files`: keep large snapshots as files where the browser can (default true). */
  constructor(store: { readonly db: CugarDatabase; open(): Promise<unknown> }, options: { files?: boolean } = {}) {
    this.#store = store;
    this.#files = options.files ?? true;
  }

  async connect(): Promise<void> {
    await this.#store.open();
  }

  async load(profile: string): Promise<VectorRow[]> {
    const rows = await this.#guard(() => this.#store.db.vectors.where('profile').equals(profile).toArray());
    return rows.map((row) => ({ id: row.id, bytes: row.vector, metadata: row.metadata }));
  }

  async readMetadata(profile: string, ids: readonly string[]): Promise<Array<Record<string, unknown> | undefined>> {
    const rows = await this.#guard(() => this.#store.db.vectors.bulkGet(ids.map((id) => [profile, id] as [string, string])));
    return rows.map((row) => row?.metadata);
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

  async readSnapshot(profile: string, name: string): Promise<StoredSnapshot | undefined> {
    const db = this.#store.db;
    const found = await this.#guard(() =>
      db.transaction('r', db.vectorSnapshots, db.vectorGenerations, async () => ({
        row: await db.vectorSnapshots.get([profile, name]),
        generation: await db.vectorGenerations.get(profile),
      })),
    );
    const current = found.generation?.generation ?? 0;
    if (found.row) return { bytes: new Uint8Array(found.row.bytes), generation: found.row.generation, current };
    const nonce = found.generation?.nonce;
    if (!this.#files || nonce === undefined) return undefined;
    // A file of another generation would be stale: only its header is read.
    const file = await readSnapshotFile(db.name, profile, name, { generation: current, nonce });
    return file ? { bytes: file.bytes, generation: file.generation, current } : undefined;
  }

  async writeSnapshot(profile: string, name: string, generation: number, bytes: Uint8Array): Promise<boolean> {
    const db = this.#store.db;
    if (this.#files && bytes.length >= FILE_SNAPSHOT_BYTES && (await snapshotFilesUsable())) {
      // Checked and stamped in one transaction, which also drops a value of the same name: a file is read only when there is none.
      const stamp = await this.#guard(() =>
        db.transaction('rw', db.vectorSnapshots, db.vectorGenerations, async () => {
          const row = await db.vectorGenerations.get(profile);
          if ((row?.generation ?? 0) !== generation) return undefined;
          const nonce = row?.nonce ?? newNonce();
          if (row?.nonce === undefined) await db.vectorGenerations.put({ profile, generation, nonce });
          await db.vectorSnapshots.delete([profile, name]);
          return { generation, nonce };
        }),
      );
      if (!stamp) return false;
      try {
        await writeSnapshotFile(db.name, profile, name, stamp, bytes);
        return true;
      } catch {
        // The file system refused (full, or no writable files here): the snapshot is kept as a value instead.
      }
    }
    const copy = bytes.slice().buffer as ArrayBuffer;
    const stored = await this.#guard(() =>
      db.transaction('rw', db.vectorSnapshots, db.vectorGenerations, async () => {
        if (((await db.vectorGenerations.get(profile))?.generation ?? 0) !== generation) return false;
        await db.vectorSnapshots.put({ profile, name, generation, bytes: copy });
        return true;
      }),
    );
    // The value is read before any file: an older file of the name only takes room.
    if (stored && this.#files) await removeSnapshotFile(db.name, profile, name);
    return stored;
  }

  // Inside a write's transaction: count the write (the first write makes the profile's nonce).
  async #bump(profile: string): Promise<GenerationChange> {
    const row = await this.#store.db.vectorGenerations.get(profile);
    const before = row?.generation ?? 0;
    await this.#store.db.vectorGenerations.put({ profile, generation: before + 1, nonce: row?.nonce ?? newNonce() });
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

/** 128 random bits as hex. */
function newNonce(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}
