import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { selectApprovals, selectRuns } from './filters.ts';
import type { ApprovalRecord, RunSummary } from './store.ts';

const run = (runId: string, createdAt: number, status: RunSummary['status'] = 'running'): RunSummary => ({
  runId,
  traceId: 't',
  profile: 'p',
  goal: 'g',
  status,
  createdAt,
  updatedAt: createdAt,
  head: { seq: 0, hash: '0'.repeat(64) },
});
const approval = (approvalId: string, requestedAt: number): ApprovalRecord => ({
  approvalId,
  runId: 'r',
  traceId: 't',
  profile: 'p',
  stepId: 's',
  tool: 'x',
  args: {},
  argsHash: 'h',
  reason: 'r',
  status: 'pending',
  requestedAt,
});

describe('store filters', () => {
  it('list in one order whatever order the rows come in: runs newest first, approvals oldest first, ties by id', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.record({ id: fc.string({ minLength: 1, maxLength: 3 }), at: fc.integer({ min: 0, max: 3 }) }), {
          selector: (r) => r.id,
          maxLength: 20,
        }),
        (rows) => {
          const runs = rows.map((r) => run(r.id, r.at));
          const approvals = rows.map((r) => approval(r.id, r.at));
          expect(selectRuns([...runs].reverse()).map((r) => r.runId)).toEqual(selectRuns(runs).map((r) => r.runId));
          expect(selectApprovals([...approvals].reverse()).map((a) => a.approvalId)).toEqual(selectApprovals(approvals).map((a) => a.approvalId));
          const listed = selectRuns(runs);
          listed
            .slice(1)
            .forEach((r, i) => expect(listed[i]!.createdAt > r.createdAt || (listed[i]!.createdAt === r.createdAt && listed[i]!.runId < r.runId)).toBe(true));
        },
      ),
    );
  });

  it('applies a limit, and refuses one that is not a positive integer', () => {
    const runs = [run('a', 1), run('b', 2, 'completed'), run('c', 3)];
    expect(selectRuns(runs, { status: 'running', limit: 1 }).map((r) => r.runId)).toEqual(['c']);
    for (const limit of [0, -1, 1.5]) expect(() => selectRuns(runs, { limit })).toThrow(expect.objectContaining({ code: 'invalid_filter' }));
  });
});
