import Database from 'better-sqlite3';
import { ConflictError, NotFoundError, SystemError, canonicalJson } from '../core/index.ts';
import {
  GroupCommit,
  HeadCache,
  PersistedVectorBackend,
  ZERO_USAGE,
  checkApprovalOwners,
  checkRunLimit,
  type HeadLog,
  type HeadLogEntry,
  type HeadLogOptions,
  type HeadLogWriter,
} from '../core/stores.ts';
import type {
  AppendBatch,
  ApprovalFilter,
  ApprovalRecord,
  FactQuery,
  FactRecord,
  HostStore,
  JournalEvent,
  JournalEventType,
  RunFilter,
  RunSummary,
  VectorBackend,
} from '../core/index.ts';
import { SqliteFacts } from './sqliteFacts.ts';
import { SqliteHeadLog } from './sqliteHeadLog.ts';
import { migrateEvents, STORE_SCHEMA, whereEquals } from './sqliteSchema.ts';
import { SqliteVectorRows, parseRow } from './sqliteVectorRows.ts';
import { SqliteJournalReads, eventOfRow } from './sqliteJournalReads.ts';

type Usage = NonNullable<AppendBatch['profileUsage']>['delta'];

/** Statuses a run never leaves: only these runs' journals are pruned. */
const FINISHED: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled']);

/** A write failed after a batch had begun writing: the transaction is abandoned and written again batch by batch. */
class PartialWrite extends Error {
  constructor(readonly reason: unknown) {
    super('a journal write failed mid-batch', { cause: reason });
  }
}

/** Options of {@link SqliteStore}. */
export interface SqliteStoreOptions extends HeadLogOptions {
  /**
   * Coalesce appends made in the same turn of the event loop into one transaction (one
   * fsync). Each batch stays atomic on its own, and each append resolves only
   * after its transaction committed. Default true.
   */
  groupCommit?: boolean;
  /** SQLite `synchronous`: `FULL` survives power loss, `NORMAL` (in WAL mode) survives process crashes. Default `FULL`. */
  synchronous?: 'FULL' | 'NORMAL';
}

/**
 * The SQLite {@link HostStore} for Node hosts, on better-sqlite3: synchronous, in-process, the
 * fastest SQLite binding for Node, and it builds from source where prebuilt binaries cannot be
 * fetched. WAL mode; journal batches written atomically, coalesced by group commit (one refused
 * batch does not take the others of its transaction down).
 */
export class SqliteStore implements HostStore {
  readonly path: string;
  readonly #db: Database.Database;
  readonly #commits: GroupCommit<AppendBatch>;
  readonly #facts: SqliteFacts;
  readonly #heads = new HeadCache();
  readonly #log: SqliteHeadLog;
  #closed = false;
  readonly #statements;
  readonly #journalWrites = { transactions: 0, batches: 0 };
  #vectorTransactions = 0;
  readonly #vectorRows: SqliteVectorRows[] = [];
  readonly #groupCommit: boolean;

  /** @param options.signer the host's key: the log of heads is signed with it at every checkpoint */
  constructor(path: string, options: SqliteStoreOptions = {}) {
    this.path = path;
    this.#db = new Database(path);
    this.#db.pragma('journal_mode = WAL');
    this.#db.pragma(`synchronous = ${options.synchronous ?? 'FULL'}`);
    this.#db.pragma('busy_timeout = 5000');
    migrateEvents(this.#db);
    this.#db.exec(STORE_SCHEMA);
    this.#log = new SqliteHeadLog(this.#db, options.signer);
    const db = this.#db;
    this.#statements = {
      head: db.prepare<[string], { seq: number; hash: string }>('SELECT seq, hash FROM events WHERE run_id = ? ORDER BY seq DESC LIMIT 1'),
      insertEvent: db.prepare('INSERT INTO events (run_id, seq, type, at, data, prev, hash) VALUES (?, ?, ?, ?, ?, ?, ?)'),
      upsertRun: db.prepare(
        'INSERT INTO runs (run_id, trace_id, profile, status, created_at, summary) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (run_id) DO UPDATE SET status = excluded.status, summary = excluded.summary',
      ),
      // A run's later appends find its row: an update skips the insert that would collide first.
      updateRun: db.prepare('UPDATE runs SET status = ?, summary = ? WHERE run_id = ?'),
      upsertApproval: db.prepare(
        'INSERT INTO approvals (approval_id, run_id, profile, status, requested_at, record) VALUES (@approvalId, @runId, @profile, @status, @requestedAt, @record) ON CONFLICT (approval_id) DO UPDATE SET status = excluded.status, record = excluded.record',
      ),
      addUsage: db.prepare(
        'INSERT INTO profile_usage (profile, cost, calls, tokens) VALUES (@profile, @cost, @calls, @tokens) ON CONFLICT (profile) DO UPDATE SET cost = round(cost + excluded.cost, 12), calls = calls + excluded.calls, tokens = tokens + excluded.tokens',
      ),
      journal: db.prepare<[string, number], { run_id: string; seq: number; type: string; at: number; data: string; prev: string; hash: string }>(
        'SELECT run_id, seq, type, at, data, prev, hash FROM events WHERE run_id = ? AND seq >= ? ORDER BY seq',
      ),
      run: db.prepare<[string], { summary: string }>('SELECT summary FROM runs WHERE run_id = ?'),
      approval: db.prepare<[string], { record: string }>('SELECT record FROM approvals WHERE approval_id = ?'),
      approvalOwner: db.prepare<[string], { run_id: string }>('SELECT run_id FROM approvals WHERE approval_id = ?'),
      usage: db.prepare<[string], Usage>('SELECT cost, calls, tokens FROM profile_usage WHERE profile = ?'),
      // A run finishes after it starts: runs created before the cut-off are the only candidates (the index on status and created_at finds them).
      finishedBefore: db.prepare<[number, number], { run_id: string; summary: string }>(
        "SELECT run_id, summary FROM runs WHERE status IN ('completed', 'failed', 'cancelled') AND created_at < ? ORDER BY created_at, run_id LIMIT ?",
      ),
      deleteEvents: db.prepare('DELETE FROM events WHERE run_id = ?'),
      deleteApprovals: db.prepare('DELETE FROM approvals WHERE run_id = ?'),
      deleteRun: db.prepare('DELETE FROM runs WHERE run_id = ?'),
      savepoint: db.prepare('SAVEPOINT batch'),
      release: db.prepare('RELEASE batch'),
      rollbackTo: db.prepare('ROLLBACK TO batch'),
    };
    this.#groupCommit = options.groupCommit ?? true;
    this.#facts = new SqliteFacts(db, { coalesce: this.#groupCommit });
    this.#commits = new GroupCommit<AppendBatch>({
      commit: (batches) => this.#commit(batches),
      failure: (error) => new SystemError('the journal write failed', { code: 'write_failed', cause: error }),
      coalesce: options.groupCommit ?? true,
      // setImmediate runs after the I/O callbacks of this turn: every request in flight gets to join.
      schedule: (flush) => void setImmediate(flush),
    });
  }

  append(batch: AppendBatch): Promise<void> {
    if (this.#closed) return Promise.reject(new SystemError('the store is closed', { code: 'store_closed' }));
    return this.#commits.enqueue(batch);
  }

  /**
   * How many journal transactions this store has committed or tried, and how many append batches
   * they carried: with group commit, appends from concurrent runs share transactions.
   */
  get journalWrites(): { readonly transactions: number; readonly batches: number } {
    return { ...this.#journalWrites };
  }

  /**
   * How many write transactions facts and vectors have taken. Memory in the loop writes a run's
   * facts (group-committed across runs, like the journal) and its reflection's vector (one each).
   */
  get memoryWrites(): { readonly facts: number; readonly vectors: number } {
    return { facts: this.#facts.transactions, vectors: this.#vectorTransactions };
  }

  /**
   * Write `batches` in one transaction; returns the refused ones. A batch refused by its checks
   * (a stale head, an approval id of another run) has written nothing, so the transaction goes on
   * without it; only when a write itself fails mid-batch is the whole group written again with a
   * savepoint around each batch, so that the batch at fault alone is rolled back.
   */
  #commit(batches: readonly AppendBatch[]): Map<number, unknown> {
    try {
      return this.#transact(batches, false);
    } catch (error) {
      if (!(error instanceof PartialWrite)) throw error;
      return this.#transact(batches, true);
    }
  }

  #transact(batches: readonly AppendBatch[], savepoints: boolean): Map<number, unknown> {
    const refused = new Map<number, unknown>();
    this.#journalWrites.transactions += 1;
    this.#journalWrites.batches += batches.length;
    try {
      this.#db.transaction(() => {
        const log = this.#log.open();
        batches.forEach((batch, i) => {
          if (savepoints) this.#statements.savepoint.run();
          let checked = false;
          try {
            this.#check(batch);
            checked = true;
            this.#write(batch, log);
            if (savepoints) this.#statements.release.run();
          } catch (error) {
            // Without a savepoint, a batch that began writing cannot be rolled back alone.
            if (!savepoints && checked) throw new PartialWrite(error);
            if (savepoints) for (const statement of [this.#statements.rollbackTo, this.#statements.release]) statement.run();
            this.#heads.forget(batch.runId);
            refused.set(i, error);
          }
        });
        this.#log.seal(log);
      })();
    } catch (error) {
      this.#heads.clear();
      this.#log.forget();
      throw error;
    }
    this.#heads.commit();
    this.#log.commit();
    return refused;
  }

  /** Commit queued appends now; their writes are done when this returns (used on shutdown). */
  flush(): void {
    void this.#commits.flush();
    this.#facts.flush();
    for (const rows of this.#vectorRows) rows.flush();
  }

  /** Whether `batch` may be written: it continues its run's head, and its approvals are its run's. Reads only. */
  #check(batch: AppendBatch): void {
    this.#heads.checkSync(batch, (runId) => {
      const row = this.#statements.head.get(runId);
      return row ? { seq: row.seq, hash: row.hash } : undefined;
    });
    // Earlier batches of this group commit are visible here: they share the transaction.
    checkApprovalOwners(batch, (id) => this.#statements.approvalOwner.get(id)?.run_id);
  }

  /** Write a checked `batch` (its events, run row, approvals, usage and log entry). */
  #write(batch: AppendBatch, log: HeadLogWriter): void {
    const { events, dataTexts } = batch;
    for (let i = 0; i < events.length; i++) {
      const event = events[i]!;
      try {
        const data = dataTexts?.[i] ?? canonicalJson(event.data);
        this.#statements.insertEvent.run(event.runId, event.seq, event.type, event.at, data, event.prev, event.hash);
      } catch (error) {
        if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') {
          throw new ConflictError(`run ${batch.runId} already has an event at seq ${event.seq}`, {
            code: 'head_mismatch',
            cause: error,
            details: { runId: batch.runId },
          });
        }
        throw error;
      }
    }
    const run = batch.run;
    const summary = JSON.stringify(run);
    if (batch.expectedHead === null || this.#statements.updateRun.run(run.status, summary, run.runId).changes === 0)
      this.#statements.upsertRun.run(run.runId, run.traceId, run.profile, run.status, run.createdAt, summary);
    for (const approval of batch.approvals ?? []) {
      this.#statements.upsertApproval.run({
        approvalId: approval.approvalId,
        runId: approval.runId,
        profile: approval.profile,
        status: approval.status,
        requestedAt: approval.requestedAt,
        record: JSON.stringify(approval),
      });
    }
    if (batch.profileUsage) this.#statements.addUsage.run({ profile: batch.profileUsage.profile, ...batch.profileUsage.delta });
    this.#log.write(batch, log);
    this.#heads.stage(batch);
  }

  /**
   * Retention: delete the journals (events, run row, approvals) of up to `limit` runs that
   * finished (completed, failed or cancelled) before `finishedBefore` (ms since the epoch),
   * oldest first, never a running or paused run. Each deletion leaves a `pruned` entry in the
   * log of heads at the run's final head, signed with the log's new head in the same
   * transaction, so an audit tells a pruned run from a deleted one. Spending stays counted.
   */
  pruneFinishedRuns(finishedBefore: number, limit: number): { pruned: HeadLogEntry[]; more: boolean } {
    const candidates = this.#statements.finishedBefore.all(finishedBefore, limit + 1);
    const pruned: HeadLogEntry[] = [];
    try {
      this.#db.transaction(() => {
        const log = this.#log.open();
        for (const row of candidates.slice(0, limit)) {
          const run = parseRow<RunSummary>(row.summary, `run ${row.run_id}`);
          if (!FINISHED.has(run.status) || run.updatedAt >= finishedBefore) continue;
          pruned.push(this.#log.writePruned(run, log));
          for (const statement of [this.#statements.deleteEvents, this.#statements.deleteApprovals, this.#statements.deleteRun]) statement.run(run.runId);
          this.#heads.forget(run.runId);
        }
        this.#log.seal(log);
      })();
    } catch (error) {
      this.#log.forget();
      throw new SystemError('pruning finished runs failed', { code: 'prune_failed', cause: error });
    }
    this.#log.commit();
    return { pruned, more: candidates.length > limit && pruned.length > 0 };
  }

  /**
   * Delete one finished run's journal on request, as retention does (a signed `pruned` entry in
   * the log of heads at its final head): an audit shows it deleted on purpose, and an export of it
   * made before still verifies against that head. A running or paused run is a `ConflictError`
   * (`run_not_finished`); an unknown one a `NotFoundError` (`unknown_run`).
   */
  pruneRun(runId: string): HeadLogEntry {
    const row = this.#db.prepare<[string], { summary: string }>('SELECT summary FROM runs WHERE run_id = ?').get(runId);
    if (!row) throw new NotFoundError(`no run ${runId}`, { code: 'unknown_run' });
    const run = parseRow<RunSummary>(row.summary, `run ${runId}`);
    if (!FINISHED.has(run.status)) throw new ConflictError(`run ${runId} is ${run.status}: only a finished run can be deleted`, { code: 'run_not_finished' });
    let entry: HeadLogEntry | undefined;
    try {
      this.#db.transaction(() => {
        const log = this.#log.open();
        entry = this.#log.writePruned(run, log);
        for (const statement of [this.#statements.deleteEvents, this.#statements.deleteApprovals, this.#statements.deleteRun]) statement.run(runId);
        this.#heads.forget(runId);
        this.#log.seal(log);
      })();
    } catch (error) {
      this.#log.forget();
      throw new SystemError(`deleting run ${runId} failed`, { code: 'prune_failed', cause: error });
    }
    this.#log.commit();
    return entry!;
  }

  readHeadLog(): Promise<HeadLog> {
    return Promise.resolve(this.#log.read());
  }

  async readJournal(runId: string, fromSeq = 0): Promise<JournalEvent[]> {
    return this.#statements.journal.all(runId, fromSeq).map(eventOfRow);
  }

  /** Journal pages and marker events, read by seq range on the primary key; prepared on first use. */
  #pageReads: SqliteJournalReads | undefined;

  async readJournalPage(runId: string, fromSeq: number, limit: number): Promise<JournalEvent[]> {
    return (this.#pageReads ??= new SqliteJournalReads(this.#db)).page(runId, fromSeq, limit);
  }

  async readJournalOfTypes(runId: string, types: readonly JournalEventType[], toSeq: number): Promise<JournalEvent[]> {
    return (this.#pageReads ??= new SqliteJournalReads(this.#db)).ofTypes(runId, types, toSeq);
  }

  async getRun(runId: string): Promise<RunSummary | undefined> {
    const row = this.#statements.run.get(runId);
    return row && parseRow<RunSummary>(row.summary, `run ${runId}`);
  }

  async listRuns(filter: RunFilter = {}): Promise<RunSummary[]> {
    checkRunLimit(filter);
    const { where, params } = whereEquals({ status: filter.status, profile: filter.profile, trace_id: filter.traceId });
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

  async getProfileUsage(profile: string): Promise<Usage> {
    const row = this.#statements.usage.get(profile);
    return row ? { cost: row.cost, calls: row.calls, tokens: row.tokens } : { ...ZERO_USAGE };
  }

  // ---- MemoryStore

  putFacts(facts: readonly FactRecord[]): Promise<void> {
    if (this.#closed) return Promise.reject(new SystemError('the store is closed', { code: 'store_closed' }));
    return this.#facts.put(facts);
  }

  async queryFacts(profile: string, query?: FactQuery): Promise<FactRecord[]> {
    return this.#facts.query(profile, query);
  }

  async namespaces(profile: string): Promise<string[]> {
    return this.#facts.namespaces(profile);
  }

  async deleteFacts(profile: string, namespace?: string): Promise<number> {
    return this.#facts.delete(profile, namespace);
  }

  /** A {@link VectorBackend} persisted in this database as little-endian Float32 blobs. */
  vectors(dimension: number): VectorBackend {
    const rows = new SqliteVectorRows(this.#db, () => void (this.#vectorTransactions += 1), { coalesce: this.#groupCommit });
    this.#vectorRows.push(rows);
    return new PersistedVectorBackend(dimension, rows);
  }

  /** Finish queued appends and close the database. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.flush();
    this.#closed = true;
    this.#db.close();
  }
}
