import type { JournalEvent, JournalEventData, JournalEventType } from '../schema/journalEvent.ts';
import { ModelCallPairing, ToolCallPairing, pairApprovals, runInputsOf } from './projections.ts';

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

/** The event types a trace needs before its first record: stage and approval durations end at later events. */
export const TRACE_MARKER_TYPES = [
  'stage',
  'run_completed',
  'approval_requested',
  'approval_received',
  'approval_timeout',
] as const satisfies readonly JournalEventType[];

/**
 * Project one run's journal into trace records. Durations come from the journal's own
 * times, so every host (and every replay) shows the same trace.
 */
export function toTraceRecords(journal: readonly JournalEvent[]): TraceRecord[] {
  const first = journal[0];
  if (!first) return [];
  return journal.map(traceRecorder(first, journal));
}

/**
 * What {@link toTraceRecords} does one event at a time, for a journal read page by page: the
 * answer turns each event, fed in journal order, into its record. It needs the journal's
 * first event and, up front, its events of the {@link TRACE_MARKER_TYPES} (the whole journal
 * does too): a stage lasts until the next stage, an approval until its decision. Tool and model
 * call durations are paired as the events come, since a call's end follows its start.
 */
export function traceRecorder(first: JournalEvent, markers: readonly JournalEvent[]): (event: JournalEvent) => TraceRecord {
  const inputs = runInputsOf([first]);
  const traceId = inputs?.traceId ?? first.runId;
  const profile = inputs?.profile ?? '';
  const durations = new Map<number, number>();
  for (const approval of pairApprovals(markers))
    if (approval.decided && approval.waitedMs !== undefined) durations.set(approval.decided.seq, approval.waitedMs);
  // A stage lasts until the next stage begins or the run completes: one pass from the end.
  let nextBoundary: JournalEvent | undefined;
  for (let i = markers.length - 1; i >= 0; i--) {
    const event = markers[i]!;
    if (event.type === 'stage' && nextBoundary) durations.set(event.seq, nextBoundary.at - event.at);
    if (event.type === 'stage' || event.type === 'run_completed') nextBoundary = event;
    if (event.type === 'run_completed') durations.set(event.seq, event.at - first.at);
  }
  const tools = new ToolCallPairing();
  const models = new ModelCallPairing();
  return (event) => {
    const call = tools.add(event);
    const model = models.add(event);
    // An event that ends a call carries the call's duration; any other, what the markers gave it.
    const durationMs = call?.end === event ? call.durationMs : model?.end === event ? model.durationMs : durations.get(event.seq);
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
  };
}
