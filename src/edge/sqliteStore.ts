import Database from 'better-sqlite3';
import { ConflictError, FlatVectorIndex, ProfileNameSchema, SystemError, ValidationError, VectorSearchOptionsSchema, canonicalJson, checkBatch, filterFacts, isWellFormed, parseOrThrow } from '../core/index.ts';
import type {
  AppendBatch,
  ApprovalFilter,
  ApprovalRecord,
  BudgetUsage,
  FactQuery,
  FactRecord,
  JournalEvent,
  JournalHead,
  MemoryStore,
  RunFilter,
  RunSummary,
  Store,
  VectorBackend,
  VectorHit,
  VectorRecord,
  VectorSearchOptions,
} from '../core/index.ts';

/** Options of {@link SqliteStore}. */
export interface SqliteStoreOptions {
  /**
   * Coalesce appends made in the same turn of the event loop into one transaction (one
   * fsync). Each batch stays atomic on its own (a savepoint), and each append resolves only
   * after its transaction committed. Default true.
   */
  groupCommit?: boolean;
  /** SQLite `synchronous`: `FULL` survives power loss, `NORMAL` (in WAL mode) survives process crashes. Default `FULL`. */
  synchronous?: 'FULL' | 'NORMAL';
}

interface Pending {
  batch: AppendBatch;
  resolve: () => void;
  reject: (error: unknown) => void;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS events (
  run_id TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL, at REAL NOT NULL,
  data TEXT NOT NULL, prev TEXT NOT NULL, hash TEXT NOT NULL,
  PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
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
function whereEquals(filters: Record<string, string | undefined>): { where: string; params: string[] } {
  const set = Object.entries(filters).filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== '');
  return { where: set.length ? `WHERE ${set.map(([column]) => `${column} = ?`).join(' AND ')}` : '', params: set.map(([, value]) => value) };
}

function parseRow<T>(text: string, what: string): T {
  try {
    return JSON.parse(text) as T;
  } catch (cause) {
    throw new SystemError(`a stored ${what} is corrupt`, { code: 'corrupt_row', cause, details: { what } });
  }
}

/**
 * The SQLite {@link Store} for Node hosts, on better-sqlite3: synchronous, in-process, the
 * fastest SQLite binding for Node, and it builds from source where prebuilt binaries cannot be
 * fetched. WAL mode; journal batches written atomically, coalesced by group commit.
 */
export class SqliteStore implements Store, MemoryStore {
  readonly path: string;
  readonly #db: Database.Database;
  readonly #groupCommit: boolean;
  #queue: Pending[] = [];
  #scheduled = false;
  #closed = false;
  /** Last known head per run; only what this connection committed or read. */
  readonly #heads = new Map<string, JournalHead>();
  /** Heads written by the transaction in progress, kept once it commits. */
  readonly #pendingHeads = new Map<string, JournalHead>();
  readonly #statements;

  constructor(path: string, options: SqliteStoreOptions = {}) {
    this.path = path;
    this.#groupCommit = options.groupCommit ?? true;
    this.#db = new Database(path);
    this.#db.pragma('journal_mode = WAL');
    this.#db.pragma(`synchronous = ${options.synchronous ?? 'FULL'}`);
    this.#db.pragma('busy_timeout = 5000');
    this.#db.exec(SCHEMA);
    const db = this.#db;
    this.#statements = {
      head: db.prepare<[string], { seq: number; hash: string }>('SELECT seq, hash FROM events WHERE run_id = ? ORDER BY seq DESC LIMIT 1'),
      insertEvent: db.prepare('INSERT INTO events (run_id, seq, type, at, data, prev, hash) VALUES (?, ?, ?, ?, ?, ?, ?)'),
      upsertRun: db.prepare(
        'INSERT INTO runs (run_id, trace_id, profile, status, created_at, summary) VALUES (@runId, @traceId, @profile, @status, @createdAt, @summary) ON CONFLICT (run_id) DO UPDATE SET status = excluded.status, summary = excluded.summary',
      ),
      upsertApproval: db.prepare(
        'INSERT INTO approvals (approval_id, run_id, profile, status, requested_at, record) VALUES (@approvalId, @runId, @profile, @status, @requestedAt, @record) ON CONFLICT (approval_id) DO UPDATE SET status = excluded.status, record = excluded.record',
      ),
      addUsage: db.prepare(
        'INSERT INTO profile_usage (profile, cost, calls, tokens) VALUES (@profile, @cost, @calls, @tokens) ON CONFLICT (profile) DO UPDATE SET cost = cost + excluded.cost, calls = calls + excluded.calls, tokens = tokens + excluded.tokens',
      ),
      journal: db.prepare<[string, number], { run_id: string; seq: number; type: string; at: number; data: string; prev: string; hash: string }>(
        'SELECT run_id, seq, type, at, data, prev, hash FROM events WHERE run_id = ? AND seq >= ? ORDER BY seq',
      ),
      run: db.prepare<[string], { summary: string }>('SELECT summary FROM runs WHERE run_id = ?'),
      approval: db.prepare<[string], { record: string }>('SELECT record FROM approvals WHERE approval_id = ?'),
      usage: db.prepare<[string], BudgetUsage>('SELECT cost, calls, tokens FROM profile_usage WHERE profile = ?'),
      savepoint: db.prepare('SAVEPOINT batch'),
      release: db.prepare('RELEASE batch'),
      rollbackTo: db.prepare('ROLLBACK TO batch'),
    };
  }

  append(batch: AppendBatch): Promise<void> {
    if (this.#closed) return Promise.reject(new SystemError('the store is closed', { code: 'store_closed' }));
    if (!this.#groupCommit) {
      try {
        this.#db.transaction(() => this.#write(batch))();
        this.#commitHeads();
        return Promise.resolve();
      } catch (error) {
        this.#pendingHeads.clear();
        this.#heads.delete(batch.runId);
        return Promise.reject(error);
      }
    }
    return new Promise<void>((resolve, reject) => {
      this.#queue.push({ batch, resolve, reject });
      if (!this.#scheduled) {
        this.#scheduled = true;
        // Let every append of this turn (other runs, other requests) join the same commit.
        setImmediate(() => this.#flush());
      }
    });
  }

  /** Write everything queued now, in one transaction. */
  #flush(): void {
    const items = this.#queue;
    this.#queue = [];
    this.#scheduled = false;
    if (items.length === 0) return;
    const failures = new Map<Pending, unknown>();
    try {
      this.#db.transaction(() => {
        for (const item of items) {
          // A savepoint per batch: one refused batch does not take the others down.
          this.#statements.savepoint.run();
          try {
            this.#write(item.batch);
            this.#statements.release.run();
          } catch (error) {
            this.#statements.rollbackTo.run();
            this.#statements.release.run();
            this.#pendingHeads.delete(item.batch.runId);
            this.#heads.delete(item.batch.runId);
            failures.set(item, error);
          }
        }
      })();
    } catch (error) {
      this.#pendingHeads.clear();
      for (const item of items) item.reject(new SystemError('the journal write failed', { code: 'write_failed', cause: error }));
      return;
    }
    this.#commitHeads();
    for (const item of items) {
      const failure = failures.get(item);
      if (failure === undefined) item.resolve();
      else item.reject(failure);
    }
  }

  #commitHeads(): void {
    for (const [runId, head] of this.#pendingHeads) this.#heads.set(runId, head);
    this.#pendingHeads.clear();
  }

  /** Flush queued appends now (used on shutdown). */
  flush(): void {
    if (this.#queue.length) this.#flush();
  }

  #write(batch: AppendBatch): void {
    // Heads this connection wrote or read are cached; on a mismatch the database decides,
    // since another process may have moved the run on. The primary key (run_id, seq) refuses
    // any second event at a position, so a stale cache can never fork a journal.
    const cached = this.#pendingHeads.get(batch.runId) ?? this.#heads.get(batch.runId);
    try {
      checkBatch(batch, cached);
    } catch (error) {
      const row = this.#statements.head.get(batch.runId);
      const head: JournalHead | undefined = row ? { seq: row.seq, hash: row.hash } : undefined;
      if (cached === head || (cached && head && cached.seq === head.seq && cached.hash === head.hash)) throw error;
      checkBatch(batch, head);
    }
    for (const event of batch.events) {
      try {
        this.#statements.insertEvent.run(event.runId, event.seq, event.type, event.at, canonicalJson(event.data), event.prev, event.hash);
      } catch (error) {
        if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
          throw new ConflictError(`run ${batch.runId} already has an event at seq ${event.seq}`, { code: 'head_mismatch', cause: error, details: { runId: batch.runId } });
        }
        throw error;
      }
    }
    const run = batch.run;
    this.#statements.upsertRun.run({ runId: run.runId, traceId: run.traceId, profile: run.profile, status: run.status, createdAt: run.createdAt, summary: JSON.stringify(run) });
    for (const approval of batch.approvals ?? []) {
      this.#statements.upsertApproval.run({ approvalId: approval.approvalId, runId: approval.runId, profile: approval.profile, status: approval.status, requestedAt: approval.requestedAt, record: JSON.stringify(approval) });
    }
    if (batch.profileUsage) this.#statements.addUsage.run({ profile: batch.profileUsage.profile, ...batch.profileUsage.delta });
    const last = batch.events.at(-1)!;
    this.#pendingHeads.set(batch.runId, { seq: last.seq, hash: last.hash });
  }

  async readJournal(runId: string, fromSeq = 0): Promise<JournalEvent[]> {
    return this.#statements.journal.all(runId, fromSeq).map((row) => {
      const event = { runId: row.run_id, seq: row.seq, type: row.type, at: row.at, data: parseRow<Record<string, unknown>>(row.data, `event ${row.run_id}#${row.seq}`), prev: row.prev, hash: row.hash };
      if (!isWellFormed(event)) throw new SystemError(`stored event ${row.run_id}#${row.seq} is corrupt`, { code: 'corrupt_row' });
      return event;
    });
  }

  async getRun(runId: string): Promise<RunSummary | undefined> {
    const row = this.#statements.run.get(runId);
    return row && parseRow<RunSummary>(row.summary, `run ${runId}`);
  }

  async listRuns(filter: RunFilter = {}): Promise<RunSummary[]> {
    const { where, params } = whereEquals({ status: filter.status, profile: filter.profile, trace_id: filter.traceId });
    if (filter.limit !== undefined && !(Number.isInteger(filter.limit) && filter.limit > 0)) throw new ValidationError('limit must be a positive integer', { code: 'invalid_filter' });
    const sql = `SELECT summary FROM runs ${where} ORDER BY created_at DESC, run_id ASC${filter.limit ? ` LIMIT ${filter.limit}` : ''}`;
    return (this.#db.prepare(sql).all(...params) as Array<{ summary: string }>).map((row) => parseRow<RunSummary>(row.summary, 'run'));
  }

  async getApproval(approvalId: string): Promise<ApprovalRecord | undefined> {
    const row = this.#statements.approval.get(approvalId);
    return row && parseRow<ApprovalRecord>(row.record, `approval ${approvalId}`);
  }

  async listApprovals(filter: ApprovalFilter = {}): Promise<ApprovalRecord[]> {
    const { where, params } = whereEquals({ status: filter.status, profile: filter.profile, run_id: filter.runId });
    const sql = `SELECT record FROM approvals ${where} ORDER BY requested_at ASC, approval_id ASC`;
    return (this.#db.prepare(sql).all(...params) as Array<{ record: string }>).map((row) => parseRow<ApprovalRecord>(row.record, 'approval'));
  }

  async getProfileUsage(profile: string): Promise<BudgetUsage> {
    const row = this.#statements.usage.get(profile);
    return row ? { cost: row.cost, calls: row.calls, tokens: row.tokens } : { cost: 0, calls: 0, tokens: 0 };
  }

  // ---- MemoryStore

  async putFacts(facts: readonly FactRecord[]): Promise<void> {
    const insert = this.#db.prepare('INSERT OR REPLACE INTO facts (id, profile, namespace, at, record) VALUES (?, ?, ?, ?, ?)');
    this.#db.transaction(() => {
      for (const fact of facts) insert.run(fact.id, fact.profile, fact.namespace, fact.at, JSON.stringify(fact));
    })();
  }

  async queryFacts(profile: string, query?: FactQuery): Promise<FactRecord[]> {
    const rows = (
      query?.namespace
        ? this.#db.prepare('SELECT record FROM facts WHERE profile = ? AND namespace = ?').all(profile, query.namespace)
        : this.#db.prepare('SELECT record FROM facts WHERE profile = ?').all(profile)
    ) as Array<{ record: string }>;
    return filterFacts(rows.map((row) => parseRow<FactRecord>(row.record, 'fact')), query);
  }

  async namespaces(profile: string): Promise<string[]> {
    return (this.#db.prepare('SELECT DISTINCT namespace FROM facts WHERE profile = ? ORDER BY namespace').all(profile) as Array<{ namespace: string }>).map((r) => r.namespace);
  }

  async deleteFacts(profile: string, namespace?: string): Promise<number> {
    const result = namespace ? this.#db.prepare('DELETE FROM facts WHERE profile = ? AND namespace = ?').run(profile, namespace) : this.#db.prepare('DELETE FROM facts WHERE profile = ?').run(profile);
    return result.changes;
  }

  /** A {@link VectorBackend} persisted in this database as Float32 blobs. */
  vectors(dimension: number): VectorBackend {
    return new SqliteVectorBackend(this.#db, dimension);
  }

  /** Finish queued appends and close the database. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.flush();
    this.#closed = true;
    this.#db.close();
  }
}

/**
 * Vectors kept in SQLite as little-endian Float32 blobs and searched in memory: a profile's
 * vectors are read once into a {@link FlatVectorIndex} (never re-embedded), and every write
 * goes to the database first, then to the index.
 */
export class SqliteVectorBackend implements VectorBackend {
  readonly dimension: number;
  readonly #db: Database.Database;
  readonly #loaded = new Map<string, FlatVectorIndex>();

  constructor(db: Database.Database, dimension: number) {
    if (!Number.isInteger(dimension) || dimension < 1) throw new ValidationError(`dimension must be a positive integer, got ${dimension}`, { code: 'invalid_dimension' });
    this.#db = db;
    this.dimension = dimension;
  }

  async connect(): Promise<void> {}

  #index(profile: string): FlatVectorIndex {
    parseOrThrow(ProfileNameSchema, profile, 'profile', 'invalid_profile');
    let index = this.#loaded.get(profile);
    if (!index) {
      const rows = this.#db.prepare('SELECT id, vector, metadata FROM vectors WHERE profile = ?').all(profile) as Array<{ id: string; vector: Buffer; metadata: string }>;
      index = new FlatVectorIndex(this.dimension, rows.length);
      index.upsert(
        rows.map((row) => {
          if (row.vector.byteLength !== this.dimension * 4) {
            throw new SystemError(`stored vector ${profile}/${row.id} is corrupt (${row.vector.byteLength} bytes, expected ${this.dimension * 4})`, { code: 'corrupt_row' });
          }
          const vector = new Float32Array(this.dimension);
          new Uint8Array(vector.buffer).set(row.vector);
          return { id: row.id, vector, metadata: parseRow<Record<string, unknown>>(row.metadata, `vector ${row.id}`) };
        }),
      );
      this.#loaded.set(profile, index);
    }
    return index;
  }

  async upsert(profile: string, records: readonly VectorRecord[]): Promise<void> {
    const index = this.#index(profile);
    for (const record of records) index.validate(record);
    const put = this.#db.prepare('INSERT OR REPLACE INTO vectors (profile, id, vector, metadata) VALUES (?, ?, ?, ?)');
    this.#db.transaction(() => {
      for (const r of records) put.run(profile, r.id, Buffer.from(r.vector.buffer, r.vector.byteOffset, r.vector.byteLength), JSON.stringify(r.metadata ?? {}));
    })();
    index.upsert(records);
  }

  async search(profile: string, query: Float32Array, options?: VectorSearchOptions): Promise<VectorHit[]> {
    parseOrThrow(VectorSearchOptionsSchema, options ?? {}, 'search options');
    return this.#index(profile).search(query, options);
  }

  async delete(profile: string, ids: readonly string[]): Promise<number> {
    const index = this.#index(profile);
    const remove = this.#db.prepare('DELETE FROM vectors WHERE profile = ? AND id = ?');
    this.#db.transaction(() => {
      for (const id of ids) remove.run(profile, id);
    })();
    return index.delete(ids);
  }

  async count(profile: string): Promise<number> {
    return this.#index(profile).size;
  }

  async list(profile: string, options: { vectors?: boolean } = {}): Promise<VectorRecord[]> {
    return this.#index(profile).records(options.vectors === true);
  }
}
