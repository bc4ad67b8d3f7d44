import type { JournalEvent, JournalEventData, JournalEventType } from '../schema/journalEvent.ts';
import { pairApprovals, pairModelCalls, pairToolCalls, runInputsOf } from './projections.ts';

/** A journal event as a trace shows it: with its trace, profile, ISO timestamp and duration; discriminated by `type` like the journal. */
export type TraceRecord = {
  [T in JournalEventType]: {
    traceId: string;
    runId: string;
    profile: string;
    seq: number;
    type: T;
    /** Milliseconds since the epoch. */
    at: number;
    /** `at` as an ISO 8601 UTC timestamp. */
    timestamp: string;
    /** How long what this event closes took: a stage, a tool or model call, an approval wait, the run. */
    durationMs?: number;
    stepId?: string;
    data: JournalEventData<T>;
  };
}[JournalEventType];

/**
 * Project one run's journal into trace records. Durations come from the journal's own
 * times, so every host (and every replay) shows the same trace.
 */
export function toTraceRecords(journal: readonly JournalEvent[]): TraceRecord[] {
  const first = journal[0];
  if (!first) return [];
  const inputs = runInputsOf(journal);
  const traceId = inputs?.traceId ?? first.runId;
  const profile = inputs?.profile ?? '';
  const durations = new Map<number, number>();
  for (const call of pairToolCalls(journal)) if (call.end && call.durationMs !== undefined) durations.set(call.end.seq, call.durationMs);
  for (const call of pairModelCalls(journal)) if (call.end && call.durationMs !== undefined) durations.set(call.end.seq, call.durationMs);
  for (const approval of pairApprovals(journal))
    if (approval.decided && approval.waitedMs !== undefined) durations.set(approval.decided.seq, approval.waitedMs);
  // A stage lasts until the next stage begins or the run completes: one pass from the end.
  let nextBoundary: JournalEvent | undefined;
  for (let i = journal.length - 1; i >= 0; i--) {
    const event = journal[i]!;
    if (event.type === 'stage' && nextBoundary) durations.set(event.seq, nextBoundary.at - event.at);
    if (event.type === 'stage' || event.type === 'run_completed') nextBoundary = event;
    if (event.type === 'run_completed') durations.set(event.seq, event.at - first.at);
  }
  return journal.map((event) => {
    const durationMs = durations.get(event.seq);
    const stepId = 'stepId' in event.data && typeof event.data.stepId === 'string' ? event.data.stepId : undefined;
    return {
      traceId,
      runId: event.runId,
      profile,
      seq: event.seq,
      type: event.type,
      at: event.at,
      timestamp: new Date(event.at).toISOString(),
      ...(durationMs !== undefined ? { durationMs: Math.max(0, durationMs) } : {}),
      ...(stepId !== undefined ? { stepId } : {}),
      data: event.data,
    } as TraceRecord;
  });
}
