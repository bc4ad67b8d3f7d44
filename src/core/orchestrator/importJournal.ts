import { ConflictError, ValidationError } from '../errors.ts';
import { verifyJournal } from '../journal/journal.ts';
import type { JournalEvent } from '../schema/journalEvent.ts';
import type { HeadSigner } from '../journal/headSignature.ts';
import { signedSummary } from './runSession.ts';
import { projectRun } from './runState.ts';
import type { Store } from '../store/store.ts';

/**
 * Import a run's journal exported from another host (`exportJournal` → `parseJournal`): the
 * chain is verified first, the run must not exist here, and the journal, its run summary and
 * its approvals are written in one atomic append. The run can then be inspected, resumed,
 * approved or replayed here exactly as where it came from.
 */
export async function importJournal(store: Store, events: readonly JournalEvent[], signer?: HeadSigner): Promise<{ runId: string; events: number }> {
  const verified = verifyJournal(events);
  if (!verified.ok)
    throw new ValidationError(`the journal does not verify at seq ${verified.seq}: ${verified.reason}`, {
      code: 'journal_invalid',
      details: { seq: verified.seq },
    });
  const first = events[0];
  if (!first) throw new ValidationError('the journal is empty', { code: 'journal_invalid' });
  if (await store.getRun(first.runId))
    throw new ConflictError(`run ${first.runId} already exists here`, { code: 'run_exists', details: { runId: first.runId } });
  const state = projectRun(events);
  // Signed with this host's key: from here on it attests to holding the journal as verified now.
  await store.append({ runId: first.runId, events, expectedHead: null, run: signedSummary(state, signer), approvals: [...state.approvals.values()] });
  return { runId: first.runId, events: events.length };
}
