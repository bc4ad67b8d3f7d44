import type { JournalEvent, JournalEventType } from './journal.ts';

/** A journal event as a trace shows it: with its trace, profile, ISO timestamp and duration. */
export interface TraceRecord {
  traceId: string;
  runId: string;
  profile: string;
  seq: number;
  type: JournalEventType;
  /** Milliseconds since the epoch. */
  at: number;
  /** `at` as an ISO 8601 UTC timestamp. */
  timestamp: string;
  /** How long what this event closes took: a stage, a tool call, an approval wait, the run. */
  durationMs?: number;
  stepId?: string;
  data: Record<string, unknown>;
}

/**
 * Project one run's journal into trace records. Durations come from the journal's own
 * times, so every host (and every replay) shows the same trace.
 */
export function toTraceRecords(journal: readonly JournalEvent[]): TraceRecord[] {
  const first = journal[0];
  if (!first) return [];
  const inputs = first.data['inputs'] as { traceId?: string; profile?: string } | undefined;
  const traceId = inputs?.traceId ?? first.runId;
  const profile = inputs?.profile ?? '';
  const requested = new Map<string, number>();
  const records: TraceRecord[] = [];
  for (let i = 0; i < journal.length; i++) {
    const event = journal[i]!;
    let durationMs: number | undefined;
    switch (event.type) {
      case 'stage': {
        const next = journal.slice(i + 1).find((e) => e.type === 'stage' || e.type === 'run_completed');
        durationMs = next ? next.at - event.at : undefined;
        break;
      }
      case 'tool_call_complete':
      case 'tool_call_error':
        durationMs = typeof event.data['durationMs'] === 'number' ? event.data['durationMs'] : undefined;
        break;
      case 'approval_requested':
        requested.set(event.data['approvalId'] as string, event.at);
        break;
      case 'approval_received':
      case 'approval_timeout': {
        const since = requested.get(event.data['approvalId'] as string);
        durationMs = since === undefined ? undefined : event.at - since;
        break;
      }
      case 'run_completed':
        durationMs = event.at - first.at;
        break;
      default:
        break;
    }
    records.push({
      traceId,
      runId: event.runId,
      profile,
      seq: event.seq,
      type: event.type,
      at: event.at,
      timestamp: new Date(event.at).toISOString(),
      ...(durationMs !== undefined ? { durationMs: Math.max(0, durationMs) } : {}),
      ...(typeof event.data['stepId'] === 'string' ? { stepId: event.data['stepId'] } : {}),
      data: event.data,
    });
  }
  return records;
}
