import { logHeadAfter, nextLogEntry, type HeadLog, type HeadLogEntry, type LogEntryFields, type SignedLogHead } from '../journal/headLog.ts';
import type { JournalEvent, JournalEventType } from '../schema/journalEvent.ts';
import { InMemoryMemoryStore, type FactQuery, type FactRecord } from '../memory/memoryStore.ts';
import { addUsage, ZERO_USAGE } from '../planning/planningAuthority.ts';
import type { BudgetUsage } from '../schema/budget.ts';
import type { VectorBackend } from '../vector/vectorBackend.ts';
import { selectApprovals, selectRuns } from './filters.ts';
import { isCheckpoint, type HeadLogOptions } from './headLogWriter.ts';
import type { HostStore } from './hostStore.ts';
import { InMemoryVectorRows, PersistedVectorBackend } from './persistedVectors.ts';
import {
  checkApprovalOwners,
  checkBatch,
  deepFreeze,
  type AppendBatch,
  type ApprovalFilter,
  type ApprovalRecord,
  type RunFilter,
  type RunSummary,
} from './store.ts';

/**
 * The in-memory {@link Store}: for tests, embedding and replay. It is a whole
 * {@link HostStore} too — facts and vectors, kept for as long as the object lives — so the
 * same conformance suites run against it as against the persisted adapters.
 */
export class InMemoryStore implements HostStore {
  #journals = new Map<string, JournalEvent[]>();
  #runs = new Map<string, RunSummary>();
  #approvals = new Map<string, ApprovalRecord>();
  #usage = new Map<string, BudgetUsage>();
  #facts: InMemoryMemoryStore | undefined;
  #vectors: Map<number, VectorBackend> | undefined;
  #log: HeadLogEntry[] = [];
  /** Entries appended but not folded yet: nothing persists here, so the fold waits until the log is read or signed. */
  #unfolded: LogEntryFields[] = [];
  #signed: SignedLogHead | undefined;
  readonly #signer: HeadLogOptions['signer'];

  /** @param options.signer the host's key, which signs the log of heads at every checkpoint */
  constructor(options: HeadLogOptions = {}) {
    this.#signer = options.signer;
  }

  async append(batch: AppendBatch): Promise<void> {
    const journal = this.#journals.get(batch.runId);
    const last = journal?.at(-1);
    checkBatch(batch, last ? { seq: last.seq, hash: last.hash } : undefined);
    checkApprovalOwners(batch, (id) => this.#approvals.get(id)?.runId);
    // Events are immutable once sealed: freeze and share them rather than copy.
    const events = batch.events.map((event) => deepFreeze(event));
    if (journal) journal.push(...events);
    else this.#journals.set(batch.runId, [...events]);
    this.#runs.set(batch.runId, { ...batch.run, head: { ...batch.run.head } });
    for (const approval of batch.approvals ?? []) this.#approvals.set(approval.approvalId, structuredClone(approval));
    if (batch.profileUsage)
      this.#usage.set(batch.profileUsage.profile, addUsage(this.#usage.get(batch.profileUsage.profile) ?? ZERO_USAGE, batch.profileUsage.delta));
    // The log of heads: entries at a run's first append and whenever it comes to rest (see headLog.ts).
    const head = events.at(-1)!;
    const rest = isCheckpoint(batch);
    const final = rest && batch.run.status !== 'paused';
    if (rest || !journal)
      this.#unfolded.push({
        runId: batch.runId,
        profile: batch.run.profile,
        seq: head.seq,
        hash: head.hash,
        ...(rest ? { rest } : {}),
        ...(final ? { final } : {}),
      });
    if (rest && this.#signer) {
      const tail = this.#fold();
      this.#signed = { ...tail, ...this.#signer.signLog(tail) };
    }
  }

  /** Fold the entries appended since the last fold; the log's head after them. */
  #fold() {
    let tail = logHeadAfter(this.#log.at(-1));
    for (const fields of this.#unfolded) {
      const entry = deepFreeze(nextLogEntry(tail, fields));
      this.#log.push(entry);
      tail = logHeadAfter(entry);
    }
    this.#unfolded = [];
    return tail;
  }

  async readHeadLog(): Promise<HeadLog> {
    this.#fold();
    return { entries: [...this.#log], ...(this.#signed ? { signed: { ...this.#signed } } : {}) };
  }

  async readJournal(runId: string, fromSeq = 0): Promise<JournalEvent[]> {
    return (this.#journals.get(runId) ?? []).slice(fromSeq);
  }

  async readJournalPage(runId: string, fromSeq: number, limit: number): Promise<JournalEvent[]> {
    return (this.#journals.get(runId) ?? []).slice(fromSeq, fromSeq + Math.max(0, limit));
  }

  async readJournalOfTypes(runId: string, types: readonly JournalEventType[], toSeq: number): Promise<JournalEvent[]> {
    const wanted = new Set<string>(types);
    return (this.#journals.get(runId) ?? []).slice(0, toSeq + 1).filter((event) => wanted.has(event.type));
  }

  async getRun(runId: string): Promise<RunSummary | undefined> {
    const run = this.#runs.get(runId);
    return run && structuredClone(run);
  }

  async listRuns(filter: RunFilter = {}): Promise<RunSummary[]> {
    return structuredClone(selectRuns(this.#runs.values(), filter));
  }

  async getApproval(approvalId: string): Promise<ApprovalRecord | undefined> {
    const approval = this.#approvals.get(approvalId);
    return approval && structuredClone(approval);
  }

  async listApprovals(filter: ApprovalFilter = {}): Promise<ApprovalRecord[]> {
    return structuredClone(selectApprovals(this.#approvals.values(), filter));
  }

  async getProfileUsage(profile: string): Promise<BudgetUsage> {
    return { ...(this.#usage.get(profile) ?? ZERO_USAGE) };
  }

  // Facts and vectors are created on first use: most in-memory stores (replays, tests of one
  // run) never touch them.

  putFacts(facts: readonly FactRecord[]): Promise<void> {
    return (this.#facts ??= new InMemoryMemoryStore()).putFacts(facts);
  }

  queryFacts(profile: string, query?: FactQuery): Promise<FactRecord[]> {
    return (this.#facts ??= new InMemoryMemoryStore()).queryFacts(profile, query);
  }

  namespaces(profile: string): Promise<string[]> {
    return (this.#facts ??= new InMemoryMemoryStore()).namespaces(profile);
  }

  deleteFacts(profile: string, namespace?: string): Promise<number> {
    return (this.#facts ??= new InMemoryMemoryStore()).deleteFacts(profile, namespace);
  }

  /** The vectors of one dimension; the same backend, holding the same vectors, on every call. */
  vectors(dimension: number): VectorBackend {
    this.#vectors ??= new Map();
    let backend = this.#vectors.get(dimension);
    if (!backend) {
      backend = new PersistedVectorBackend(dimension, new InMemoryVectorRows());
      this.#vectors.set(dimension, backend);
    }
    return backend;
  }
}
