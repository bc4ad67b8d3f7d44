// The playground's own history: every goal run from this browser, kept in IndexedDB (in a
// database of its own, apart from the runtime's journals) so past runs stay listed across
// reloads in both modes, even when the server that ran them is out of reach.
import type { DBSchema, IDBPDatabase } from 'idb';

export interface HistoryEntry {
  id?: number;
  goal: string;
  profile: string;
  runId: string;
  status: string;
  /** Where it ran: in this browser or on the server at `origin`. */
  mode: 'local' | 'remote';
  origin: string;
  at: number;
}

interface HistorySchema extends DBSchema {
  entries: { key: number; value: HistoryEntry; indexes: { at: number; runId: string } };
}

/** How many entries are kept; older ones are dropped. */
const KEEP = 200;

/**
 * The database's IndexedDB version. The history was first kept with Dexie, which stores its
 * schema version 1 as 10; opening at 10 keeps the entries browsers already have.
 */
const VERSION = 10;

let db: Promise<IDBPDatabase<HistorySchema>> | undefined;
// idb loads with the first use, so it stays out of the dashboard's first load.
const open = () =>
  (db ??= import('idb').then(({ openDB }) =>
    openDB<HistorySchema>('cugar-dashboard', VERSION, {
      upgrade(database) {
        if (database.objectStoreNames.contains('entries')) return;
        const entries = database.createObjectStore('entries', { keyPath: 'id', autoIncrement: true });
        entries.createIndex('at', 'at');
        entries.createIndex('runId', 'runId');
      },
    }),
  ));

export async function recordRun(entry: Omit<HistoryEntry, 'id' | 'at' | 'origin'>): Promise<void> {
  const tx = (await open()).transaction('entries', 'readwrite');
  const entries = tx.store;
  const existing = await entries.index('runId').get(entry.runId);
  if (existing) await entries.put({ ...existing, status: entry.status });
  else await entries.add({ ...entry, origin: location.origin, at: Date.now() });
  // The oldest entries beyond KEEP go, in the same transaction as the one added.
  let excess = (await entries.count()) - KEEP;
  if (excess > 0) {
    let cursor = await entries.index('at').openCursor();
    while (cursor && excess-- > 0) {
      await cursor.delete();
      cursor = await cursor.continue();
    }
  }
  await tx.done;
}

/** Record where a run from this list stands now; runs not on the list are left off it. */
export async function updateRunStatus(runId: string, status: string): Promise<void> {
  const tx = (await open()).transaction('entries', 'readwrite');
  for (let cursor = await tx.store.index('runId').openCursor(runId); cursor; cursor = await cursor.continue()) await cursor.update({ ...cursor.value, status });
  await tx.done;
}

/** The `limit` most recent entries, newest first. */
export async function recentRuns(limit = 20): Promise<HistoryEntry[]> {
  const runs: HistoryEntry[] = [];
  const index = (await open()).transaction('entries').store.index('at');
  for (let cursor = await index.openCursor(null, 'prev'); cursor && runs.length < limit; cursor = await cursor.continue()) runs.push(cursor.value);
  return runs;
}

export async function clearHistory(): Promise<void> {
  await (await open()).clear('entries');
}
