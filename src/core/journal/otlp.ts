import { sha256Hex } from './sha256.ts';
import type { JournalEvent, RunInputs } from '../schema/journalEvent.ts';
import { pairApprovals, pairModelCalls, pairToolCalls, runInputsOf, type ToolCallSpan } from './projections.ts';
import { redact } from '../policy/redaction.ts';

/** Most characters of a tool's arguments or result on a span: backends cap attributes anyway, and a span stays small. */
export const OTLP_VALUE_LIMIT = 8192;

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
export interface OtlpSpan {
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
export interface OtlpTraceExport {
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

type Completion = JournalEvent & { type: 'run_completed' };

/** What every span of a run's export shares, from the journal's first event. */
export interface OtlpRun {
  first: JournalEvent;
  traceId: string;
  rootId: string;
  profile: string;
  inputs: RunInputs | undefined;
}

/** The span ids and names of a run's export, from its journal's first event. */
export function otlpRunOf(first: JournalEvent): OtlpRun {
  const inputs = runInputsOf([first]);
  return {
    first,
    inputs,
    traceId: hexId(`trace:${inputs?.traceId ?? first.runId}`, 32),
    rootId: hexId(`run:${first.runId}`, 16),
    profile: inputs?.profile ?? '',
  };
}

/** The run's first `run_completed` event among `events` (the whole journal, or its markers). */
export function completionOf(events: readonly JournalEvent[]): Completion | undefined {
  return events.find((e): e is Completion => e.type === 'run_completed');
}

/** The `invoke_agent` span of the whole run, from its first event to `last`. */
export function otlpRootSpan(run: OtlpRun, last: JournalEvent, completed: Completion | undefined): OtlpSpan {
  const { first, inputs, profile } = run;
  return {
    traceId: run.traceId,
    spanId: run.rootId,
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
    status: completed ? (completed.data.success ? { code: 1 } : { code: 2, message: completed.data.error?.message ?? completed.data.stopReason }) : { code: 0 },
  };
}

/** The `execute_tool` span of one ended tool-call attempt. */
export function otlpToolSpan(run: OtlpRun, call: ToolCallSpan & { end: NonNullable<ToolCallSpan['end']> }): OtlpSpan {
  return {
    traceId: run.traceId,
    spanId: hexId(`span:${call.runId}:${call.end.seq}`, 16),
    parentSpanId: run.rootId,
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
  };
}

/** Approval spans: how long a step waited for a person, and what they decided (once they did). `events`: the journal or its markers. */
export function otlpApprovalSpans(run: OtlpRun, events: readonly JournalEvent[]): OtlpSpan[] {
  const spans: OtlpSpan[] = [];
  for (const approval of pairApprovals(events)) {
    const decided = approval.decided;
    if (!decided) continue;
    const decision = decided.type === 'approval_timeout' ? `timeout:${decided.data.action}` : decided.data.decision;
    spans.push({
      traceId: run.traceId,
      spanId: hexId(`approval:${run.first.runId}:${decided.seq}`, 16),
      parentSpanId: run.rootId,
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
  return spans;
}

/** Stage spans: each from its stage event to the next one (the last to the run's end), once it has ended. */
export function otlpStageSpans(run: OtlpRun, events: readonly JournalEvent[], completed: Completion | undefined): OtlpSpan[] {
  const stages = events.filter((e): e is JournalEvent & { type: 'stage' } => e.type === 'stage');
  const spans: OtlpSpan[] = [];
  for (const [i, stage] of stages.entries()) {
    const end = stages[i + 1] ?? (completed && completed.seq > stage.seq ? completed : undefined);
    if (!end) continue;
    spans.push({
      traceId: run.traceId,
      spanId: hexId(`stage:${run.first.runId}:${stage.seq}`, 16),
      parentSpanId: run.rootId,
      name: `stage ${stage.data.stage}`,
      kind: 1,
      startTimeUnixNano: nanos(stage.at),
      endTimeUnixNano: nanos(end.at),
      attributes: [attribute('cugar.stage', stage.data.stage), attribute('cugar.run.id', run.first.runId)],
      status: { code: 1 },
    });
  }
  return spans;
}

/** `chat {model}` spans, one per ended model call. `events`: the journal, or its model call events in order. */
export function otlpModelSpans(run: OtlpRun, events: readonly JournalEvent[]): OtlpSpan[] {
  const spans: OtlpSpan[] = [];
  // Each call journals the messages added since the previous one: the whole prompt is rebuilt as they come.
  const conversation: unknown[] = [];
  for (const call of pairModelCalls(events)) {
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
      traceId: run.traceId,
      spanId: hexId(`span:${call.runId}:${call.end.seq}`, 16),
      parentSpanId: run.rootId,
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
  return spans;
}

/** The export request around one run's spans (`spans` may be a placeholder the caller splits the serialised envelope at). */
export function otlpEnvelope<S = OtlpSpan[]>(spans: S, serviceName = 'cugar') {
  return {
    resourceSpans: [
      { resource: { attributes: [attribute('service.name', serviceName)] }, scopeSpans: [{ scope: { name: 'cugar', version: '0.1.0' }, spans }] },
    ],
  };
}

/**
 * Project a run's journal into OpenTelemetry spans following the GenAI semantic conventions:
 * one `invoke_agent` span for the run, one `execute_tool` span per tool call and one `chat {model}`
 * span per model call (usage, finish reason, the redacted prompt and answer), with
 * `gen_ai.*` attributes and hex trace and span ids derived from the journal (so the same
 * journal always exports the same trace).
 */
export function toOtlp(journal: readonly JournalEvent[], serviceName = 'cugar'): OtlpTraceExport {
  const first = journal[0];
  const last = journal.at(-1);
  if (!first || !last) return { resourceSpans: [] };
  const run = otlpRunOf(first);
  const completed = completionOf(journal);
  const spans: OtlpSpan[] = [otlpRootSpan(run, last, completed)];
  // An attempt still running (or cut short by a crash) has no end yet and no span.
  for (const call of pairToolCalls(journal)) if (call.end) spans.push(otlpToolSpan(run, call as Parameters<typeof otlpToolSpan>[1]));
  spans.push(...otlpApprovalSpans(run, journal), ...otlpStageSpans(run, journal, completed), ...otlpModelSpans(run, journal));
  return otlpEnvelope(spans, serviceName);
}

export { readOtlp, type OtlpSpanView } from './otlpRead.ts';
