import Dexie, { type Table } from 'dexie';
import {
  ConflictError,
  ResourceError,
  SystemError,
  type AppendBatch,
  type ApprovalFilter,
  type ApprovalRecord,
  type FactQuery,
  type FactRecord,
  type JournalEvent,
  type JournalHead,
  type HostStore,
  type RunFilter,
  type RunSummary,
  type VectorBackend,
} from '../core/index.ts';
import {
  GroupCommit,
  HeadCache,
  PersistedVectorBackend,
  ZERO_USAGE,
  addUsage,
  filterFacts,
  isWellFormed,
  selectApprovals,
  selectRuns,
  checkApprovalOwners,
  HeadLogWriter,
  isCheckpoint,
  logHeadAfter,
  type HeadLog,
  type HeadLogEntry,
  type HeadLogOptions,
  type SignedLogHead,
} from '../core/stores.ts';
import { IndexedDbVectorRows, type StoredVectorGeneration, type StoredVectorSnapshot } from './indexedDbVectorRows.ts';

type Usage = NonNullable<AppendBatch['profileUsage']>['delta'];

interface UsageRow extends Usage {
  profile: string;
}

interface StoredVector {
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
  vectors!: Table<StoredVector, [string, string]>;
  headLog!: Table<HeadLogEntry, number>;
  logSignature!: Table<SignedLogHead & { id: 1 }, number>;
  vectorGenerations!: Table<StoredVectorGeneration, string>;
  vectorSnapshots!: Table<StoredVectorSnapshot, [string, string]>;

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
    // The log of heads; a database of version 1 starts it with its next append.
    this.version(2).stores({ headLog: 'index', logSignature: 'id' });
    // Snapshots beside the vectors (the RAG keyword index), stamped with the count of writes to a
    // profile's vectors; a database of version 2 counts from its next write.
    this.version(3).stores({ vectorGenerations: 'profile', vectorSnapshots: '[profile+name]' });
    // Indexes nothing reads, which every append paid for: the events' `runId` (a run's events are
    // a range of the primary key) and the runs' profile, trace id and creation time (listing filters
    // those in memory; only `status` selects rows). An upgrade drops them; the rows stay.
    this.version(4).stores({ events: '[runId+seq]', runs: 'runId, status' });
  }
}

/**
 * Whether a write failed on a uniqueness constraint: Dexie reports it as the error itself, as a
 * transaction abort wrapping it, or as a bulk operation listing it among its failures.
 */
function isConstraintError(error: unknown): boolean {
  const e = error as { name?: string; inner?: { name?: string }; failures?: ReadonlyArray<{ name?: string }> };
  return (
    e?.name === 'ConstraintError' ||
    e?.inner?.name === 'ConstraintError' ||
    (e?.name === 'BulkError' && (e.failures ?? []).some((f) => f?.name === 'ConstraintError'))
  );
}

/** Map IndexedDB failures to typed errors: a full disk is a RESOURCE failure the caller can act on, a lost race a conflict. */
export function storageError(error: unknown): Error {
  const names = [(error as { name?: string })?.name, (error as { inner?: { name?: string } })?.inner?.name];
  if (names.includes('QuotaExceededError')) {
    return new ResourceError('browser storage is full: nothing was written; free space or export and clear old runs', {
      code: 'quota_exceeded',
      cause: error,
      retryable: false,
    });
  }
  if (names.includes('DatabaseClosedError'))
    return new SystemError('the database was closed (another tab upgraded it or the page is closing)', { code: 'store_closed', cause: error });
  // Only journal events are added rather than put: a second event at a position means another
  // tab or connection moved the run on first.
  if (isConstraintError(error)) return new ConflictError('another connection appended to this run first', { code: 'head_mismatch', cause: error });
  return error instanceof Error ? error : new SystemError(String(error), { code: 'storage_failed' });
}

/**
 * The browser {@link HostStore} on IndexedDB (via Dexie): journals,
 * runs, approvals, profile spending, facts and vectors, all in one database. Journal writes
 * use strict durability and group commit: appends made in the same turn share one
 * transaction, each batch checked against its run's head first, so a batch is written whole
 * or not at all. When another tab upgrades the database, this connection closes cleanly.
 */
export class IndexedDbStore implements HostStore {
  readonly db: CugarDatabase;
  readonly #commits: GroupCommit<AppendBatch>;
  readonly #heads = new HeadCache();
  readonly #signer: HeadLogOptions['signer'];
  readonly #snapshotFiles: boolean;
  #closedByOtherTab = false;

  /**
   * @param options.groupCommit coalesce the appends of one turn into one transaction (default true); false commits each append on its own.
   * @param options.signer a key that signs the log of heads at every checkpoint (the tab holds none: its log is kept unsigned)
   * @param options.snapshotFiles keep large vector snapshots as files of the origin private file system where the browser has one (default true; never with a given `indexedDB`, whose files would not be these)
   */
  constructor(
    name = 'cugar',
    options: { indexedDB?: IDBFactory; IDBKeyRange?: typeof IDBKeyRange; groupCommit?: boolean; snapshotFiles?: boolean } & HeadLogOptions = {},
  ) {
    const { groupCommit = true, signer, snapshotFiles = true, ...dexieOptions } = options;
    this.#signer = signer;
    this.#snapshotFiles = snapshotFiles && dexieOptions.indexedDB === undefined;
    this.db = new CugarDatabase(name, dexieOptions);
    this.db.on('versionchange', () => {
      this.#closedByOtherTab = true;
      this.db.close();
      return false;
    });
    this.#commits = new GroupCommit<AppendBatch>({
      commit: (batches) => this.#commit(batches),
      failure: storageError,
      // Another tab wrote one of these runs between our head check and our write (the primary
      // key refused a second event at a position, aborting the transaction): one batch at a
      // time, each head read from the database, only the stale batch fails.
      retryAlone: isConstraintError,
      coalesce: groupCommit,
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
    return this.#commits.enqueue(batch);
  }

  /** Write the acceptable batches in one transaction; returns the refused ones with their errors. */
  async #commit(batches: readonly AppendBatch[]): Promise<Map<number, unknown>> {
    const refused = new Map<number, unknown>();
    const readHead = async (runId: string): Promise<JournalHead | undefined> => {
      const last = await this.db.events.where('[runId+seq]').between([runId, Dexie.minKey], [runId, Dexie.maxKey]).last();
      return last ? { seq: last.seq, hash: last.hash } : undefined;
    };
    try {
      // Only the stores this group writes: a transaction over fewer stores commits sooner.
      const tables: Table[] = [this.db.events, this.db.runs];
      if (batches.some((batch) => batch.approvals?.length)) tables.push(this.db.approvals);
      if (batches.some((batch) => batch.profileUsage)) tables.push(this.db.usage);
      if (batches.some((batch) => batch.expectedHead === null || isCheckpoint(batch))) tables.push(this.db.headLog, this.db.logSignature);
      await this.db.transaction('rw', tables, async () => {
        const events: JournalEvent[] = [];
        // The log of heads is read only when a batch adds an entry (it starts a run or brings one to rest).
        let log: HeadLogWriter | undefined;
        const runs = new Map<string, RunSummary>();
        const approvals: ApprovalRecord[] = [];
        const usage = new Map<string, Usage>();
        // Which run holds each approval id: stored rows, then the batches staged before in this group.
        const ids = [...new Set(batches.flatMap((batch) => (batch.approvals ?? []).map((a) => a.approvalId)))];
        const owners = new Map<string, string>();
        if (ids.length) (await this.db.approvals.bulkGet(ids)).forEach((row, i) => row && owners.set(ids[i]!, row.runId));
        for (const [i, batch] of batches.entries()) {
          try {
            await this.#heads.check(batch, readHead);
            checkApprovalOwners(batch, (id) => owners.get(id));
          } catch (error) {
            this.#heads.forget(batch.runId);
            refused.set(i, error);
            continue;
          }
          this.#heads.stage(batch);
          if (batch.expectedHead === null || isCheckpoint(batch)) (log ??= await this.#openLog()).add(batch);
          events.push(...batch.events);
          runs.set(batch.runId, batch.run);
          approvals.push(...(batch.approvals ?? []));
          for (const approval of batch.approvals ?? []) owners.set(approval.approvalId, batch.runId);
          if (batch.profileUsage)
            usage.set(batch.profileUsage.profile, addUsage(usage.get(batch.profileUsage.profile) ?? ZERO_USAGE, batch.profileUsage.delta));
        }
        if (events.length === 0) return;
        await this.db.events.bulkAdd(events);
        if (log) await this.db.headLog.bulkAdd(log.entries);
        const signed = log?.seal();
        if (signed) await this.db.logSignature.put({ id: 1, ...signed });
        await this.db.runs.bulkPut([...runs.values()]);
        if (approvals.length) await this.db.approvals.bulkPut(approvals);
        for (const [profile, delta] of usage) {
          const used = await this.db.usage.get(profile);
          await this.db.usage.put({ profile, ...addUsage(used ?? ZERO_USAGE, delta) });
        }
      });
    } catch (error) {
      this.#heads.clear();
      throw error;
    }
    this.#heads.commit();
    return refused;
  }

  /** The log of heads from its tail, inside the append's transaction; its first write enters the runs written before it. */
  async #openLog(): Promise<HeadLogWriter> {
    const tail = await this.db.headLog.orderBy('index').last();
    const log = new HeadLogWriter(logHeadAfter(tail), this.#signer);
    if (!tail) log.predating((await this.db.runs.toArray()).filter((run) => run.head));
    return log;
  }

  readHeadLog(): Promise<HeadLog> {
    return this.#read(() =>
      this.db.transaction('r', [this.db.headLog, this.db.logSignature], async () => {
        const entries = await this.db.headLog.orderBy('index').toArray();
        const signature = await this.db.logSignature.get(1);
        if (!signature) return { entries };
        const { id: _id, ...signed } = signature;
        return { entries, signed };
      }),
    );
  }

  async readJournal(runId: string, fromSeq = 0): Promise<JournalEvent[]> {
    const rows = await this.#read(() => this.db.events.where('[runId+seq]').between([runId, fromSeq], [runId, Dexie.maxKey]).toArray());
    for (const row of rows)
      if (!isWellFormed(row)) throw new SystemError(`stored event ${runId}#${(row as { seq?: unknown }).seq} is corrupt`, { code: 'corrupt_row' });
    return rows;
  }

  getRun(runId: string): Promise<RunSummary | undefined> {
    return this.#read(() => this.db.runs.get(runId));
  }

  async listRuns(filter: RunFilter = {}): Promise<RunSummary[]> {
    const status = filter.status;
    return selectRuns(await this.#read(() => (status ? this.db.runs.where('status').equals(status).toArray() : this.db.runs.toArray())), filter);
  }

  getApproval(approvalId: string): Promise<ApprovalRecord | undefined> {
    return this.#read(() => this.db.approvals.get(approvalId));
  }

  async listApprovals(filter: ApprovalFilter = {}): Promise<ApprovalRecord[]> {
    const status = filter.status;
    return selectApprovals(await this.#read(() => (status ? this.db.approvals.where('status').equals(status).toArray() : this.db.approvals.toArray())), filter);
  }

  async getProfileUsage(profile: string): Promise<Usage> {
    const row = await this.#read(() => this.db.usage.get(profile));
    return row ? { cost: row.cost, calls: row.calls, tokens: row.tokens } : { ...ZERO_USAGE };
  }

  // ---- MemoryStore

  async putFacts(facts: readonly FactRecord[]): Promise<void> {
    await this.#write(() => this.db.facts.bulkPut([...facts]));
  }

  async queryFacts(profile: string, query?: FactQuery): Promise<FactRecord[]> {
    const rows = await this.#read(() =>
      query?.namespace
        ? this.db.facts.where('[profile+namespace]').equals([profile, query.namespace]).toArray()
        : this.db.facts.where('profile').equals(profile).toArray(),
    );
    return filterFacts(rows, query);
  }

  async namespaces(profile: string): Promise<string[]> {
    const rows = await this.#read(() => this.db.facts.where('profile').equals(profile).toArray());
    return [...new Set(rows.map((f) => f.namespace))].sort();
  }

  async deleteFacts(profile: string, namespace?: string): Promise<number> {
    return this.#write(() =>
      namespace ? this.db.facts.where('[profile+namespace]').equals([profile, namespace]).delete() : this.db.facts.where('profile').equals(profile).delete(),
    );
  }

  /** A {@link VectorBackend} persisted in this database as Float32 bytes. */
  vectors(dimension: number): VectorBackend {
    return new PersistedVectorBackend(dimension, new IndexedDbVectorRows(this, { files: this.#snapshotFiles }));
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

/** Ask the browser to keep this origin's storage under pressure; resolves to whether it agreed. */
export async function requestPersistentStorage(storage: StorageManager | undefined = globalThis.navigator?.storage): Promise<boolean> {
  if (!storage?.persist) return false;
  try {
    return (await storage.persisted?.()) || (await storage.persist());
  } catch {
    return false;
  }
}
