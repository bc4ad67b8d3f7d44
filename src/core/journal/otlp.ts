import * as z from 'zod';
import { ValidationError } from '../errors.ts';
import { sha256Hex } from './sha256.ts';
import type { JournalEvent } from '../schema/journalEvent.ts';
import { pairApprovals, pairModelCalls, pairToolCalls, runInputsOf } from './projections.ts';
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

// ---- reading OTLP/HTTP JSON from any producer

const AnyValueSchema: z.ZodType<unknown> = z.lazy(() =>
  z
    .object({
      stringValue: z.string().optional(),
      intValue: z.union([z.string(), z.number()]).optional(),
      doubleValue: z.union([z.number(), z.string()]).optional(),
      boolValue: z.boolean().optional(),
      bytesValue: z.string().optional(),
      arrayValue: z.object({ values: z.array(AnyValueSchema).optional() }).optional(),
      kvlistValue: z.object({ values: z.array(z.object({ key: z.string(), value: AnyValueSchema.optional() })).optional() }).optional(),
    })
    .loose(),
);
const AttributesSchema = z.array(z.object({ key: z.string(), value: AnyValueSchema.optional() }).loose()).optional();
const Nanos = z.union([z.string().regex(/^\d+$/, 'a time in nanoseconds'), z.number().int().nonnegative()]);
const OtlpInputSchema = z
  .object({
    resourceSpans: z.array(
      z
        .object({
          resource: z.object({ attributes: AttributesSchema }).loose().optional(),
          scopeSpans: z
            .array(
              z
                .object({
                  scope: z.object({ name: z.string().optional() }).loose().optional(),
                  spans: z
                    .array(
                      z
                        .object({
                          traceId: z.string(),
                          spanId: z.string(),
                          parentSpanId: z.string().optional(),
                          name: z.string(),
                          startTimeUnixNano: Nanos,
                          endTimeUnixNano: Nanos,
                          attributes: AttributesSchema,
                          status: z
                            .object({ code: z.union([z.number(), z.string()]).optional(), message: z.string().optional() })
                            .loose()
                            .optional(),
                        })
                        .loose(),
                    )
                    .optional(),
                })
                .loose(),
            )
            .optional(),
        })
        .loose(),
    ),
  })
  .loose();

/** A span read from an OTLP JSON file, flattened for display. */
export interface OtlpSpanView {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** Milliseconds since the epoch (fractions kept). */
  startMs: number;
  endMs: number;
  /** Depth below the trace's root spans (0 for a root). */
  depth: number;
  service?: string;
  attributes: Record<string, unknown>;
  /** 0 unset, 1 ok, 2 error. */
  statusCode: number;
  statusMessage?: string;
}

function plainValue(value: unknown): unknown {
  const v = (value ?? {}) as Record<string, unknown>;
  if (v['stringValue'] !== undefined) return v['stringValue'];
  if (v['intValue'] !== undefined) return Number(v['intValue']);
  if (v['doubleValue'] !== undefined) return Number(v['doubleValue']);
  if (v['boolValue'] !== undefined) return v['boolValue'];
  if (v['bytesValue'] !== undefined) return v['bytesValue'];
  if (v['arrayValue'] !== undefined) return ((v['arrayValue'] as { values?: unknown[] }).values ?? []).map(plainValue);
  if (v['kvlistValue'] !== undefined)
    return Object.fromEntries(
      ((v['kvlistValue'] as { values?: Array<{ key: string; value?: unknown }> }).values ?? []).map((kv) => [kv.key, plainValue(kv.value)]),
    );
  return null;
}

const attributesOf = (list: ReadonlyArray<{ key: string; value?: unknown }> | undefined) =>
  Object.fromEntries((list ?? []).map((a) => [a.key, plainValue(a.value)]));
const STATUS_CODES: Record<string, number> = { STATUS_CODE_UNSET: 0, STATUS_CODE_OK: 1, STATUS_CODE_ERROR: 2 };

/**
 * Read an OTLP/HTTP JSON `ExportTraceServiceRequest` (from CUGAr or any OpenTelemetry
 * exporter) into flat spans ordered as a waterfall: by start time, children after their
 * parents, each with its depth. Malformed input throws a `ValidationError` (`invalid_otlp`).
 */
export function readOtlp(input: unknown): OtlpSpanView[] {
  const parsed = OtlpInputSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ValidationError(`not OTLP trace JSON: ${issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : 'invalid'}`, { code: 'invalid_otlp' });
  }
  const spans: OtlpSpanView[] = [];
  for (const resource of parsed.data.resourceSpans) {
    const resourceAttributes = attributesOf(resource.resource?.attributes);
    const service = typeof resourceAttributes['service.name'] === 'string' ? resourceAttributes['service.name'] : undefined;
    for (const scope of resource.scopeSpans ?? []) {
      for (const span of scope.spans ?? []) {
        const code = span.status?.code;
        spans.push({
          traceId: span.traceId,
          spanId: span.spanId,
          ...(span.parentSpanId ? { parentSpanId: span.parentSpanId } : {}),
          name: span.name,
          startMs: Number(BigInt(span.startTimeUnixNano) / 1000n) / 1000,
          endMs: Number(BigInt(span.endTimeUnixNano) / 1000n) / 1000,
          depth: 0,
          ...(service ? { service } : {}),
          attributes: attributesOf(span.attributes),
          statusCode: typeof code === 'number' ? code : (STATUS_CODES[code ?? ''] ?? 0),
          ...(span.status?.message ? { statusMessage: span.status.message } : {}),
        });
      }
    }
  }
  // Depth-first from the roots (spans whose parent is absent from the file), siblings by start
  // time and, for equal starts (common at millisecond resolution), in the file's order.
  const order = new Map(spans.map((span, i) => [span, i]));
  const byStart = (a: OtlpSpanView, b: OtlpSpanView) => a.startMs - b.startMs || order.get(a)! - order.get(b)!;
  const ids = new Set(spans.map((s) => `${s.traceId}:${s.spanId}`));
  const children = new Map<string, OtlpSpanView[]>();
  const roots: OtlpSpanView[] = [];
  for (const span of spans) {
    const parent = span.parentSpanId ? `${span.traceId}:${span.parentSpanId}` : undefined;
    if (parent && ids.has(parent)) children.set(parent, [...(children.get(parent) ?? []), span]);
    else roots.push(span);
  }
  const ordered: OtlpSpanView[] = [];
  const stack = roots
    .sort(byStart)
    .reverse()
    .map((span) => ({ span, depth: 0 }));
  const seen = new Set<string>();
  while (stack.length) {
    const { span, depth } = stack.pop()!;
    const key = `${span.traceId}:${span.spanId}`;
    if (seen.has(key)) continue;
    seen.add(key);
    ordered.push({ ...span, depth });
    for (const child of (children.get(key) ?? []).sort(byStart).reverse()) stack.push({ span: child, depth: depth + 1 });
  }
  // Spans whose parents form a cycle are never reached from a root; they are listed last.
  for (const span of spans.sort(byStart)) if (!seen.has(`${span.traceId}:${span.spanId}`)) ordered.push(span);
  return ordered;
}
