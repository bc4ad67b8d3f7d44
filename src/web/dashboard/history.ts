// The playground's own history: every goal run from this browser, kept in IndexedDB (in a
// database of its own, apart from the runtime's journals) so past runs stay listed across
// reloads in both modes, even when the server that ran them is out of reach.
import type { Dexie as DexieType, Table } from 'dexie';

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

type HistoryDatabase = DexieType & { entries: Table<HistoryEntry, number> };

/** How many entries are kept; older ones are dropped. */
const KEEP = 200;

let db: Promise<HistoryDatabase> | undefined;
// Dexie loads with the first use, so it stays out of the dashboard's first load.
const open = () =>
  (db ??= import('dexie').then(({ Dexie }) => {
    const database = new Dexie('cugar-dashboard') as HistoryDatabase;
    database.version(1).stores({ entries: '++id, at, runId' });
    return database;
  }));

export async function recordRun(entry: Omit<HistoryEntry, 'id' | 'at' | 'origin'>): Promise<void> {
  const database = await open();
  const entries = database.entries;
  await database.transaction('rw', entries, async () => {
    const existing = await entries.where('runId').equals(entry.runId).first();
    if (existing?.id !== undefined) await entries.update(existing.id, { status: entry.status });
    else await entries.add({ ...entry, origin: location.origin, at: Date.now() });
    const count = await entries.count();
    if (count > KEEP) await entries.orderBy('at').limit(count - KEEP).delete();
  });
}

/** Record where a run from this list stands now; runs not on the list are left off it. */
export async function updateRunStatus(runId: string, status: string): Promise<void> {
  const database = await open();
  await database.entries.where('runId').equals(runId).modify({ status });
}

export async function recentRuns(limit = 20): Promise<HistoryEntry[]> {
  return (await open()).entries.orderBy('at').reverse().limit(limit).toArray();
}

export async function clearHistory(): Promise<void> {
  await (await open()).entries.clear();
}
