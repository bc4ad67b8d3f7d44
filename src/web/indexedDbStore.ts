import Dexie, { type Table } from 'dexie';
import {
  FlatVectorIndex,
  ResourceError,
  SystemError,
  ValidationError,
  checkBatch,
  filterFacts,
  isWellFormed,
  parseOrThrow,
  ProfileNameSchema,
  VectorSearchOptionsSchema,
  type AppendBatch,
  type ApprovalFilter,
  type ApprovalRecord,
  type BudgetUsage,
  type FactQuery,
  type FactRecord,
  type JournalEvent,
  type MemoryStore,
  type RunFilter,
  type RunSummary,
  type Store,
  type VectorBackend,
  type VectorHit,
  type VectorRecord,
  type VectorSearchOptions,
} from '../core/index.ts';

interface UsageRow extends BudgetUsage {
  profile: string;
}

interface VectorRow {
  profile: string;
  id: string;
  /** Little-endian Float32 bytes. */
  vector: ArrayBuffer;
  metadata: Record<string, unknown>;
}

/** The CUGAr IndexedDB schema, through Dexie. */
export class CugarDatabase extends Dexie {
  events!: Table<JournalEvent, [string, number]>;
  runs!: Table<RunSummary, string>;
  approvals!: Table<ApprovalRecord, string>;
  usage!: Table<UsageRow, string>;
  facts!: Table<FactRecord, string>;
  vectors!: Table<VectorRow, [string, string]>;

  constructor(name: string, options: { indexedDB?: IDBFactory; IDBKeyRange?: typeof IDBKeyRange } = {}) {
    // Strict durability: a commit is on disk before it resolves (Chromium otherwise relaxes it).
    super(name, { chromeTransactionDurability: 'strict', ...options });
    this.version(1).stores({
      events: '[runId+seq], runId',
      runs: 'runId, status, profile, traceId, createdAt',
      approvals: 'approvalId, status, runId, profile, requestedAt',
      usage: 'profile',
      facts: 'id, profile, [profile+namespace]',
      vectors: '[profile+id], profile',
    });
  }
}

interface Pending {
  batch: AppendBatch;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** Map IndexedDB failures to typed errors: a full disk is a RESOURCE failure the caller can act on. */
export function storageError(error: unknown): Error {
  const names = [(error as { name?: string })?.name, (error as { inner?: { name?: string } })?.inner?.name];
  if (names.includes('QuotaExceededError')) {
    return new ResourceError('browser storage is full: nothing was written; free space or export and clear old runs', { code: 'quota_exceeded', cause: error, retryable: false });
  }
  if (names.includes('DatabaseClosedError')) return new SystemError('the database was closed (another tab upgraded it or the page is closing)', { code: 'store_closed', cause: error });
  return error instanceof Error ? error : new SystemError(String(error), { code: 'storage_failed' });
}

/**
 * The browser {@link Store} and {@link MemoryStore} on IndexedDB (via Dexie): journals,
 * runs, approvals, profile spending, facts and vectors, all in one database. Journal writes
 * use strict durability and group commit: appends made in the same turn share one
 * transaction, each batch checked against its run's head first, so a batch is written whole
 * or not at all. When another tab upgrades the database, this connection closes cleanly.
 */
export class IndexedDbStore implements Store, MemoryStore {
  readonly db: CugarDatabase;
  #queue: Pending[] = [];
  #scheduled = false;
  #closedByOtherTab = false;
  /** Last committed head per run written or read by this connection. */
  readonly #heads = new Map<string, { seq: number; hash: string }>();

  readonly #groupCommit: boolean;

  /**
   * @param options.groupCommit coalesce the appends of one turn into one transaction (default true); false commits each append on its own.
   */
  constructor(name = 'cugar', options: { indexedDB?: IDBFactory; IDBKeyRange?: typeof IDBKeyRange; groupCommit?: boolean } = {}) {
    const { groupCommit = true, ...dexieOptions } = options;
    this.#groupCommit = groupCommit;
    this.db = new CugarDatabase(name, dexieOptions);
    this.db.on('versionchange', () => {
      this.#closedByOtherTab = true;
      this.db.close();
      return false;
    });
  }

  /** Whether another tab's upgrade closed this connection. */
  get closedByOtherTab(): boolean {
    return this.#closedByOtherTab;
  }

  async open(): Promise<this> {
    await this.db.open();
    return this;
  }

  append(batch: AppendBatch): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#queue.push({ batch, resolve, reject });
      if (!this.#groupCommit) {
        void this.#flush();
        return;
      }
      if (!this.#scheduled) {
        this.#scheduled = true;
        // Let every append of this turn join the same transaction.
        setTimeout(() => void this.#flush(), 0);
      }
    });
  }

  async #flush(): Promise<void> {
    const items = this.#queue;
    this.#queue = [];
    this.#scheduled = false;
    try {
      const refused = await this.#commit(items);
      this.#settle(items, refused);
    } catch (error) {
      // Another tab wrote one of these runs between our head check and our write (the
      // primary key refused a second event at a position): retry one batch at a time,
      // reading every head from the database, so only the stale batch fails.
      if (items.length > 1 && (error as { name?: string; inner?: { name?: string } })?.inner?.name === 'ConstraintError') {
        this.#heads.clear();
        for (const item of items) {
          try {
            this.#settle([item], await this.#commit([item]));
          } catch (single) {
            item.reject(storageError(single));
          }
        }
        return;
      }
      this.#heads.clear();
      const typed = storageError(error);
      for (const item of items) item.reject(typed);
    }
  }

  #settle(items: readonly Pending[], refused: ReadonlyMap<Pending, unknown>): void {
    for (const item of items) {
      const error = refused.get(item);
      if (error === undefined) item.resolve();
      else item.reject(error);
    }
  }

  /** Write the acceptable batches in one transaction; returns the refused ones with their errors. */
  async #commit(items: readonly Pending[]): Promise<Map<Pending, unknown>> {
    const refused = new Map<Pending, unknown>();
    const heads = new Map<string, { seq: number; hash: string } | undefined>();
    await this.db.transaction('rw', [this.db.events, this.db.runs, this.db.approvals, this.db.usage], async () => {
      const events: JournalEvent[] = [];
      const runs = new Map<string, RunSummary>();
      const approvals: ApprovalRecord[] = [];
      const usage = new Map<string, BudgetUsage>();
      const readHead = async (runId: string) => {
        const last = await this.db.events.where('[runId+seq]').between([runId, Dexie.minKey], [runId, Dexie.maxKey]).last();
        return last ? { seq: last.seq, hash: last.hash } : undefined;
      };
      for (const item of items) {
        const { batch } = item;
        // Heads this connection wrote are cached; anything else is read from the database.
        const fromCache = !heads.has(batch.runId) && this.#heads.has(batch.runId);
        if (!heads.has(batch.runId)) heads.set(batch.runId, this.#heads.get(batch.runId) ?? (await readHead(batch.runId)));
        try {
          checkBatch(batch, heads.get(batch.runId));
        } catch (error) {
          // A cached head may be stale (another tab moved the run on): the database decides.
          const fresh = fromCache ? await readHead(batch.runId) : undefined;
          if (!fresh) {
            refused.set(item, error);
            continue;
          }
          heads.set(batch.runId, fresh);
          try {
            checkBatch(batch, fresh);
          } catch (again) {
            refused.set(item, again);
            continue;
          }
        }
        const last = batch.events.at(-1)!;
        heads.set(batch.runId, { seq: last.seq, hash: last.hash });
        events.push(...batch.events);
        runs.set(batch.runId, batch.run);
        approvals.push(...(batch.approvals ?? []));
        if (batch.profileUsage) {
          const { profile, delta } = batch.profileUsage;
          const sum = usage.get(profile) ?? { cost: 0, calls: 0, tokens: 0 };
          usage.set(profile, { cost: sum.cost + delta.cost, calls: sum.calls + delta.calls, tokens: sum.tokens + delta.tokens });
        }
      }
      if (events.length === 0) return;
      await this.db.events.bulkAdd(events);
      await this.db.runs.bulkPut([...runs.values()]);
      if (approvals.length) await this.db.approvals.bulkPut(approvals);
      for (const [profile, delta] of usage) {
        const used = (await this.db.usage.get(profile)) ?? { profile, cost: 0, calls: 0, tokens: 0 };
        await this.db.usage.put({ profile, cost: used.cost + delta.cost, calls: used.calls + delta.calls, tokens: used.tokens + delta.tokens });
      }
    });
    for (const [runId, head] of heads) {
      if (head) this.#heads.set(runId, head);
    }
    for (const [item] of refused) this.#heads.delete(item.batch.runId);
    return refused;
  }

  async readJournal(runId: string, fromSeq = 0): Promise<JournalEvent[]> {
    const rows = await this.#read(() => this.db.events.where('[runId+seq]').between([runId, fromSeq], [runId, Dexie.maxKey]).toArray());
    for (const row of rows) if (!isWellFormed(row)) throw new SystemError(`stored event ${runId}#${(row as { seq?: unknown }).seq} is corrupt`, { code: 'corrupt_row' });
    return rows;
  }

  getRun(runId: string): Promise<RunSummary | undefined> {
    return this.#read(() => this.db.runs.get(runId));
  }

  async listRuns(filter: RunFilter = {}): Promise<RunSummary[]> {
    const rows = await this.#read(() => (filter.status ? this.db.runs.where('status').equals(filter.status).toArray() : this.db.runs.toArray()));
    const runs = rows
      .filter((r) => (!filter.profile || r.profile === filter.profile) && (!filter.traceId || r.traceId === filter.traceId))
      .sort((a, b) => b.createdAt - a.createdAt || (a.runId < b.runId ? -1 : 1));
    return filter.limit ? runs.slice(0, filter.limit) : runs;
  }

  getApproval(approvalId: string): Promise<ApprovalRecord | undefined> {
    return this.#read(() => this.db.approvals.get(approvalId));
  }

  async listApprovals(filter: ApprovalFilter = {}): Promise<ApprovalRecord[]> {
    const rows = await this.#read(() => (filter.status ? this.db.approvals.where('status').equals(filter.status).toArray() : this.db.approvals.toArray()));
    return rows
      .filter((a) => (!filter.profile || a.profile === filter.profile) && (!filter.runId || a.runId === filter.runId))
      .sort((a, b) => a.requestedAt - b.requestedAt || (a.approvalId < b.approvalId ? -1 : 1));
  }

  async getProfileUsage(profile: string): Promise<BudgetUsage> {
    const row = await this.#read(() => this.db.usage.get(profile));
    return row ? { cost: row.cost, calls: row.calls, tokens: row.tokens } : { cost: 0, calls: 0, tokens: 0 };
  }

  // ---- MemoryStore

  async putFacts(facts: readonly FactRecord[]): Promise<void> {
    await this.#write(() => this.db.facts.bulkPut([...facts]));
  }

  async queryFacts(profile: string, query?: FactQuery): Promise<FactRecord[]> {
    const rows = await this.#read(() =>
      query?.namespace ? this.db.facts.where('[profile+namespace]').equals([profile, query.namespace]).toArray() : this.db.facts.where('profile').equals(profile).toArray(),
    );
    return filterFacts(rows, query);
  }

  async namespaces(profile: string): Promise<string[]> {
    const rows = await this.#read(() => this.db.facts.where('profile').equals(profile).toArray());
    return [...new Set(rows.map((f) => f.namespace))].sort();
  }

  async deleteFacts(profile: string, namespace?: string): Promise<number> {
    return this.#write(() => (namespace ? this.db.facts.where('[profile+namespace]').equals([profile, namespace]).delete() : this.db.facts.where('profile').equals(profile).delete()));
  }

  /** A {@link VectorBackend} persisted in this database. */
  vectors(dimension: number): VectorBackend {
    return new IndexedDbVectorBackend(this, dimension);
  }

  async close(): Promise<void> {
    this.db.close();
  }

  async #read<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      throw storageError(error);
    }
  }

  async #write<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      throw storageError(error);
    }
  }
}

/** Bytes of a Float32Array as a fresh ArrayBuffer. */
function toBuffer(vector: Float32Array): ArrayBuffer {
  return vector.slice().buffer as ArrayBuffer;
}

/**
 * Vectors kept in IndexedDB as Float32 bytes and searched in memory: a profile's vectors are
 * loaded once into a {@link FlatVectorIndex} (no re-embedding), and every write goes to disk
 * first, then to the index.
 */
export class IndexedDbVectorBackend implements VectorBackend {
  readonly dimension: number;
  readonly #store: IndexedDbStore;
  readonly #loaded = new Map<string, Promise<FlatVectorIndex>>();

  constructor(store: IndexedDbStore, dimension: number) {
    if (!Number.isInteger(dimension) || dimension < 1) throw new ValidationError(`dimension must be a positive integer, got ${dimension}`, { code: 'invalid_dimension' });
    this.#store = store;
    this.dimension = dimension;
  }

  async connect(): Promise<void> {
    await this.#store.open();
  }

  #index(profile: string): Promise<FlatVectorIndex> {
    parseOrThrow(ProfileNameSchema, profile, 'profile', 'invalid_profile');
    let index = this.#loaded.get(profile);
    if (!index) {
      index = (async () => {
        const rows = await this.#store.db.vectors.where('profile').equals(profile).toArray();
        const flat = new FlatVectorIndex(this.dimension, rows.length);
        flat.upsert(
          rows.map((row) => {
            if (!(row.vector instanceof ArrayBuffer) || row.vector.byteLength !== this.dimension * 4) {
              throw new SystemError(`stored vector ${profile}/${row.id} is corrupt (${(row.vector as ArrayBuffer | undefined)?.byteLength ?? 0} bytes, expected ${this.dimension * 4})`, { code: 'corrupt_row' });
            }
            return { id: row.id, vector: new Float32Array(row.vector), metadata: row.metadata };
          }),
        );
        return flat;
      })();
      this.#loaded.set(profile, index);
      index.catch(() => this.#loaded.delete(profile));
    }
    return index;
  }

  async upsert(profile: string, records: readonly VectorRecord[]): Promise<void> {
    const index = await this.#index(profile);
    for (const record of records) index.validate(record);
    try {
      await this.#store.db.vectors.bulkPut(records.map((r) => ({ profile, id: r.id, vector: toBuffer(r.vector), metadata: { ...(r.metadata ?? {}) } })));
    } catch (error) {
      throw storageError(error);
    }
    index.upsert(records);
  }

  async search(profile: string, query: Float32Array, options?: VectorSearchOptions): Promise<VectorHit[]> {
    parseOrThrow(VectorSearchOptionsSchema, options ?? {}, 'search options');
    return (await this.#index(profile)).search(query, options);
  }

  async delete(profile: string, ids: readonly string[]): Promise<number> {
    const index = await this.#index(profile);
    try {
      await this.#store.db.vectors.bulkDelete(ids.map((id) => [profile, id] as [string, string]));
    } catch (error) {
      throw storageError(error);
    }
    return index.delete(ids);
  }

  async count(profile: string): Promise<number> {
    return (await this.#index(profile)).size;
  }

  async list(profile: string, options: { vectors?: boolean } = {}): Promise<VectorRecord[]> {
    return (await this.#index(profile)).records(options.vectors === true);
  }
}

/** Ask the browser to keep this origin's storage under pressure; resolves to whether it agreed. */
export async function requestPersistentStorage(storage: StorageManager | undefined = globalThis.navigator?.storage): Promise<boolean> {
  if (!storage?.persist) return false;
  try {
    return (await storage.persisted?.()) || (await storage.persist());
  } catch {
    return false;
  }
}
