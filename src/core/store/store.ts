import { ConflictError, ValidationError } from '../errors.ts';
import type { HeadLog } from '../journal/headLog.ts';
import type { HeadSignature } from '../journal/headSignature.ts';
import type { JournalHead } from '../journal/journal.ts';
import type { BudgetUsage } from '../schema/budget.ts';
import type { JournalEvent, JournalEventType, RunStatus } from '../schema/journalEvent.ts';

export type { RunStatus };

/** A run as listed: a projection of its journal, written in the same transaction as its events. */
export interface RunSummary {
  runId: string;
  traceId: string;
  profile: string;
  goal: string;
  status: RunStatus;
  createdAt: number;
  updatedAt: number;
  head: JournalHead;
  /** The approval the run waits for, when paused. */
  pendingApprovalId?: string;
  /** The delegated sub-run the run waits for, when paused (its `delegate` call continues when that run ends). */
  waitingFor?: string;
  /** The tools its plans call, in first-use order (absent for runs written before it was recorded). */
  tools?: string[];
  /** What it has spent (absent for runs written before it was recorded). */
  usage?: BudgetUsage;
  /** Why it failed, when it did. */
  errorCode?: string;
  /** The host's signature of `head`, written with every batch that leaves the run at rest (paused or finished). */
  signature?: HeadSignature;
}

/** `cancelled`: its run was cancelled while it waited. */
export type ApprovalStatus = 'pending' | 'approved' | 'rejected' | 'timed_out' | 'cancelled';

/** An approval as listed; its source of truth is the run's journal. */
export interface ApprovalRecord {
  approvalId: string;
  runId: string;
  traceId: string;
  profile: string;
  stepId: string;
  tool: string;
  args: Record<string, unknown>;
  argsHash: string;
  reason: string;
  status: ApprovalStatus;
  requestedAt: number;
  /** When the approval policy decides by itself; absent when it waits forever. */
  deadline?: number;
  decision?: 'approve' | 'reject' | 'edit';
  /** The decider's name as given. */
  decidedBy?: string;
  /** Who decided as the host authenticated them (a token's identity). */
  decidedByPrincipal?: string;
  decisionReason?: string;
  decidedAt?: number;
}

/** One atomic write: events appended to a run plus the projections they change. */
export interface AppendBatch {
  runId: string;
  events: readonly JournalEvent[];
  /** The head the writer saw; `null` for a new run. A mismatch fails with `head_mismatch` and writes nothing. */
  expectedHead: JournalHead | null;
  run: RunSummary;
  approvals?: readonly ApprovalRecord[];
  /** Spending to add to the profile's running total. */
  profileUsage?: { profile: string; delta: BudgetUsage };
  /**
   * The canonical JSON of each event's `data`, in order, as its hash covers it (`sealEvent` gives
   * it): a store that keeps events as text writes this instead of writing the data again. Absent,
   * the store writes it itself; a text that is not the data's breaks the journal's verification,
   * as a wrong hash would.
   */
  dataTexts?: readonly string[];
}

/** Filters for listing runs. */
export interface RunFilter {
  status?: RunStatus;
  profile?: string;
  traceId?: string;
  limit?: number;
}

/** Filters for listing approvals. */
export interface ApprovalFilter {
  status?: ApprovalStatus;
  profile?: string;
  runId?: string;
}

/**
 * The storage port: append-only journals with their projections (runs, approvals, profile
 * spending). Every adapter — in memory, IndexedDB, SQLite, Durable Objects — writes a batch
 * atomically and checks `expectedHead`, so two writers can never fork a journal. Each append
 * also adds an entry to the store's log of heads in the same write (`journal/headLog.ts`).
 */
export interface Store {
  append(batch: AppendBatch): Promise<void>;
  readJournal(runId: string, fromSeq?: number): Promise<JournalEvent[]>;
  /**
   * At most `limit` events of a run's journal from `fromSeq` on, in order: one page of a long
   * journal, so a view can be sent while the rest is unread. Optional: without it a view reads
   * the whole journal (`journal/journalPager.ts`).
   */
  readJournalPage?(runId: string, fromSeq: number, limit: number): Promise<JournalEvent[]>;
  /** The events of a run's journal up to `toSeq` whose type is one of `types`, in order. Optional, like `readJournalPage`. */
  readJournalOfTypes?(runId: string, types: readonly JournalEventType[], toSeq: number): Promise<JournalEvent[]>;
  getRun(runId: string): Promise<RunSummary | undefined>;
  listRuns(filter?: RunFilter): Promise<RunSummary[]>;
  getApproval(approvalId: string): Promise<ApprovalRecord | undefined>;
  listApprovals(filter?: ApprovalFilter): Promise<ApprovalRecord[]>;
  getProfileUsage(profile: string): Promise<BudgetUsage>;
  /** The store's log of heads: every entry, in order, and its latest signed head. */
  readHeadLog(): Promise<HeadLog>;
  close?(): Promise<void>;
}

/** The `prev` of a journal's first event. */
const NO_PREVIOUS = '0'.repeat(64);

/** Check a batch against the head a store holds; shared by every adapter. */
export function checkBatch(batch: AppendBatch, current: JournalHead | undefined): void {
  if (batch.events.length === 0) throw new ValidationError('an append needs at least one event', { code: 'empty_append' });
  const expected = batch.expectedHead;
  const matches = expected === null ? current === undefined : current !== undefined && current.seq === expected.seq && current.hash === expected.hash;
  if (!matches) {
    throw new ConflictError(`run ${batch.runId} moved on: expected head ${expected ? expected.seq : 'none'}, found ${current ? current.seq : 'none'}`, {
      code: 'head_mismatch',
      details: { runId: batch.runId },
    });
  }
  let previous = expected;
  for (const event of batch.events) {
    if (event.runId !== batch.runId || event.seq !== (previous ? previous.seq + 1 : 0) || event.prev !== (previous ? previous.hash : NO_PREVIOUS)) {
      throw new ValidationError(`event ${event.seq} does not continue run ${batch.runId}'s chain`, { code: 'broken_chain' });
    }
    previous = { seq: event.seq, hash: event.hash };
  }
  checkApprovalsOfRun(batch);
}

/** A batch carries approvals of its own run and profile only (`approval_outside_run`); part of {@link checkBatch}. */
export function checkApprovalsOfRun(batch: Pick<AppendBatch, 'runId' | 'run' | 'approvals'>): void {
  for (const approval of batch.approvals ?? []) {
    if (approval.runId !== batch.runId || approval.profile !== batch.run.profile) {
      throw new ValidationError(`approval ${approval.approvalId} is not run ${batch.runId}'s`, { code: 'approval_outside_run' });
    }
  }
}

/**
 * An approval belongs to one run for good. Its id is journal data, so without this check an
 * imported journal could carry another run's approval id and move that row to its own run
 * and profile. `ownerOf` tells which run holds an id now (`undefined` for none); every adapter
 * asks it inside the transaction that writes the batch, and counts the batches staged before
 * in the same group commit.
 */
export function checkApprovalOwners(batch: Pick<AppendBatch, 'runId' | 'approvals'>, ownerOf: (approvalId: string) => string | undefined): void {
  for (const approval of batch.approvals ?? []) {
    const owner = ownerOf(approval.approvalId);
    if (owner !== undefined && owner !== batch.runId) {
      throw new ConflictError(`approval id ${approval.approvalId} belongs to another run`, { code: 'approval_id_taken', details: { runId: batch.runId } });
    }
  }
}

/** Freeze `value` and everything in it; a frozen event can be shared instead of copied. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) freezeAll(value);
  return value;
}

/** Freeze an object and the objects in it, stepping into children that are objects only. */
function freezeAll(value: object): void {
  Object.freeze(value);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (typeof item === 'object' && item !== null && !Object.isFrozen(item)) freezeAll(item);
    }
    return;
  }
  const keys = Object.keys(value);
  for (let i = 0; i < keys.length; i++) {
    const item = (value as Record<string, unknown>)[keys[i]!];
    if (typeof item === 'object' && item !== null && !Object.isFrozen(item)) freezeAll(item);
  }
}
