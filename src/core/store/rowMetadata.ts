import type { SnapshotMetadata } from './vectorSnapshot.ts';

/** Reads stored records' metadata by id (undefined for a record storage does not hold). */
export type ReadMetadata = (
  ids: readonly string[],
) => Promise<ReadonlyArray<Record<string, unknown> | undefined>> | ReadonlyArray<Record<string, unknown> | undefined>;

/**
 * Where the metadata of the records a profile loaded from its vector snapshot comes from (the
 * index holds none for them): the snapshot itself (versions 1 and 2) or, for a version 3
 * snapshot, which holds none, their rows in storage.
 */
export interface LoadedMetadata {
  /** Whether `id`'s metadata is read here: loaded from the snapshot and not written or deleted since. */
  has(id: string): boolean;
  /** The metadata of `ids` (each held here), as copies; `{}` for a record storage no longer holds. */
  read(ids: readonly string[]): Promise<Array<Record<string, unknown>>>;
  /** Records written or deleted since the load: their metadata now lives with the index. */
  forget(ids: readonly string[]): void;
}

/** Metadata read from the snapshot's own bytes. */
export function snapshotSource(snapshot: SnapshotMetadata): LoadedMetadata {
  return {
    has: (id) => snapshot.has(id),
    read: (ids) => Promise.resolve(ids.map((id) => snapshot.get(id) ?? {})),
    forget: (ids) => snapshot.forget(ids),
  };
}

/**
 * Metadata read from the rows, a query's hits at a time, and kept parsed. Which records it holds
 * is the index's word (`loaded`) less those forgotten, so a load builds no second map of the ids:
 * at 10k records that map and the snapshot's metadata were a third of the first query after a
 * restart.
 */
export class RowMetadata implements LoadedMetadata {
  readonly #loaded: (id: string) => boolean;
  readonly #readRows: ReadMetadata;
  readonly #forgotten = new Set<string>();
  readonly #parsed = new Map<string, Record<string, unknown>>();

  constructor(loaded: (id: string) => boolean, readRows: ReadMetadata) {
    this.#loaded = loaded;
    this.#readRows = readRows;
  }

  has(id: string): boolean {
    return !this.#forgotten.has(id) && this.#loaded(id);
  }

  async read(ids: readonly string[]): Promise<Array<Record<string, unknown>>> {
    const found = new Map<string, Record<string, unknown>>();
    for (const id of ids) {
      const parsed = this.#parsed.get(id);
      if (parsed) found.set(id, parsed);
    }
    const missing = [...new Set(ids.filter((id) => !found.has(id)))];
    if (missing.length) {
      const rows = await this.#readRows(missing);
      missing.forEach((id, i) => {
        found.set(id, rows[i] ?? {});
        // A record written or deleted while the rows were read is the index's now: not cached.
        if (!this.#forgotten.has(id)) this.#parsed.set(id, rows[i] ?? {});
      });
    }
    return ids.map((id) => ({ ...found.get(id)! }));
  }

  forget(ids: readonly string[]): void {
    for (const id of ids) {
      this.#forgotten.add(id);
      this.#parsed.delete(id);
    }
  }
}
