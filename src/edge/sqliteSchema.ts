import type Database from 'better-sqlite3';

/**
 * Journal events in the order they were written, with a run's events found by the unique index
 * on (run_id, seq). Concurrent runs append to one table: kept in insertion order, a group commit's
 * events share a few pages at the table's end, where a table ordered by (run_id, seq) took a page
 * per run, each written again to the WAL and synced (about 4.7 times the WAL frames).
 */
const EVENTS_SCHEMA = `
CREATE TABLE IF NOT EXISTS events (
  run_id TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL, at REAL NOT NULL,
  data TEXT NOT NULL, prev TEXT NOT NULL, hash TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS events_by_run ON events (run_id, seq);
`;

/** The SQLite store's tables (the log of heads adds its own, see `sqliteHeadLog.ts`). */
export const STORE_SCHEMA = `${EVENTS_SCHEMA}
CREATE TABLE IF NOT EXISTS runs (
  run_id TEXT PRIMARY KEY, trace_id TEXT NOT NULL, profile TEXT NOT NULL, status TEXT NOT NULL,
  created_at REAL NOT NULL, summary TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS runs_by_status ON runs (status, created_at);
CREATE INDEX IF NOT EXISTS runs_by_profile ON runs (profile, created_at);
CREATE INDEX IF NOT EXISTS runs_by_trace ON runs (trace_id);
CREATE TABLE IF NOT EXISTS approvals (
  approval_id TEXT PRIMARY KEY, run_id TEXT NOT NULL, profile TEXT NOT NULL, status TEXT NOT NULL,
  requested_at REAL NOT NULL, record TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS approvals_by_status ON approvals (status, requested_at);
CREATE INDEX IF NOT EXISTS approvals_by_run ON approvals (run_id);
CREATE TABLE IF NOT EXISTS profile_usage (
  profile TEXT PRIMARY KEY, cost REAL NOT NULL, calls INTEGER NOT NULL, tokens INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS facts (
  id TEXT PRIMARY KEY, profile TEXT NOT NULL, namespace TEXT NOT NULL, at REAL NOT NULL, record TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS facts_by_namespace ON facts (profile, namespace, at);
CREATE TABLE IF NOT EXISTS vectors (
  profile TEXT NOT NULL, id TEXT NOT NULL, vector BLOB NOT NULL, metadata TEXT NOT NULL,
  PRIMARY KEY (profile, id)
) WITHOUT ROWID;
`;

/** A `WHERE a = ? AND b = ?` clause for the filters that are set (column names are fixed by the caller, values are bound). */
export function whereEquals(filters: Record<string, string | undefined>): { where: string; params: string[] } {
  const set = Object.entries(filters).filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== '');
  return { where: set.length ? `WHERE ${set.map(([column]) => `${column} = ?`).join(' AND ')}` : '', params: set.map(([, value]) => value) };
}

/**
 * A database whose events table is still ordered by (run_id, seq) (`WITHOUT ROWID`, before the
 * table kept insertion order) has its events moved into the current table, once, in one
 * transaction that holds the write lock (a second process opening it meanwhile finds it done).
 * Each run's events stay together and in order; nothing else changes.
 */
export function migrateEvents(db: Database.Database): void {
  const layout = db.prepare<[], { sql: string }>("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = 'events'");
  const migrate = db.transaction(() => {
    if (!/WITHOUT\s+ROWID/i.test(layout.get()?.sql ?? '')) return;
    db.exec('ALTER TABLE events RENAME TO events_by_key');
    db.exec(EVENTS_SCHEMA);
    db.exec(
      'INSERT INTO events (run_id, seq, type, at, data, prev, hash) SELECT run_id, seq, type, at, data, prev, hash FROM events_by_key ORDER BY run_id, seq',
    );
    db.exec('DROP TABLE events_by_key');
  });
  if (/WITHOUT\s+ROWID/i.test(layout.get()?.sql ?? '')) migrate.immediate();
}
