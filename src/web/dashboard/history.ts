// The playground's own history: every goal run from this browser, kept in IndexedDB (in a
// database of its own, apart from the runtime's journals) so past runs stay listed across
// reloads in both modes, even when the server that ran them is out of reach.
import { Dexie, type Table } from 'dexie';

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

class HistoryDatabase extends Dexie {
  entries!: Table<HistoryEntry, number>;

  constructor() {
    super('cugar-dashboard');
    this.version(1).stores({ entries: '++id, at, runId' });
  }
}

/** How many entries are kept; older ones are dropped. */
const KEEP = 200;

let db: HistoryDatabase | undefined;
const open = () => (db ??= new HistoryDatabase());

export async function recordRun(entry: Omit<HistoryEntry, 'id' | 'at' | 'origin'>): Promise<void> {
  const entries = open().entries;
  await open().transaction('rw', entries, async () => {
    const existing = await entries.where('runId').equals(entry.runId).first();
    if (existing?.id !== undefined) await entries.update(existing.id, { status: entry.status });
    else await entries.add({ ...entry, origin: location.origin, at: Date.now() });
    const count = await entries.count();
    if (count > KEEP) await entries.orderBy('at').limit(count - KEEP).delete();
  });
}

export async function recentRuns(limit = 20): Promise<HistoryEntry[]> {
  return open().entries.orderBy('at').reverse().limit(limit).toArray();
}

export async function clearHistory(): Promise<void> {
  await open().entries.clear();
}
