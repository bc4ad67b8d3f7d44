// Spans of a run's trace, folded from its records: what the waterfall draws and the detail panel shows.
// Straight from its module: the core's entry would bring every schema into the first load.
import { pairToolCalls } from '../../core/journal/projections.ts';
import type { TraceRecord } from '../../core/index.ts';

/** A trace record as the view reads it (the API's `/v1/runs/{id}/trace` rows): typed by `type`, like the journal. */
export type TraceRow = TraceRecord;

export type SpanKind = 'stage' | 'tool' | 'model' | 'error' | 'approval' | 'budget' | 'resume';

/** One bar of the waterfall: a lifecycle stage, a tool or model call attempt, an approval wait or a budget event. */
export interface Span {
  label: string;
  start: number;
  end: number;
  kind: SpanKind;
  /** The journal events the span covers. */
  seqs: number[];
  stepId?: string;
  tool?: string;
  attempt?: number;
  worker?: string;
  input?: unknown;
  output?: unknown;
  error?: unknown;
  /** Other facts worth showing in the detail panel (approval decision, budget usage, …). */
  extra?: Record<string, unknown>;
}

/**
 * Fold trace records into spans in one pass (a 100k-event trace must not go quadratic):
 * stages with their durations, each tool call attempt from its start to its completion or
 * error (paired by the core's `pairToolCalls`, as the OTLP export is), model calls named as the
 * OpenTelemetry GenAI conventions name them (`chat {model}`, with the redacted request and the
 * answer), approval waits, and budget warnings or refusals as instants.
 */
export function spansOf(records: readonly TraceRow[]): Span[] {
  const spans: Span[] = [];
  // What each model call asked (the messages new since the previous call), by call and attempt.
  const requests = new Map<string, unknown>();
  // Tool spans sit where their attempt ended, as before: ordered by the journal.
  const toolSpans = new Map<number, Span>();
  for (const call of pairToolCalls(records)) {
    if (!call.end) continue;
    const failed = call.end.type === 'tool_call_error';
    toolSpans.set(call.end.seq, {
      label: `${call.stepId} ${call.tool} #${call.attempt}`,
      start: call.start.at,
      end: call.end.at,
      kind: failed ? 'error' : 'tool',
      seqs: [call.start.seq, call.end.seq],
      stepId: call.stepId,
      tool: call.tool,
      attempt: call.attempt,
      worker: call.worker,
      input: call.input,
      ...(failed ? { error: call.error } : { output: call.output }),
      extra: { reserved: call.start.data.reserved },
    });
  }
  // Each step's tool, from the plans, so a step refused before its call still names its tool;
  // approvals still waiting, drawn from their request to the last event.
  const toolOf = new Map<string, string>();
  const waiting = new Map<string, TraceRow & { type: 'approval_requested' }>();
  for (const record of records) {
    const stepId = record.stepId !== undefined ? { stepId: record.stepId } : {};
    switch (record.type) {
      case 'plan_created':
        for (const step of record.data.plan.steps) toolOf.set(step.name, step.tool);
        break;
      case 'approval_requested':
        waiting.set(record.data.approvalId, record);
        break;
      case 'stage':
        if (record.durationMs !== undefined)
          spans.push({ label: `stage ${record.data.stage}`, start: record.at, end: record.at + record.durationMs, kind: 'stage', seqs: [record.seq] });
        break;
      case 'tool_call_complete':
      case 'tool_call_error': {
        const paired = toolSpans.get(record.seq);
        if (paired) spans.push(paired);
        else if (record.type === 'tool_call_error') {
          // Refused before it started (invalid input, no worker): an instant at the refusal.
          const tool = toolOf.get(record.data.stepId);
          spans.push({
            label: `${record.data.stepId}${tool ? ` ${tool}` : ''} refused`,
            ...(tool ? { tool } : {}),
            start: record.at,
            end: record.at,
            kind: 'error',
            seqs: [record.seq],
            ...stepId,
            error: record.data.error,
          });
        }
        break;
      }
      case 'approval_received':
      case 'approval_timeout':
        waiting.delete(record.data.approvalId);
        if (record.durationMs !== undefined) {
          const decision = record.type === 'approval_received' ? record.data.decision : `timed out: ${record.data.action}`;
          spans.push({
            label: `approval (${decision})`,
            start: record.at - record.durationMs,
            end: record.at,
            kind: 'approval',
            seqs: [record.seq],
            ...stepId,
            extra: record.data,
          });
        }
        break;
      case 'model_call_start':
        requests.set(`${record.data.callId}:${record.data.attempt}`, record.data.request);
        break;
      case 'model_call_complete':
      case 'model_call_error': {
        const { callId, attempt, model, turn, durationMs, purpose } = record.data;
        const failed = record.type === 'model_call_error';
        spans.push({
          label: `chat ${model}${purpose ? ` (${purpose})` : ''} #${attempt}`,
          start: record.at - durationMs,
          end: record.at,
          kind: failed ? 'error' : 'model',
          seqs: [record.seq],
          attempt,
          input: requests.get(`${callId}:${attempt}`),
          ...(record.type === 'model_call_error'
            ? {
                error: record.data.error,
                extra: { turn, next: record.data.next, ...(record.data.delayMs !== undefined ? { delayMs: record.data.delayMs } : {}) },
              }
            : {
                output: { text: record.data.text, toolCalls: record.data.toolCalls },
                extra: { turn, finishReason: record.data.finishReason, usage: record.data.usage, cost: record.data.cost },
              }),
        });
        break;
      }
      case 'run_resumed':
        spans.push({ label: `resumed (was ${record.data.from})`, start: record.at, end: record.at, kind: 'resume', seqs: [record.seq], extra: record.data });
        break;
      case 'budget_warning':
      case 'budget_exceeded':
        spans.push({
          label: record.type === 'budget_warning' ? `budget warning (${record.data.scope})` : `over budget (${record.data.scope})`,
          start: record.at,
          end: record.at,
          kind: 'budget',
          seqs: [record.seq],
          ...stepId,
          extra: record.data,
        });
        break;
      default:
        break;
    }
  }
  const last = records.at(-1)?.at ?? 0;
  for (const request of waiting.values()) {
    const { approvalId, tool, args, reason, deadline } = request.data;
    spans.push({
      label: `approval pending (${tool})`,
      start: request.at,
      end: Math.max(request.at, last),
      kind: 'approval',
      seqs: [request.seq],
      stepId: request.data.stepId,
      tool,
      input: args,
      extra: { approvalId, pending: true, reason, ...(deadline !== undefined ? { deadline: new Date(deadline).toISOString() } : {}) },
    });
  }
  return spans;
}

/** A span with the spans that happened inside it: a stage holds the tool and model calls, approvals and budget events of its time. */
export interface SpanNode {
  span: Span;
  children: SpanNode[];
}

/**
 * The spans as a tree: each stage holds what began while it was the current stage (by journal
 * order, so equal timestamps stay right); spans before the first stage stand alone. One pass.
 */
export function spanTree(spans: readonly Span[]): SpanNode[] {
  const roots: SpanNode[] = [];
  const stages = spans.filter((span) => span.kind === 'stage').sort((a, b) => a.seqs[0]! - b.seqs[0]!);
  const nodes = new Map(stages.map((stage) => [stage, { span: stage, children: [] as SpanNode[] }]));
  for (const stage of stages) roots.push(nodes.get(stage)!);
  const others = spans.filter((span) => span.kind !== 'stage').sort((a, b) => a.seqs[0]! - b.seqs[0]!);
  let current = -1;
  for (const span of others) {
    while (current + 1 < stages.length && stages[current + 1]!.seqs[0]! <= span.seqs[0]!) current++;
    if (current < 0) roots.push({ span, children: [] });
    else nodes.get(stages[current]!)!.children.push({ span, children: [] });
  }
  return roots.sort((a, b) => a.span.seqs[0]! - b.span.seqs[0]!);
}
