import type Database from 'better-sqlite3';
import { SystemError, type JournalEvent, type JournalEventType } from '../core/index.ts';
import { isWellFormed } from '../core/stores.ts';
import { parseRow } from './sqliteVectorRows.ts';

/** A row of the events table. */
export interface EventRow {
  run_id: string;
  seq: number;
  type: string;
  at: number;
  data: string;
  prev: string;
  hash: string;
}

/** The event a row holds; a row that is not a well-formed event fails with `corrupt_row`. */
export function eventOfRow(row: EventRow): JournalEvent {
  const event = {
    runId: row.run_id,
    seq: row.seq,
    type: row.type,
    at: row.at,
    data: parseRow<Record<string, unknown>>(row.data, `event ${row.run_id}#${row.seq}`),
    prev: row.prev,
    hash: row.hash,
  };
  if (!isWellFormed(event)) throw new SystemError(`stored event ${row.run_id}#${row.seq} is corrupt`, { code: 'corrupt_row' });
  return event;
}

const COLUMNS = 'run_id, seq, type, at, data, prev, hash';

/**
 * A journal read in parts, by seq range on the events table's unique index (run_id, seq): a page,
 * or the events of a few types. Backs `SqliteStore`'s `readJournalPage` and `readJournalOfTypes`.
 */
export class SqliteJournalReads {
  readonly #page: Database.Statement<[string, number, number], EventRow>;
  readonly #ofTypes: Database.Statement<[string, number, string], EventRow>;

  constructor(db: Database.Database) {
    this.#page = db.prepare(`SELECT ${COLUMNS} FROM events WHERE run_id = ? AND seq >= ? ORDER BY seq LIMIT ?`);
    // The scan reads the run's rows but parses the data of the few it keeps.
    this.#ofTypes = db.prepare(`SELECT ${COLUMNS} FROM events WHERE run_id = ? AND seq <= ? AND type IN (SELECT value FROM json_each(?)) ORDER BY seq`);
  }

  /** At most `limit` events from `fromSeq` on, in order. */
  page(runId: string, fromSeq: number, limit: number): JournalEvent[] {
    return this.#page.all(runId, fromSeq, Math.max(0, Math.floor(limit))).map(eventOfRow);
  }

  /** The events up to `toSeq` whose type is one of `types`, in order. */
  ofTypes(runId: string, types: readonly JournalEventType[], toSeq: number): JournalEvent[] {
    return this.#ofTypes.all(runId, toSeq, JSON.stringify(types)).map(eventOfRow);
  }
}
