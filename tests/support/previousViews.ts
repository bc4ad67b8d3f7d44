// The trace and OTLP projections and the view bodies as they were built before views were read
// page by page (commit 6554c69): whole journal in, whole view out. Kept as the reference the
// streamed views must match byte for byte (tests/node/streamedViews.test.ts).
import {
  deriveEvent,
  derivationOf,
  exportJournal,
  pairApprovals,
  redact,
  runInputsOf,
  sha256Hex,
  type DerivedFrom,
  type EventLike,
  type JournalEvent,
  type ModelCallSpan,
  type ToolCallSpan,
  type TraceRecord,
} from '../../src/core/index.ts';
import type { HeadSignature } from '../../src/core/journal/headSignature.ts';
import type { JournalEventType } from '../../src/core/schema/journalEvent.ts';

type Of<E extends EventLike, T extends JournalEventType> = Extract<E, { type: T }>;

/**
 * Pair every tool-call attempt's start with its end: the one projection the trace, OTLP and the
 * dashboard build their tool spans from. Refusals that never started (invalid input, routing
 * failures) have no span; they stay `tool_call_error` events in the journal.
 */
function pairToolCalls<E extends EventLike>(journal: readonly E[]): Array<ToolCallSpan<E>> {
  const spans: Array<ToolCallSpan<E>> = [];
  const open = new Map<string, ToolCallSpan<E>>();
  for (const event of journal as readonly EventLike[]) {
    if (event.type === 'tool_call_start') {
      const { stepId, attempt, tool, worker, input } = event.data;
      const span: ToolCallSpan<E> = { runId: event.runId, stepId, attempt, tool, worker, input, start: event as Of<E, 'tool_call_start'> };
      open.set(`${stepId}:${attempt}`, span);
      spans.push(span);
    } else if (event.type === 'tool_call_complete' || event.type === 'tool_call_error') {
      const key = `${event.data.stepId}:${event.data.attempt}`;
      const span = open.get(key);
      if (!span) continue;
      open.delete(key);
      span.end = event as Of<E, 'tool_call_complete'>;
      span.durationMs = event.data.durationMs ?? Math.max(0, event.at - span.start.at);
      if (event.type === 'tool_call_complete') span.output = event.data.output;
      else span.error = event.data.error;
    }
  }
  return spans;
}

/** Pair every model call's start with its answer or failure: what the trace and OTLP build their `chat` spans from. */
function pairModelCalls<E extends EventLike>(journal: readonly E[]): Array<ModelCallSpan<E>> {
  const spans: Array<ModelCallSpan<E>> = [];
  const open = new Map<string, ModelCallSpan<E>>();
  for (const event of journal as readonly EventLike[]) {
    if (event.type === 'model_call_start') {
      const { callId, turn, attempt, model } = event.data;
      const span: ModelCallSpan<E> = { runId: event.runId, callId, turn, attempt, model, start: event as Of<E, 'model_call_start'> };
      open.set(`${callId}:${attempt}`, span);
      spans.push(span);
    } else if (event.type === 'model_call_complete' || event.type === 'model_call_error') {
      const key = `${event.data.callId}:${event.data.attempt}`;
      const span = open.get(key);
      if (!span) continue;
      open.delete(key);
      span.end = event as Of<E, 'model_call_complete'> | Of<E, 'model_call_error'>;
      span.durationMs = event.data.durationMs;
    }
  }
  return spans;
}

/**
 * Project one run's journal into trace records. Durations come from the journal's own
 * times, so every host (and every replay) shows the same trace.
 */
export function previousTraceRecords(journal: readonly JournalEvent[]): TraceRecord[] {
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

/** Most characters of a tool's arguments or result on a span: backends cap attributes anyway, and a span stays small. */
const OTLP_VALUE_LIMIT = 8192;

/** JSON of `value`, cut at {@link OTLP_VALUE_LIMIT} characters with a marker saying how long it was. */
function boundedJson(value: unknown): string {
  const text = JSON.stringify(value) ?? 'null';
  return text.length <= OTLP_VALUE_LIMIT ? text : `${text.slice(0, OTLP_VALUE_LIMIT)}… (${text.length} characters)`;
}

type AttributeValue = { stringValue: string } | { intValue: string } | { doubleValue: number } | { boolValue: boolean };
interface OtlpAttribute {
  key: string;
  value: AttributeValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: OtlpAttribute[];
  status: { code: number; message?: string };
}

/** An OTLP/HTTP JSON `ExportTraceServiceRequest`. */
interface OtlpTraceExport {
  resourceSpans: Array<{
    resource: { attributes: OtlpAttribute[] };
    scopeSpans: Array<{ scope: { name: string; version: string }; spans: OtlpSpan[] }>;
  }>;
}

function attribute(key: string, value: string | number | boolean): OtlpAttribute {
  if (typeof value === 'boolean') return { key, value: { boolValue: value } };
  if (typeof value === 'number') return { key, value: Number.isInteger(value) ? { intValue: String(value) } : { doubleValue: value } };
  return { key, value: { stringValue: value } };
}

const nanos = (ms: number) => `${BigInt(Math.round(ms)) * 1_000_000n}`;
const hexId = (seed: string, length: 32 | 16) => sha256Hex(seed).slice(0, length);

/**
 * Project a run's journal into OpenTelemetry spans following the GenAI semantic conventions:
 * one `invoke_agent` span for the run, one `execute_tool` span per tool call and one `chat {model}`
 * span per model call (usage, finish reason, the redacted prompt and answer), with
 * `gen_ai.*` attributes and hex trace and span ids derived from the journal (so the same
 * journal always exports the same trace).
 */
export function previousOtlp(journal: readonly JournalEvent[], serviceName = 'cugar'): OtlpTraceExport {
  const first = journal[0];
  const last = journal.at(-1);
  if (!first || !last) return { resourceSpans: [] };
  const inputs = runInputsOf(journal);
  const traceId = hexId(`trace:${inputs?.traceId ?? first.runId}`, 32);
  const rootId = hexId(`run:${first.runId}`, 16);
  const completed = journal.find((e): e is JournalEvent & { type: 'run_completed' } => e.type === 'run_completed');
  const profile = inputs?.profile ?? '';
  const spans: OtlpSpan[] = [
    {
      traceId,
      spanId: rootId,
      name: `invoke_agent ${profile}`.trim(),
      kind: 1,
      startTimeUnixNano: nanos(first.at),
      endTimeUnixNano: nanos(last.at),
      attributes: [
        attribute('gen_ai.operation.name', 'invoke_agent'),
        attribute('gen_ai.system', 'cugar'),
        attribute('gen_ai.agent.id', first.runId),
        attribute('gen_ai.agent.name', profile),
        attribute('gen_ai.conversation.id', inputs?.traceId ?? first.runId),
        attribute('cugar.run.id', first.runId),
        attribute('cugar.goal', inputs?.goal ?? ''),
        attribute('cugar.journal.head', last.hash),
      ],
      status: completed
        ? completed.data.success
          ? { code: 1 }
          : { code: 2, message: completed.data.error?.message ?? completed.data.stopReason }
        : { code: 0 },
    },
  ];
  for (const call of pairToolCalls(journal)) {
    // An attempt still running (or cut short by a crash) has no end yet and no span.
    if (!call.end) continue;
    spans.push({
      traceId,
      spanId: hexId(`span:${call.runId}:${call.end.seq}`, 16),
      parentSpanId: rootId,
      name: `execute_tool ${call.tool}`,
      kind: 1,
      startTimeUnixNano: nanos(call.start.at),
      endTimeUnixNano: nanos(call.end.at),
      attributes: [
        attribute('gen_ai.operation.name', 'execute_tool'),
        attribute('gen_ai.system', 'cugar'),
        attribute('gen_ai.tool.name', call.tool),
        attribute('gen_ai.tool.call.id', `${call.runId}:${call.stepId}:${call.attempt}`),
        attribute('gen_ai.tool.type', 'function'),
        attribute('cugar.step.id', call.stepId),
        attribute('cugar.attempt', call.attempt),
        ...(call.worker ? [attribute('cugar.worker', call.worker)] : []),
        // The call's arguments and result, redacted and bounded, as the GenAI conventions name them.
        attribute('gen_ai.tool.call.arguments', boundedJson(redact(call.input))),
        ...(call.end.type === 'tool_call_complete' ? [attribute('gen_ai.tool.call.result', boundedJson(redact(call.output)))] : []),
      ],
      status: call.error ? { code: 2, message: `${call.error.code}: ${call.error.message}` } : { code: 1 },
    });
  }
  // Approvals: how long a step waited for a person, and what they decided (once they did).
  for (const approval of pairApprovals(journal)) {
    const decided = approval.decided;
    if (!decided) continue;
    const decision = decided.type === 'approval_timeout' ? `timeout:${decided.data.action}` : decided.data.decision;
    spans.push({
      traceId,
      spanId: hexId(`approval:${first.runId}:${decided.seq}`, 16),
      parentSpanId: rootId,
      name: `await_approval ${approval.tool}`,
      kind: 1,
      startTimeUnixNano: nanos(approval.requested.at),
      endTimeUnixNano: nanos(decided.at),
      attributes: [
        attribute('gen_ai.tool.name', approval.tool),
        attribute('cugar.approval.id', approval.approvalId),
        attribute('cugar.approval.decision', decision),
        attribute('cugar.step.id', approval.stepId),
      ],
      status: { code: 1 },
    });
  }
  // Stages: each from its stage event to the next one (the last to the run's end), once it has ended.
  const stages = journal.filter((e): e is JournalEvent & { type: 'stage' } => e.type === 'stage');
  for (const [i, stage] of stages.entries()) {
    const end = stages[i + 1] ?? (completed && completed.seq > stage.seq ? completed : undefined);
    if (!end) continue;
    spans.push({
      traceId,
      spanId: hexId(`stage:${first.runId}:${stage.seq}`, 16),
      parentSpanId: rootId,
      name: `stage ${stage.data.stage}`,
      kind: 1,
      startTimeUnixNano: nanos(stage.at),
      endTimeUnixNano: nanos(end.at),
      attributes: [attribute('cugar.stage', stage.data.stage), attribute('cugar.run.id', first.runId)],
      status: { code: 1 },
    });
  }
  // Each call journals the messages added since the previous one: the whole prompt is rebuilt as they come.
  const conversation: unknown[] = [];
  for (const call of pairModelCalls(journal)) {
    const { messages, fromMessage } = call.start.data.request;
    // A classification or a review has a prompt of its own, outside the conversation.
    if (!call.start.data.purpose) {
      conversation.length = Math.min(conversation.length, fromMessage ?? 0);
      conversation.push(...messages);
    }
    const prompt = call.start.data.purpose ? messages : conversation;
    if (!call.end) continue;
    const answer = call.end.type === 'model_call_complete' ? call.end.data : undefined;
    const failure = call.end.type === 'model_call_error' ? call.end.data.error : undefined;
    spans.push({
      traceId,
      spanId: hexId(`span:${call.runId}:${call.end.seq}`, 16),
      parentSpanId: rootId,
      name: `chat ${call.model}`,
      kind: 3,
      startTimeUnixNano: nanos(call.start.at),
      endTimeUnixNano: nanos(call.end.at),
      attributes: [
        attribute('gen_ai.operation.name', 'chat'),
        attribute('gen_ai.system', 'cugar'),
        attribute('gen_ai.request.model', call.model),
        ...(call.start.data.request.temperature !== undefined ? [attribute('gen_ai.request.temperature', call.start.data.request.temperature)] : []),
        ...(call.start.data.request.maxOutputTokens !== undefined ? [attribute('gen_ai.request.max_tokens', call.start.data.request.maxOutputTokens)] : []),
        ...(answer
          ? [
              attribute('gen_ai.response.model', answer.model),
              attribute('gen_ai.response.finish_reasons', answer.finishReason),
              attribute('gen_ai.usage.input_tokens', answer.usage.inputTokens),
              attribute('gen_ai.usage.output_tokens', answer.usage.outputTokens),
              // The prompt as journaled (already redacted) and the answer, redacted on the way out.
              attribute('gen_ai.input.messages', JSON.stringify(prompt)),
              attribute('gen_ai.output.messages', JSON.stringify(redact({ text: answer.text, toolCalls: answer.toolCalls }))),
            ]
          : []),
        attribute('cugar.model.call.id', call.callId),
        attribute('cugar.model.request_hash', call.start.data.requestHash),
        attribute('cugar.attempt', call.attempt),
      ],
      status: failure ? { code: 2, message: `${failure.code}: ${failure.message}` } : { code: 1 },
    });
  }
  return {
    resourceSpans: [
      { resource: { attributes: [attribute('service.name', serviceName)] }, scopeSpans: [{ scope: { name: 'cugar', version: '0.1.0' }, spans }] },
    ],
  };
}

/** The body GET /v1/runs/{id}/journal sent: JSON or NDJSON, raw or the redacted derivation named after `signature`. */
export function previousJournalBody(journal: readonly JournalEvent[], format: 'json' | 'ndjson', raw: boolean, signature?: HeadSignature): string {
  const derivedFrom: DerivedFrom | undefined = raw ? undefined : derivationOf(journal, signature);
  let previous: JournalEvent | undefined;
  const events = derivedFrom ? journal.map((event) => (previous = deriveEvent(previous, event, derivedFrom))) : journal;
  return format === 'ndjson' ? exportJournal(events) : `{"events":[${events.map((event) => JSON.stringify(event)).join(',')}]}`;
}

/** The body GET /v1/runs/{id}/trace sent. */
export function previousTraceBody(journal: readonly JournalEvent[]): string {
  return `{"records":[${previousTraceRecords(journal)
    .map((record) => JSON.stringify(redact(record)))
    .join(',')}]}`;
}

/** The body GET /v1/runs/{id}/otlp sent: the envelope split around its spans, each span redacted on its own. */
export function previousOtlpBody(journal: readonly JournalEvent[]): string {
  const otlp = previousOtlp(journal);
  const [resource] = otlp.resourceSpans;
  const [scope] = resource?.scopeSpans ?? [];
  if (!resource || !scope) return JSON.stringify(redact(otlp));
  const mark = '\u0000spans\u0000';
  const envelope = JSON.stringify(redact({ resourceSpans: [{ ...resource, scopeSpans: [{ ...scope, spans: mark }] }] }));
  const [prefix, suffix] = envelope.split(JSON.stringify(mark)) as [string, string];
  return `${prefix}[${scope.spans.map((span) => JSON.stringify(redact(span))).join(',')}]${suffix}`;
}
