// Two runs compared as what they did, not as what they are called: ids, clocks and hashes differ
// between any two runs, so they are left out before the journals' first divergence is sought.
import { diffJournals, type JournalDifference } from '../../core/journal/journalDiff.ts';
import type { TraceRow } from './spans.ts';

/** Keys whose values name or time a run rather than say what it did. */
const VOLATILE = new Set([
  'runId',
  'traceId',
  'planId',
  'approvalId',
  'callId',
  'at',
  'durationMs',
  'waitedMs',
  'deadline',
  'idempotencyKey',
  'argsHash',
  'requestHash',
  'seed',
  'signature',
  'hash',
  'prev',
  'createdAt',
  'timestamp',
  'id',
  'forkOf',
  'requestId',
]);

/** Run ids and timestamps written into text (a reflection's summary, an error message) name the run, too. */
function plain(text: string): string {
  return text.replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z/g, '<time>').replace(/\brun_[0-9a-f]{8,}\b/g, '<run>');
}

function strip(value: unknown): unknown {
  if (typeof value === 'string') return plain(value);
  if (Array.isArray(value)) return value.map(strip);
  if (typeof value !== 'object' || value === null) return value;
  const kept: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) if (!VOLATILE.has(key)) kept[key] = strip(inner);
  return kept;
}

/** A run's events as the comparison reads them: type and data, with ids, times and hashes left out. */
export function comparable(records: readonly TraceRow[]): Array<{ seq: number; type: string; at: number; data: unknown }> {
  return records.map((record, index) => ({ seq: index, type: record.type, at: 0, data: strip(record.data) }));
}

/** Where two runs first did something different, or undefined when they did the same things. */
export function firstDivergence(a: readonly TraceRow[], b: readonly TraceRow[]): JournalDifference | undefined {
  return diffJournals(comparable(a), comparable(b));
}
