import type { ErrorInfo } from '../schema/error.ts';
import type { JournalEvent, JournalEventOf, RunInputs } from '../schema/journalEvent.ts';

/** One attempt of one tool call, paired from its `tool_call_start` and the event that ended it. */
export interface ToolCallSpan {
  runId: string;
  stepId: string;
  attempt: number;
  tool: string;
  worker: string;
  input: Record<string, unknown>;
  start: JournalEventOf<'tool_call_start'>;
  /** `tool_call_complete` or `tool_call_error`; absent while the call runs (or if the process died during it). */
  end?: JournalEventOf<'tool_call_complete'> | JournalEventOf<'tool_call_error'>;
  /** From the start's time to the end's (recorded durations, so every host and replay agrees). */
  durationMs?: number;
  output?: unknown;
  error?: ErrorInfo;
}

/**
 * Pair every tool-call attempt's start with its end: the one projection the trace, OTLP and the
 * dashboard build their tool spans from. Refusals that never started (invalid input, routing
 * failures) have no span; they stay `tool_call_error` events in the journal.
 */
export function pairToolCalls(journal: readonly JournalEvent[]): ToolCallSpan[] {
  const spans: ToolCallSpan[] = [];
  const open = new Map<string, ToolCallSpan>();
  for (const event of journal) {
    if (event.type === 'tool_call_start') {
      const { stepId, attempt, tool, worker, input } = event.data;
      const span: ToolCallSpan = { runId: event.runId, stepId, attempt, tool, worker, input, start: event };
      open.set(`${stepId}:${attempt}`, span);
      spans.push(span);
    } else if (event.type === 'tool_call_complete' || event.type === 'tool_call_error') {
      const key = `${event.data.stepId}:${event.data.attempt}`;
      const span = open.get(key);
      if (!span) continue;
      open.delete(key);
      span.end = event;
      span.durationMs = event.data.durationMs ?? Math.max(0, event.at - span.start.at);
      if (event.type === 'tool_call_complete') span.output = event.data.output;
      else span.error = event.data.error;
    }
  }
  return spans;
}

/** One approval, from its request to its decision or timeout. */
export interface ApprovalSpan {
  approvalId: string;
  stepId: string;
  tool: string;
  requested: JournalEventOf<'approval_requested'>;
  decided?: JournalEventOf<'approval_received'> | JournalEventOf<'approval_timeout'>;
  waitedMs?: number;
}

/** Pair every approval request with its decision (or timeout). */
export function pairApprovals(journal: readonly JournalEvent[]): ApprovalSpan[] {
  const spans = new Map<string, ApprovalSpan>();
  for (const event of journal) {
    if (event.type === 'approval_requested') {
      spans.set(event.data.approvalId, { approvalId: event.data.approvalId, stepId: event.data.stepId, tool: event.data.tool, requested: event });
    } else if (event.type === 'approval_received' || event.type === 'approval_timeout') {
      const span = spans.get(event.data.approvalId);
      if (!span || span.decided) continue;
      span.decided = event;
      span.waitedMs = Math.max(0, event.at - span.requested.at);
    }
  }
  return [...spans.values()];
}

/** The inputs a run recorded in its first event, if the journal starts with one. */
export function runInputsOf(journal: readonly JournalEvent[]): RunInputs | undefined {
  const first = journal[0];
  return first?.type === 'stage' ? first.data.inputs : undefined;
}
