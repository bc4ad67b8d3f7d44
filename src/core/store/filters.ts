import { ValidationError } from '../errors.ts';
import type { ApprovalFilter, ApprovalRecord, RunFilter, RunSummary } from './store.ts';

/** Whether `run` passes every field of `filter` that is set (`limit` is applied by {@link selectRuns}). */
export function matchesRunFilter(run: RunSummary, filter: RunFilter): boolean {
  return (
    (!filter.status || run.status === filter.status) &&
    (!filter.profile || run.profile === filter.profile) &&
    (!filter.traceId || run.traceId === filter.traceId)
  );
}

/** The order every store lists runs in: newest first, ties broken by run id ascending. */
export function compareRuns(a: RunSummary, b: RunSummary): number {
  return b.createdAt - a.createdAt || (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0);
}

/**
 * Check a {@link RunFilter}'s `limit`: absent, or a positive integer. Adapters that put the
 * limit into a query call this first; {@link selectRuns} calls it for the others.
 */
export function checkRunLimit(filter: RunFilter): void {
  if (filter.limit !== undefined && !(Number.isInteger(filter.limit) && filter.limit > 0))
    throw new ValidationError('limit must be a positive integer', { code: 'invalid_filter' });
}

/** The runs of `runs` that pass `filter`, in listing order ({@link compareRuns}), at most `filter.limit` of them. */
export function selectRuns(runs: Iterable<RunSummary>, filter: RunFilter = {}): RunSummary[] {
  checkRunLimit(filter);
  const selected = [...runs].filter((run) => matchesRunFilter(run, filter)).sort(compareRuns);
  return filter.limit === undefined ? selected : selected.slice(0, filter.limit);
}

/** Whether `approval` passes every field of `filter` that is set. */
export function matchesApprovalFilter(approval: ApprovalRecord, filter: ApprovalFilter): boolean {
  return (
    (!filter.status || approval.status === filter.status) &&
    (!filter.profile || approval.profile === filter.profile) &&
    (!filter.runId || approval.runId === filter.runId)
  );
}

/** The order every store lists approvals in: oldest request first, ties broken by approval id ascending. */
export function compareApprovals(a: ApprovalRecord, b: ApprovalRecord): number {
  return a.requestedAt - b.requestedAt || (a.approvalId < b.approvalId ? -1 : a.approvalId > b.approvalId ? 1 : 0);
}

/** The approvals of `approvals` that pass `filter`, in listing order ({@link compareApprovals}). */
export function selectApprovals(approvals: Iterable<ApprovalRecord>, filter: ApprovalFilter = {}): ApprovalRecord[] {
  return [...approvals].filter((approval) => matchesApprovalFilter(approval, filter)).sort(compareApprovals);
}
