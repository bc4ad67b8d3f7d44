import type { ErrorInfo } from '../schema/error.ts';
import type { JournalEvent, JournalEventData, JournalEventType, RunInputs } from '../schema/journalEvent.ts';

/**
 * What the projections read of an event: a journal event, or a trace record built from one
 * (which carries no hashes). Discriminated by `type` like the journal itself.
 */
export type EventLike = { [T in JournalEventType]: { runId: string; seq: number; at: number; type: T; data: JournalEventData<T> } }[JournalEventType];

type Of<E extends EventLike, T extends JournalEventType> = Extract<E, { type: T }>;

/** One attempt of one tool call, paired from its `tool_call_start` and the event that ended it. */
export interface ToolCallSpan<E extends EventLike = JournalEvent> {
  runId: string;
  stepId: string;
  attempt: number;
  tool: string;
  worker: string;
  input: Record<string, unknown>;
  start: Of<E, 'tool_call_start'>;
  /** `tool_call_complete` or `tool_call_error`; absent while the call runs (or if the process died during it). */
  end?: Of<E, 'tool_call_complete'> | Of<E, 'tool_call_error'>;
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
export function pairToolCalls<E extends EventLike>(journal: readonly E[]): Array<ToolCallSpan<E>> {
  const spans: Array<ToolCallSpan<E>> = [];
  const pairing = new ToolCallPairing<E>();
  for (const event of journal) {
    const span = pairing.add(event);
    if (span && event.type === 'tool_call_start') spans.push(span);
  }
  return spans;
}

/**
 * {@link pairToolCalls} one event at a time, for a journal read page by page: `add` answers the
 * span an event opened or closed. A start whose attempt is already open replaces it, so the
 * replaced span never gets an end (`isOpen` tells which span an end would still close).
 */
export class ToolCallPairing<E extends EventLike = JournalEvent> {
  readonly #open = new Map<string, ToolCallSpan<E>>();

  add(item: E): ToolCallSpan<E> | undefined {
    const event = item as EventLike;
    if (event.type === 'tool_call_start') {
      const { stepId, attempt, tool, worker, input } = event.data;
      const span: ToolCallSpan<E> = { runId: event.runId, stepId, attempt, tool, worker, input, start: event as Of<E, 'tool_call_start'> };
      this.#open.set(`${stepId}:${attempt}`, span);
      return span;
    }
    if (event.type !== 'tool_call_complete' && event.type !== 'tool_call_error') return undefined;
    const key = `${event.data.stepId}:${event.data.attempt}`;
    const span = this.#open.get(key);
    if (!span) return undefined;
    this.#open.delete(key);
    span.end = event as Of<E, 'tool_call_complete'>;
    span.durationMs = event.data.durationMs ?? Math.max(0, event.at - span.start.at);
    if (event.type === 'tool_call_complete') span.output = event.data.output;
    else span.error = event.data.error;
    return span;
  }

  /** Whether `span` still waits for its end (false once ended or replaced by a new start of its attempt). */
  isOpen(span: ToolCallSpan<E>): boolean {
    return this.#open.get(`${span.stepId}:${span.attempt}`) === span;
  }
}

/** One approval, from its request to its decision or timeout. */
export interface ApprovalSpan<E extends EventLike = JournalEvent> {
  approvalId: string;
  stepId: string;
  tool: string;
  requested: Of<E, 'approval_requested'>;
  decided?: Of<E, 'approval_received'> | Of<E, 'approval_timeout'>;
  waitedMs?: number;
}

/** Pair every approval request with its decision (or timeout). */
export function pairApprovals<E extends EventLike>(journal: readonly E[]): Array<ApprovalSpan<E>> {
  const spans = new Map<string, ApprovalSpan<E>>();
  for (const event of journal as readonly EventLike[]) {
    if (event.type === 'approval_requested') {
      spans.set(event.data.approvalId, {
        approvalId: event.data.approvalId,
        stepId: event.data.stepId,
        tool: event.data.tool,
        requested: event as Of<E, 'approval_requested'>,
      });
    } else if (event.type === 'approval_received' || event.type === 'approval_timeout') {
      const span = spans.get(event.data.approvalId);
      if (!span || span.decided) continue;
      span.decided = event as Of<E, 'approval_received'>;
      span.waitedMs = Math.max(0, event.at - span.requested.at);
    }
  }
  return [...spans.values()];
}

/** The inputs a run recorded in its first event, if the journal starts with one. */
export function runInputsOf(journal: readonly EventLike[]): RunInputs | undefined {
  const first = journal[0];
  return first?.type === 'stage' ? first.data.inputs : undefined;
}

/** One attempt of one model call, paired from its `model_call_start` and the event that ended it. */
export interface ModelCallSpan<E extends EventLike = JournalEvent> {
  runId: string;
  callId: string;
  turn: number;
  attempt: number;
  model: string;
  start: Of<E, 'model_call_start'>;
  /** Absent while the call runs, or when the process died during it (the call is then re-issued). */
  end?: Of<E, 'model_call_complete'> | Of<E, 'model_call_error'>;
  durationMs?: number;
}

/** Pair every model call's start with its answer or failure: what the trace and OTLP build their `chat` spans from. */
export function pairModelCalls<E extends EventLike>(journal: readonly E[]): Array<ModelCallSpan<E>> {
  const spans: Array<ModelCallSpan<E>> = [];
  const pairing = new ModelCallPairing<E>();
  for (const event of journal) {
    const span = pairing.add(event);
    if (span && event.type === 'model_call_start') spans.push(span);
  }
  return spans;
}

/** {@link pairModelCalls} one event at a time: `add` answers the span an event opened or closed. */
export class ModelCallPairing<E extends EventLike = JournalEvent> {
  readonly #open = new Map<string, ModelCallSpan<E>>();

  add(item: E): ModelCallSpan<E> | undefined {
    const event = item as EventLike;
    if (event.type === 'model_call_start') {
      const { callId, turn, attempt, model } = event.data;
      const span: ModelCallSpan<E> = { runId: event.runId, callId, turn, attempt, model, start: event as Of<E, 'model_call_start'> };
      this.#open.set(`${callId}:${attempt}`, span);
      return span;
    }
    if (event.type !== 'model_call_complete' && event.type !== 'model_call_error') return undefined;
    const key = `${event.data.callId}:${event.data.attempt}`;
    const span = this.#open.get(key);
    if (!span) return undefined;
    this.#open.delete(key);
    span.end = event as Of<E, 'model_call_complete'> | Of<E, 'model_call_error'>;
    span.durationMs = event.data.durationMs;
    return span;
  }
}
