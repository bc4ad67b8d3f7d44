import { sha256Hex } from './sha256.ts';
import { toTraceRecords } from './trace.ts';
import type { JournalEvent } from './journal.ts';

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
 * one `invoke_agent` span for the run and one `execute_tool` span per tool call, with
 * `gen_ai.*` attributes and hex trace and span ids derived from the journal (so the same
 * journal always exports the same trace).
 */
export function toOtlp(journal: readonly JournalEvent[], serviceName = 'cugar'): OtlpTraceExport {
  const records = toTraceRecords(journal);
  const first = records[0];
  if (!first) return { resourceSpans: [] };
  const traceId = hexId(`trace:${first.traceId}`, 32);
  const rootId = hexId(`run:${first.runId}`, 16);
  const last = records.at(-1)!;
  const completed = records.find((r) => r.type === 'run_completed');
  const inputs = (journal[0]!.data['inputs'] ?? {}) as { goal?: string; profile?: string };
  const spans: OtlpSpan[] = [
    {
      traceId,
      spanId: rootId,
      name: `invoke_agent ${inputs.profile ?? ''}`.trim(),
      kind: 1,
      startTimeUnixNano: nanos(first.at),
      endTimeUnixNano: nanos(last.at),
      attributes: [
        attribute('gen_ai.operation.name', 'invoke_agent'),
        attribute('gen_ai.system', 'cugar'),
        attribute('gen_ai.agent.id', first.runId),
        attribute('gen_ai.agent.name', inputs.profile ?? ''),
        attribute('gen_ai.conversation.id', first.traceId),
        attribute('cugar.run.id', first.runId),
        attribute('cugar.goal', inputs.goal ?? ''),
        attribute('cugar.journal.head', last.data === undefined ? '' : (journal.at(-1)?.hash ?? '')),
      ],
      status: completed ? (completed.data['success'] ? { code: 1 } : { code: 2, message: String((completed.data['error'] as { message?: string } | undefined)?.message ?? completed.data['stopReason']) }) : { code: 0 },
    },
  ];
  const starts = new Map<string, (typeof records)[number]>();
  for (const record of records) {
    const key = `${record.stepId}:${String(record.data['attempt'])}`;
    if (record.type === 'tool_call_start') starts.set(key, record);
    if (record.type !== 'tool_call_complete' && record.type !== 'tool_call_error') continue;
    const start = starts.get(key);
    const tool = String(start?.data['tool'] ?? '');
    const error = record.type === 'tool_call_error' ? (record.data['error'] as { code?: string; message?: string }) : undefined;
    spans.push({
      traceId,
      spanId: hexId(`span:${record.runId}:${record.seq}`, 16),
      parentSpanId: rootId,
      name: `execute_tool ${tool}`,
      kind: 1,
      startTimeUnixNano: nanos(start?.at ?? record.at),
      endTimeUnixNano: nanos(record.at),
      attributes: [
        attribute('gen_ai.operation.name', 'execute_tool'),
        attribute('gen_ai.system', 'cugar'),
        attribute('gen_ai.tool.name', tool),
        attribute('gen_ai.tool.call.id', `${record.runId}:${record.stepId}:${String(record.data['attempt'])}`),
        attribute('gen_ai.tool.type', 'function'),
        attribute('cugar.step.id', record.stepId ?? ''),
        attribute('cugar.attempt', Number(record.data['attempt'] ?? 1)),
        ...(start?.data['worker'] ? [attribute('cugar.worker', String(start.data['worker']))] : []),
      ],
      status: error ? { code: 2, message: `${error.code}: ${error.message}` } : { code: 1 },
    });
  }
  return {
    resourceSpans: [{ resource: { attributes: [attribute('service.name', serviceName)] }, scopeSpans: [{ scope: { name: 'cugar', version: '0.1.0' }, spans }] }],
  };
}
