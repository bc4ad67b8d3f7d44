import type { JournalEvent } from '../schema/journalEvent.ts';
import type { JournalPager } from './journalPager.ts';
import { completionOf, otlpApprovalSpans, otlpModelSpans, otlpRootSpan, otlpRunOf, otlpStageSpans, otlpToolSpan, type OtlpRun, type OtlpSpan } from './otlp.ts';
import { ToolCallPairing, type ToolCallSpan } from './projections.ts';
import { TRACE_MARKER_TYPES, traceRecorder, type TraceRecord } from './trace.ts';

// The trace and OTLP projections of a journal read page by page (journalPager.ts), so a view of
// a long run can be sent as it is read. What a record or span needs from later in the journal
// (when a stage or an approval ended, how the run completed) comes from the journal's few
// marker events, read first; everything else is derived as the pages come. Concatenated, the
// pages are exactly `toTraceRecords(journal)` and the spans of `toOtlp(journal)`.

/** The trace records of the journal, a page at a time: together, `toTraceRecords` of it. */
export async function* traceRecordPages(pager: JournalPager): AsyncGenerator<TraceRecord[]> {
  const markers = await pager.ofTypes(TRACE_MARKER_TYPES);
  let record: ((event: JournalEvent) => TraceRecord) | undefined;
  for await (const page of pager.pages()) yield page.map((record ??= traceRecorder(page[0]!, markers)));
}

type EndedCall = ToolCallSpan & { end: NonNullable<ToolCallSpan['end']> };

/** Most started calls kept before the ones already sent are dropped from the front. */
const COMPACT_AT = 4096;

/**
 * The spans of `toOtlp` of the journal, a page at a time: the run's root span first, then each
 * tool call's in the order the attempts started (an attempt still open when a page ends holds
 * back the ones that started after it), then approvals, stages and model calls, which the
 * export lists after every tool call. Nothing for an empty journal (`toOtlp` has no resource).
 */
export async function* otlpSpanPages(pager: JournalPager): AsyncGenerator<OtlpSpan[]> {
  const markers = await pager.ofTypes(TRACE_MARKER_TYPES);
  const completed = completionOf(markers);
  const last = await pager.last();
  if (!last) return;
  let run: OtlpRun | undefined;
  const pairing = new ToolCallPairing();
  let started: ToolCallSpan[] = [];
  let sent = 0;
  const modelEvents: JournalEvent[] = [];
  for await (const page of pager.pages()) {
    const spans: OtlpSpan[] = [];
    if (!run) spans.push(otlpRootSpan((run = otlpRunOf(page[0]!)), last, completed));
    for (const event of page) {
      if (event.type.startsWith('model_call_')) modelEvents.push(event);
      const span = pairing.add(event);
      if (span && event.type === 'tool_call_start') started.push(span);
    }
    for (; sent < started.length; sent++) {
      const call = started[sent]!;
      if (call.end) spans.push(otlpToolSpan(run, call as EndedCall));
      // A replaced attempt never ends: it has no span and holds nothing back.
      else if (pairing.isOpen(call)) break;
    }
    if (sent >= COMPACT_AT) {
      started = started.slice(sent);
      sent = 0;
    }
    if (spans.length) yield spans;
  }
  if (!run) return;
  // Attempts cut short (a crash, or a run still going) have no span; those that started after them do.
  const rest: OtlpSpan[] = [];
  for (const call of started.slice(sent)) if (call.end) rest.push(otlpToolSpan(run, call as EndedCall));
  rest.push(...otlpApprovalSpans(run, markers), ...otlpStageSpans(run, markers, completed), ...otlpModelSpans(run, modelEvents));
  if (rest.length) yield rest;
}
