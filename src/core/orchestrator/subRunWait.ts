import { CugarError, type CugarError as CugarErrorType } from '../errors.ts';
import type { RunSummary, Store } from '../store/store.ts';
import type { RunOutcome } from './runOutcome.ts';
import type { RunState } from './runState.ts';
import { entry, type Entry } from './stages/entry.ts';

// A delegated sub-run that stops for a person pauses the run that delegated to it: the parent's
// `delegate` call stays started without a result, the parent journals `run_paused` with
// `waitingFor`, and when the sub-run ends (approved and finished, rejected, failed, cancelled)
// the parent is resumed, its call re-runs (the tool is idempotent) and takes the sub-run's
// result from the sub-run's journal. Hosts that restart in between find the parent again in
// their sweep ({@link waitingParentsToResume}).

/** The code of the signal a `delegate` call gives when its sub-run waits for a person. */
export const SUBRUN_WAITING = 'subrun_waiting';

/** The signal a `delegate` call gives when its sub-run `runId` waits (for `approvalId`, or for a sub-run of its own). */
export function subRunWaiting(runId: string, approvalId?: string): CugarError {
  return new CugarError(`the sub-run ${runId} waits for ${approvalId ? `approval ${approvalId}` : 'a sub-run of its own'}`, {
    code: SUBRUN_WAITING,
    failureMode: 'AGENT',
    retryable: false,
    details: { runId, ...(approvalId ? { approvalId } : {}) },
  });
}

/**
 * The `run_paused` a call's failure stands for, when it is the signal of a waiting sub-run;
 * undefined otherwise. `at` is the time already read for the call's end (one clock read per event).
 */
export function pauseForSubRun(failure: CugarErrorType, at: number): Entry | undefined {
  if (failure.code !== SUBRUN_WAITING) return undefined;
  const { runId, approvalId } = (failure.details ?? {}) as { runId?: unknown; approvalId?: unknown };
  if (typeof runId !== 'string') return undefined;
  return entry('run_paused', { reason: 'awaiting_subrun', waitingFor: { runId, ...(typeof approvalId === 'string' ? { approvalId } : {}) } }, at);
}

/** Statuses in which a sub-run is still on its way: its end resumes the parent, not a caller. */
const UNDER_WAY = new Set(['paused', 'running']);

/** Whether `state` is paused for a sub-run that has not ended yet (resuming it now would only pause it again). */
export async function waitsForSubRun(store: Pick<Store, 'getRun'>, state: RunState): Promise<boolean> {
  if (state.status !== 'paused' || !state.waitingFor) return false;
  const child = await store.getRun(state.waitingFor);
  return child !== undefined && UNDER_WAY.has(child.status);
}

/** What continuing parents needs of the orchestrator. */
export interface ParentHost {
  store: Pick<Store, 'getRun' | 'listRuns'>;
  active(runId: string): boolean;
  resume(runId: string): Promise<RunOutcome>;
}

/**
 * Once a delegated sub-run has ended, resume the run that waits for it (which resumes its own
 * parent in turn when it ends). Nothing happens for a sub-run that is still under way, a parent
 * that is not waiting for this sub-run, or one that is being driven. A parent that cannot be
 * resumed now stays paused; the hosts' sweep tries it again.
 */
export async function continueParent(host: ParentHost, state: RunState): Promise<void> {
  const parentId = state.inputs.delegatedBy?.runId;
  if (!parentId || UNDER_WAY.has(state.status) || host.active(parentId)) return;
  const parent = await host.store.getRun(parentId);
  if (parent?.status !== 'paused' || parent.waitingFor !== state.runId) return;
  await host.resume(parentId).catch(() => undefined);
}

/** Paused runs whose awaited sub-run has ended (a host stopped between the two): the sweep resumes them. */
export async function waitingParentsToResume(store: Pick<Store, 'getRun' | 'listRuns'>): Promise<RunSummary[]> {
  const due: RunSummary[] = [];
  for (const run of await store.listRuns({ status: 'paused' })) {
    if (!run.waitingFor) continue;
    const child = await store.getRun(run.waitingFor);
    if (!child || !UNDER_WAY.has(child.status)) due.push(run);
  }
  return due;
}
