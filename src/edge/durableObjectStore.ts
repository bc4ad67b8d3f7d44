import { DurableObject } from 'cloudflare:workers';
import {
  ValidationError,
  type AppendBatch,
  type ApprovalFilter,
  type ApprovalRecord,
  type FactQuery,
  type FactRecord,
  type HeadSigner,
  type HostStore,
  type JournalEvent,
  type RunFilter,
  type RunSummary,
  type VectorBackend,
} from '../core/index.ts';
import { createHeadSigner } from '../core/signing.ts';
import {
  ZERO_USAGE,
  addUsage,
  checkApprovalOwners,
  checkApprovalsOfRun,
  checkBatch,
  selectApprovals,
  selectRuns,
  type HeadLog,
  type HeadLogWriter,
} from '../core/stores.ts';
import { capture, reviveError, unwrap, type Outcome } from './errorRecord.ts';
import type { Env } from './workerRuntime.ts';
import { ProfileObject } from './profileObject.ts';
import { RunObject, pad, type Landing } from './runObject.ts';
import { closeLog, logEntryKey, openLog, readLog } from './directoryLog.ts';

export { ProfileObject, RunObject };

type Usage = NonNullable<AppendBatch['profileUsage']>['delta'];

/** A Durable Object namespace, as far as this store uses it. */
export interface Namespace<T> {
  idFromName(name: string): unknown;
  get(id: unknown): T;
}

/** The bindings the Durable Object store needs (see wrangler.jsonc). */
export interface DurableObjectBindings {
  /** The host's Ed25519 key (64 hex characters, a Worker secret): the directory signs its log of heads with it. */
  CUGAR_SIGNING_KEY?: string;
  /** Milliseconds a running run may go silent before it is resumed; see {@link staleRunMs}. */
  CUGAR_STALE_RUN_MS?: string;
  RUNS: Namespace<RunObject>;
  DIRECTORY: Namespace<DirectoryObject>;
  PROFILES: Namespace<ProfileObject>;
}

/**
 * How long a staged directory entry may wait for its run's write before a reader fences it
 * off: longer than any append can take, so fencing only ever stops a writer that crashed.
 */
export const STAGE_GRACE_MS = 60_000;

/** How long a running run may go without an event before the directory's alarm resumes it (`CUGAR_STALE_RUN_MS`, default 60 s). */
export function staleRunMs(env: { CUGAR_STALE_RUN_MS?: string }): number {
  const ms = Number(env.CUGAR_STALE_RUN_MS);
  return Number.isFinite(ms) && ms > 0 ? ms : 60_000;
}

/** The directory's part of one append, staged before the run's events are written. */
export interface StagedEntry {
  /** This write attempt's own id: a fence stops the attempt, never a later writer of the same events. */
  attempt: string;
  /** The run object's name: the directory asks it whether the batch landed. */
  object: string;
  runId: string;
  /** Sequence number and hash of the batch's last event. */
  seq: number;
  hash: string;
  run: RunSummary;
  approvals: ApprovalRecord[];
  usage?: { profile: string; delta: Usage };
  stagedAt: number;
  /**
   * Whether the Worker's own runtime drives this store's time (approval deadlines, silent
   * runs): only for the host's store, not for stores with a `name` (tests, tenants), whose
   * runs the host's runtime does not see.
   */
  timed?: boolean;
}

/**
 * The listing side: run summaries, approvals and profile spending, derived from the run
 * objects — the one place "runs by status" and "pending approvals" are a single read.
 *
 * Durable Objects have no transaction across two objects, so an append cannot write a run's
 * events and the directory together. Instead the directory's part is *staged* here first
 * (invisible), then the run object writes the events in one transaction, then the entry is
 * *confirmed* (promoted into the listings and spending, once). A crash anywhere leaves at most a
 * staged entry, and every read first settles staged entries against their run objects — the
 * source of truth: promoted if the batch landed, dropped if another writer's did, fenced off
 * and dropped if it never landed within {@link STAGE_GRACE_MS}. So a reader never sees a
 * listing behind or ahead of the journals, and spending is never counted twice.
 */
export class DirectoryObject extends DurableObject<DurableObjectBindings> {
  /** Stage an append's directory part; refused (nothing staged) if it carries an approval id another run holds. */
  stage(entry: StagedEntry): Promise<Outcome<void>> {
    return capture(async () => {
      checkApprovalsOfRun(entry);
      if (entry.approvals.length) {
        const rows = await this.ctx.storage.get<ApprovalRecord>(entry.approvals.map((a) => `approval:${a.approvalId}`));
        checkApprovalOwners(entry, (id) => rows.get(`approval:${id}`)?.runId);
      }
      await this.ctx.storage.put(stagedKey(entry.runId, entry.seq, entry.attempt), entry);
    });
  }

  /** The writer saw its batch land: promote the entry now rather than on the next read. */
  async confirm(runId: string, seq: number, attempt: string): Promise<void> {
    await this.#apply([{ key: stagedKey(runId, seq, attempt), landing: 'committed' }]);
  }

  /** The run object refused the batch: its staged entry goes. */
  async discard(runId: string, seq: number, attempt: string): Promise<void> {
    await this.ctx.storage.delete([stagedKey(runId, seq, attempt)]);
  }

  async getRun(runId: string): Promise<RunSummary | undefined> {
    await this.#settle(stagedPrefix(runId));
    return this.ctx.storage.get<RunSummary>(`run:${runId}`);
  }

  async listRuns(filter: RunFilter): Promise<Outcome<RunSummary[]>> {
    return capture(async () => {
      await this.#settle('staged:');
      return selectRuns((await this.ctx.storage.list<RunSummary>({ prefix: 'run:' })).values(), filter);
    });
  }

  async getApproval(approvalId: string): Promise<ApprovalRecord | undefined> {
    await this.#settle('staged:');
    return this.ctx.storage.get<ApprovalRecord>(`approval:${approvalId}`);
  }

  async listApprovals(filter: ApprovalFilter): Promise<ApprovalRecord[]> {
    await this.#settle('staged:');
    return selectApprovals((await this.ctx.storage.list<ApprovalRecord>({ prefix: 'approval:' })).values(), filter);
  }

  async getProfileUsage(profile: string): Promise<Usage> {
    await this.#settle('staged:');
    return (await this.ctx.storage.get<Usage>(`usage:${profile}`)) ?? { ...ZERO_USAGE };
  }

  /** Ask the run objects about every staged entry under `prefix`, then apply what they said. */
  async #settle(prefix: string): Promise<void> {
    const staged = await this.ctx.storage.list<StagedEntry>({ prefix });
    if (staged.size === 0) return;
    const byObject = new Map<string, Array<[string, StagedEntry]>>();
    for (const [key, entry] of staged) byObject.set(entry.object, [...(byObject.get(entry.object) ?? []), [key, entry]]);
    const now = Date.now();
    const verdicts: Array<{ key: string; landing: Landing }> = [];
    for (const [object, entries] of byObject) {
      const run = this.env.RUNS.get(this.env.RUNS.idFromName(object));
      const landings = await run.settle(entries.map(([, e]) => ({ attempt: e.attempt, seq: e.seq, hash: e.hash, fence: now - e.stagedAt > STAGE_GRACE_MS })));
      entries.forEach(([key], i) => verdicts.push({ key, landing: landings[i]! }));
    }
    await this.#apply(verdicts);
  }

  /**
   * Apply verdicts in one storage transaction. The entries are read again inside it: a confirm
   * or another reader may have applied some while the run objects were being asked.
   */
  async #apply(verdicts: ReadonlyArray<{ key: string; landing: Landing }>): Promise<void> {
    // Keys sort by run, then sequence number: a run's entries are applied in order.
    const ordered = [...verdicts].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    let deadline = Infinity;
    await this.ctx.storage.transaction(async (txn) => {
      let log: HeadLogWriter | undefined;
      for (const { key, landing } of ordered) {
        if (landing === 'absent') continue;
        const entry = await txn.get<StagedEntry>(key);
        if (!entry) continue;
        await txn.delete([key]);
        if (landing !== 'committed') continue;
        const applied = (await txn.get<number>(`applied:${entry.runId}`)) ?? -1;
        // A run's journal is one chain: each position lands once, so an entry at or below
        // what was applied is a replay of one already counted.
        if (entry.seq <= applied) continue;
        // A running run is checked on later: if its driver stops (an isolate evicted after its
        // waitUntil budget), the alarm resumes it from its journal.
        if (entry.timed && entry.run.status === 'running') deadline = Math.min(deadline, entry.run.updatedAt + staleRunMs(this.env));
        const writes: Record<string, unknown> = { [`applied:${entry.runId}`]: entry.seq, [`run:${entry.runId}`]: entry.run };
        // The log of heads: the run's first append (nothing applied before) and every one that brings it to rest.
        if (applied === -1 || entry.run.status !== 'running') {
          log ??= await openLog(txn, this.#signer());
          const logged = log.entryFor(entry.run, entry, applied === -1)!;
          log.take(logged);
          writes[logEntryKey(logged.index)] = logged;
        }
        for (const approval of entry.approvals) {
          writes[`approval:${approval.approvalId}`] = approval;
          if (entry.timed && approval.status === 'pending' && approval.deadline !== undefined) deadline = Math.min(deadline, approval.deadline);
        }
        if (entry.usage)
          writes[`usage:${entry.usage.profile}`] = addUsage((await txn.get<Usage>(`usage:${entry.usage.profile}`)) ?? ZERO_USAGE, entry.usage.delta);
        await txn.put(writes);
      }
      if (log) await closeLog(txn, log);
    });
    if (deadline !== Infinity) await this.#wakeAt(deadline);
  }

  #headSigner: HeadSigner | null | undefined;

  /** The host's key, when the Worker has one (`CUGAR_SIGNING_KEY`). */
  #signer(): HeadSigner | undefined {
    if (this.#headSigner === undefined) this.#headSigner = this.env.CUGAR_SIGNING_KEY ? createHeadSigner(this.env.CUGAR_SIGNING_KEY) : null;
    return this.#headSigner ?? undefined;
  }

  /** The log of heads, after settling what is staged: every promoted append is in it. */
  async readHeadLog(): Promise<HeadLog> {
    await this.#settle('staged:');
    return readLog(this.ctx.storage);
  }

  /** When the alarm is set for, as this instance last read or set it (`undefined`: not known yet). */
  #alarmAt: number | null | undefined;

  /** Set the alarm for `at` unless it is already set for earlier; storage is read once per instance, not per append. */
  async #wakeAt(at: number): Promise<void> {
    if (this.#alarmAt === undefined) this.#alarmAt = await this.ctx.storage.getAlarm();
    if (this.#alarmAt !== null && this.#alarmAt <= at) return;
    await this.ctx.storage.setAlarm(at);
    this.#alarmAt = at;
  }

  /**
   * The host drives time: the alarm applies expired approvals' timeout policies and resumes
   * runs whose driver went silent, then sets itself for the next moment either is due. The
   * runtime is loaded here, not at the top, because it depends on this module's store.
   */
  async alarm(): Promise<void> {
    // A fired alarm is no longer set.
    this.#alarmAt = null;
    const { driveTime } = await import('./workerRuntime.ts');
    const next = await driveTime(this.env as Env);
    if (next !== undefined) await this.#wakeAt(next);
  }
}

/** Where one run's staged entries start; the run id is encoded so no run's prefix is another's. */
function stagedPrefix(runId: string): string {
  return `staged:${encodeURIComponent(runId)}|`;
}

/** Staged entries of one run sort together, in sequence order; the attempt tells two writers' entries apart. */
function stagedKey(runId: string, seq: number, attempt: string): string {
  return `${stagedPrefix(runId)}${pad(seq)}:${attempt}`;
}

/** Options of {@link DurableObjectStore}. */
export interface DurableObjectStoreOptions {
  /**
   * Keeps this store's objects apart from another's in the same namespaces (tests, tenants):
   * every object name is prefixed with it. Default none, so names are the run ids, `directory`
   * and the profile names.
   */
  name?: string;
}

/**
 * The {@link HostStore} of the Worker: each call goes to the Durable Object that owns the data —
 * a {@link RunObject} per run, one {@link DirectoryObject}, a {@link ProfileObject} per profile.
 * An append is one atomic write in the run object, bracketed by the directory's stage and
 * confirm (see {@link DirectoryObject} for why no crash can make the two disagree for a reader).
 */
export class DurableObjectStore implements HostStore {
  readonly #env: DurableObjectBindings;
  readonly #prefix: string;

  constructor(env: DurableObjectBindings, options: DurableObjectStoreOptions = {}) {
    this.#env = env;
    this.#prefix = options.name ? `${options.name}/` : '';
  }

  #run(runId: string): RunObject {
    return this.#env.RUNS.get(this.#env.RUNS.idFromName(this.#prefix + runId));
  }
  #directory(): DirectoryObject {
    return this.#env.DIRECTORY.get(this.#env.DIRECTORY.idFromName(`${this.#prefix}directory`));
  }
  #profile(profile: string): ProfileObject {
    return this.#env.PROFILES.get(this.#env.PROFILES.idFromName(this.#prefix + profile));
  }

  async append(batch: AppendBatch): Promise<void> {
    const last = batch.events.at(-1);
    // Refuse what the run object would refuse before staging anything for it.
    if (!last) checkBatch(batch, undefined);
    const directory = this.#directory();
    const { seq, hash } = last!;
    const attempt = crypto.randomUUID();
    await unwrap(
      directory.stage({
        attempt,
        object: this.#prefix + batch.runId,
        runId: batch.runId,
        seq,
        hash,
        run: batch.run,
        approvals: [...(batch.approvals ?? [])],
        ...(batch.profileUsage ? { usage: batch.profileUsage } : {}),
        stagedAt: Date.now(),
        timed: this.#prefix === '',
      }),
    );
    // The run object keeps events as objects: the events' data as text would only double the call.
    const { dataTexts: _texts, ...sent } = batch;
    const written = await this.#run(batch.runId).append(sent, attempt);
    if (!written.ok) {
      await directory.discard(batch.runId, seq, attempt);
      throw reviveError(written.error);
    }
    // The events are durable: the append has happened, whatever happens next. Should the
    // confirmation be lost, the next read of the directory settles the entry the same way.
    await directory.confirm(batch.runId, seq, attempt).catch(() => undefined);
  }
  readJournal(runId: string, fromSeq = 0): Promise<JournalEvent[]> {
    return this.#run(runId).readJournal(fromSeq);
  }
  getRun(runId: string): Promise<RunSummary | undefined> {
    return this.#directory().getRun(runId);
  }
  listRuns(filter: RunFilter = {}): Promise<RunSummary[]> {
    return unwrap(this.#directory().listRuns(filter));
  }
  getApproval(approvalId: string): Promise<ApprovalRecord | undefined> {
    return this.#directory().getApproval(approvalId);
  }
  listApprovals(filter: ApprovalFilter = {}): Promise<ApprovalRecord[]> {
    return this.#directory().listApprovals(filter);
  }
  getProfileUsage(profile: string): Promise<Usage> {
    return this.#directory().getProfileUsage(profile);
  }
  readHeadLog(): Promise<HeadLog> {
    return this.#directory().readHeadLog();
  }
  async putFacts(facts: readonly FactRecord[]): Promise<void> {
    const byProfile = new Map<string, FactRecord[]>();
    for (const fact of facts) byProfile.set(fact.profile, [...(byProfile.get(fact.profile) ?? []), fact]);
    for (const [profile, list] of byProfile) await this.#profile(profile).putFacts(list);
  }
  queryFacts(profile: string, query?: FactQuery): Promise<FactRecord[]> {
    return this.#profile(profile).queryFacts(query);
  }
  namespaces(profile: string): Promise<string[]> {
    return this.#profile(profile).namespaces();
  }
  deleteFacts(profile: string, namespace?: string): Promise<number> {
    return this.#profile(profile).deleteFacts(namespace);
  }
  /** The vectors of one dimension; each profile's index lives, warm, in its {@link ProfileObject}. */
  vectors(dimension: number): VectorBackend {
    if (!Number.isInteger(dimension) || dimension < 1)
      throw new ValidationError(`dimension must be a positive integer, got ${dimension}`, { code: 'invalid_dimension' });
    const profileOf = (profile: string) => this.#profile(profile);
    return {
      dimension,
      connect: async () => undefined,
      upsert: (profile, records) => unwrap(profileOf(profile).vectorUpsert(dimension, profile, [...records])),
      search: (profile, query, options) => unwrap(profileOf(profile).vectorSearch(dimension, profile, query, options)),
      delete: (profile, ids) => unwrap(profileOf(profile).vectorDelete(dimension, profile, [...ids])),
      count: (profile) => unwrap(profileOf(profile).vectorCount(dimension, profile)),
      list: (profile, options) => unwrap(profileOf(profile).vectorList(dimension, profile, options?.vectors === true)),
    };
  }
}
