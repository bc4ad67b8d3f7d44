/**
 * `cugar/stores`: the storage port and the kit adapters are built from. An adapter (SQLite,
 * IndexedDB, Durable Objects, your own) is only its transactions and key layout; the rest —
 * batch checks, group commit, the head cache, run and approval filters, a persisted vector
 * backend over a small rows port — is shared, and every adapter passes the same conformance
 * suites.
 */
export {
  checkApprovalOwners,
  checkApprovalsOfRun,
  checkBatch,
  deepFreeze,
  type AppendBatch,
  type ApprovalFilter,
  type ApprovalRecord,
  type ApprovalStatus,
  type RunFilter,
  type RunStatus,
  type RunSummary,
  type Store,
} from './store/store.ts';
export type { HostStore } from './store/hostStore.ts';
export { InMemoryStore } from './store/inMemoryStore.ts';
export { checkRunLimit, compareApprovals, compareRuns, matchesApprovalFilter, matchesRunFilter, selectApprovals, selectRuns } from './store/filters.ts';
export { GroupCommit, type GroupCommitOptions, type Refusals } from './store/groupCommit.ts';
export { HeadCache } from './store/headCache.ts';
export { HeadLogWriter, isCheckpoint, type HeadLogOptions } from './store/headLogWriter.ts';
export {
  EMPTY_LOG_HEAD,
  HeadLogEntrySchema,
  HeadLogSchema,
  logHeadAfter,
  nextLogEntry,
  type HeadLog,
  type HeadLogEntry,
  type LogHead,
  type SignedLogHead,
} from './journal/headLog.ts';
export {
  InMemoryVectorRows,
  PersistedVectorBackend,
  hasVectorSnapshots,
  vectorFromBytes,
  vectorToBytes,
  type GenerationChange,
  type StoredSnapshot,
  type VectorRow,
  type VectorRows,
  type VectorSnapshots,
} from './store/persistedVectors.ts';
export { SNAPSHOT_PART_BYTES, type SnapshotBytes } from './store/vectorSnapshot.ts';
export { FactRecordSchema, InMemoryMemoryStore, filterFacts, type FactQuery, type FactRecord, type MemoryStore } from './memory/memoryStore.ts';
export { JournalHeadSchema, isWellFormed, type JournalHead } from './journal/journal.ts';
export { ZERO_USAGE, addUsage } from './planning/planningAuthority.ts';
export type { BudgetUsage } from './schema/budget.ts';
export type { JournalEvent } from './schema/journalEvent.ts';
export type { VectorBackend, VectorHit, VectorRecord, VectorSearchOptions } from './vector/vectorBackend.ts';
