import type Database from 'better-sqlite3';
import { SystemError } from '../core/index.ts';
import type { VectorRow, VectorRows } from '../core/stores.ts';

/** Parse a stored JSON column; a row that is not JSON is a typed `corrupt_row` error naming `what`. */
export function parseRow<T>(text: string, what: string): T {
  try {
    return JSON.parse(text) as T;
  } catch (cause) {
    throw new SystemError(`a stored ${what} is corrupt`, { code: 'corrupt_row', cause, details: { what } });
  }
}

/** The `vectors` table as the rows a {@link PersistedVectorBackend} writes through: one transaction per call. */
export class SqliteVectorRows implements VectorRows {
  readonly #statements;
  readonly #put: (profile: string, rows: readonly VectorRow[]) => void;
  readonly #delete: (profile: string, ids: readonly string[]) => void;

  constructor(db: Database.Database) {
    const statements = {
      load: db.prepare<[string], { id: string; vector: Buffer; metadata: string }>('SELECT id, vector, metadata FROM vectors WHERE profile = ?'),
      put: db.prepare('INSERT OR REPLACE INTO vectors (profile, id, vector, metadata) VALUES (?, ?, ?, ?)'),
      delete: db.prepare('DELETE FROM vectors WHERE profile = ? AND id = ?'),
    };
    this.#statements = statements;
    this.#put = db.transaction((profile: string, rows: readonly VectorRow[]) => {
      for (const row of rows)
        statements.put.run(
          profile,
          row.id,
          row.bytes instanceof Uint8Array ? Buffer.from(row.bytes.buffer, row.bytes.byteOffset, row.bytes.byteLength) : Buffer.from(row.bytes),
          JSON.stringify(row.metadata),
        );
    });
    this.#delete = db.transaction((profile: string, ids: readonly string[]) => {
      for (const id of ids) statements.delete.run(profile, id);
    });
  }

  load(profile: string): VectorRow[] {
    return this.#statements.load
      .all(profile)
      .map((row) => ({ id: row.id, bytes: row.vector, metadata: parseRow<Record<string, unknown>>(row.metadata, `vector ${row.id}`) }));
  }

  put(profile: string, rows: readonly VectorRow[]): void {
    this.#put(profile, rows);
  }

  delete(profile: string, ids: readonly string[]): void {
    this.#delete(profile, ids);
  }
}
