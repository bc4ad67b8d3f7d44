import type Database from 'better-sqlite3';
import { SystemError } from '../core/index.ts';
import { GroupCommit, SNAPSHOT_PART_BYTES, type GenerationChange, type StoredSnapshot, type VectorRow, type VectorRows } from '../core/stores.ts';

/** Parse a stored JSON column; a row that is not JSON is a typed `corrupt_row` error naming `what`. */
export function parseRow<T>(text: string, what: string): T {
  try {
    return JSON.parse(text) as T;
  } catch (cause) {
    throw new SystemError(`a stored ${what} is corrupt`, { code: 'corrupt_row', cause, details: { what } });
  }
}

// A profile's generation counts the writes to its rows (bumped in the same transaction as each
// write); a snapshot is stamped with the generation it was made at, so a stale one is recognised.
const SNAPSHOT_SCHEMA = `
CREATE TABLE IF NOT EXISTS vector_generations (profile TEXT PRIMARY KEY, generation INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS vector_snapshots (profile TEXT NOT NULL, name TEXT NOT NULL, generation INTEGER NOT NULL, bytes BLOB NOT NULL, PRIMARY KEY (profile, name));
CREATE TABLE IF NOT EXISTS vector_snapshot_parts (profile TEXT NOT NULL, name TEXT NOT NULL, part INTEGER NOT NULL, bytes BLOB NOT NULL, PRIMARY KEY (profile, name, part));
`;

/**
 * A snapshot larger than one part is stored in parts (its row in `vector_snapshots` then holds no
 * bytes), and read back as the parts, unjoined. SQLite hands a value back as one allocation after
 * walking its overflow pages, and the binding copies it again; a vector snapshot's chunks are its
 * parts (see `vectorSnapshot.ts`), which the index then keeps as they were read. At 10k vectors of
 * 256 dimensions (21 MB), reading the parts was about a quarter faster in a fresh process than
 * reading one value, and not joining them saved as much again.
 */
const PART_BYTES = SNAPSHOT_PART_BYTES;

/** A put waiting for its transaction; the generation change is set when it is written. */
interface PendingPut {
  profile: string;
  rows: readonly VectorRow[];
  change?: GenerationChange;
}

/**
 * The `vectors` table as the rows a {@link PersistedVectorBackend} writes through: each write
 * also counting the profile's generation, and snapshots in `vector_snapshots` beside them. Puts
 * made in the same turn share one transaction (memory in the loop of concurrent runs writes each
 * run's reflection as it ends), as journal appends and facts do; each resolves once its
 * transaction committed, with its own generation change. Deletes take a transaction each.
 */
export class SqliteVectorRows implements VectorRows {
  readonly #statements;
  readonly #onWrite: () => void;
  readonly #puts: GroupCommit<PendingPut>;
  readonly #delete: (profile: string, ids: readonly string[]) => GenerationChange;
  readonly #loadGeneration: (profile: string) => { rows: VectorRow[]; generation: number };
  readonly #readMetadata: (profile: string, ids: readonly string[]) => Array<Record<string, unknown> | undefined>;
  readonly #readSnapshot: (profile: string, name: string) => StoredSnapshot | undefined;
  readonly #writeSnapshot: (profile: string, name: string, generation: number, bytes: Uint8Array) => boolean;

  /**
   * `onWrite` is told of each write transaction (puts and deletes), for the store's counters;
   * `coalesce: false` gives each put a transaction of its own.
   */
  constructor(db: Database.Database, onWrite: () => void = () => undefined, options: { coalesce?: boolean } = {}) {
    db.exec(SNAPSHOT_SCHEMA);
    this.#onWrite = onWrite;
    const statements = {
      load: db.prepare<[string], { id: string; vector: Buffer; metadata: string }>('SELECT id, vector, metadata FROM vectors WHERE profile = ?'),
      metadata: db.prepare<[string, string], { metadata: string }>('SELECT metadata FROM vectors WHERE profile = ? AND id = ?'),
      put: db.prepare('INSERT OR REPLACE INTO vectors (profile, id, vector, metadata) VALUES (?, ?, ?, ?)'),
      delete: db.prepare('DELETE FROM vectors WHERE profile = ? AND id = ?'),
      generation: db.prepare<[string], { generation: number }>('SELECT generation FROM vector_generations WHERE profile = ?'),
      bump: db.prepare<[string], { generation: number }>(
        'INSERT INTO vector_generations (profile, generation) VALUES (?, 1) ON CONFLICT (profile) DO UPDATE SET generation = generation + 1 RETURNING generation',
      ),
      snapshot: db.prepare<[string, string], { generation: number; bytes: Buffer }>(
        'SELECT generation, bytes FROM vector_snapshots WHERE profile = ? AND name = ?',
      ),
      saveSnapshot: db.prepare('INSERT OR REPLACE INTO vector_snapshots (profile, name, generation, bytes) VALUES (?, ?, ?, ?)'),
      parts: db.prepare<[string, string], { bytes: Buffer }>('SELECT bytes FROM vector_snapshot_parts WHERE profile = ? AND name = ? ORDER BY part'),
      dropParts: db.prepare('DELETE FROM vector_snapshot_parts WHERE profile = ? AND name = ?'),
      savePart: db.prepare('INSERT INTO vector_snapshot_parts (profile, name, part, bytes) VALUES (?, ?, ?, ?)'),
    };
    // A snapshot's bytes: inline in its row, or (a row without bytes) its parts in order.
    const snapshotBytes = (profile: string, name: string, inline: Buffer): Buffer | Buffer[] =>
      inline.length > 0 ? inline : statements.parts.all(profile, name).map((part) => part.bytes);
    this.#statements = statements;
    const generation = (profile: string) => statements.generation.get(profile)?.generation ?? 0;
    const bump = (profile: string): GenerationChange => {
      const after = statements.bump.get(profile)!.generation;
      return { before: after - 1, after };
    };
    this.#loadGeneration = db.transaction((profile: string) => ({ rows: this.load(profile), generation: generation(profile) }));
    this.#readMetadata = db.transaction((profile: string, ids: readonly string[]) =>
      ids.map((id) => {
        const row = statements.metadata.get(profile, id);
        return row && parseRow<Record<string, unknown>>(row.metadata, `vector ${id}`);
      }),
    );
    this.#readSnapshot = db.transaction((profile: string, name: string) => {
      const row = statements.snapshot.get(profile, name);
      return row ? { bytes: snapshotBytes(profile, name, row.bytes), generation: row.generation, current: generation(profile) } : undefined;
    });
    this.#writeSnapshot = db.transaction((profile: string, name: string, at: number, bytes: Uint8Array) => {
      if (generation(profile) !== at) return false;
      const whole = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      statements.dropParts.run(profile, name);
      const inParts = whole.length > PART_BYTES;
      if (inParts)
        for (let part = 0; part * PART_BYTES < whole.length; part++)
          statements.savePart.run(profile, name, part, whole.subarray(part * PART_BYTES, (part + 1) * PART_BYTES));
      statements.saveSnapshot.run(profile, name, at, inParts ? Buffer.alloc(0) : whole);
      return true;
    });
    const putAll = db.transaction((items: readonly PendingPut[]) => {
      for (const item of items) {
        for (const row of item.rows)
          statements.put.run(
            item.profile,
            row.id,
            row.bytes instanceof Uint8Array ? Buffer.from(row.bytes.buffer, row.bytes.byteOffset, row.bytes.byteLength) : Buffer.from(row.bytes),
            JSON.stringify(row.metadata),
          );
        item.change = bump(item.profile);
      }
    });
    this.#puts = new GroupCommit<PendingPut>({
      commit: (items) => {
        this.#onWrite();
        putAll(items);
        return new Map();
      },
      // A group that failed is written again one put at a time, so only the put at fault fails.
      retryAlone: () => true,
      coalesce: options.coalesce ?? true,
      // setImmediate runs after the I/O callbacks of this turn: every run finishing in it gets to join.
      schedule: (flush) => void setImmediate(flush),
    });
    this.#delete = db.transaction((profile: string, ids: readonly string[]) => {
      for (const id of ids) statements.delete.run(profile, id);
      return bump(profile);
    });
  }

  load(profile: string): VectorRow[] {
    return this.#statements.load
      .all(profile)
      .map((row) => ({ id: row.id, bytes: row.vector, metadata: parseRow<Record<string, unknown>>(row.metadata, `vector ${row.id}`) }));
  }

  readMetadata(profile: string, ids: readonly string[]): Array<Record<string, unknown> | undefined> {
    return this.#readMetadata(profile, ids);
  }

  async put(profile: string, rows: readonly VectorRow[]): Promise<GenerationChange> {
    const pending: PendingPut = { profile, rows };
    await this.#puts.enqueue(pending);
    return pending.change!;
  }

  /** Commit the puts queued now (on shutdown). */
  flush(): void {
    void this.#puts.flush();
  }

  delete(profile: string, ids: readonly string[]): GenerationChange {
    this.#onWrite();
    return this.#delete(profile, ids);
  }

  loadGeneration(profile: string): { rows: VectorRow[]; generation: number } {
    return this.#loadGeneration(profile);
  }

  readSnapshot(profile: string, name: string): StoredSnapshot | undefined {
    return this.#readSnapshot(profile, name);
  }

  writeSnapshot(profile: string, name: string, generation: number, bytes: Uint8Array): boolean {
    return this.#writeSnapshot(profile, name, generation, bytes);
  }
}
