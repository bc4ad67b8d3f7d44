import { useVirtualizer } from '@tanstack/react-virtual';
import { useMemo, useRef, useState } from 'react';
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
  for (const record of records) {
    const stepId = record.stepId !== undefined ? { stepId: record.stepId } : {};
    switch (record.type) {
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
          spans.push({
            label: `${record.data.stepId} refused`,
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
  return spans;
}

const FILTERS: ReadonlyArray<{ value: 'all' | SpanKind; label: string }> = [
  { value: 'all', label: 'everything' },
  { value: 'tool', label: 'tool calls' },
  { value: 'model', label: 'model calls' },
  { value: 'error', label: 'errors' },
  { value: 'approval', label: 'approvals' },
  { value: 'budget', label: 'budget' },
  { value: 'resume', label: 'resumptions' },
  { value: 'stage', label: 'stages' },
];

const ROW_HEIGHT = 30;

function json(value: unknown): string {
  return JSON.stringify(value, null, 2) ?? 'undefined';
}

/** A titled JSON block of the detail panel, absent when there is nothing to show. */
function Block({ title, value, className }: { title: string; value: unknown; className?: string }) {
  if (value === undefined) return null;
  return (
    <>
      <h4>{title}</h4>
      <pre className={className}>{json(value)}</pre>
    </>
  );
}

function SpanDetail({ span, t0, onFork }: { span: Span; t0: number; onFork?: ((request: ForkRequest) => Promise<void>) | undefined }) {
  // A model answer, or a decision a person made, can be changed in a fork of the run.
  const forkable = onFork && (span.kind === 'model' || (span.kind === 'approval' && span.extra?.['decision'] !== undefined));
  return (
    <section className="span-panel" aria-label="Span detail" tabIndex={0}>
      <h3>{span.label}</h3>
      <dl className="facts">
        <dt>Kind</dt>
        <dd>{span.kind}</dd>
        <dt>Starts</dt>
        <dd>+{duration(span.start - t0)}</dd>
        <dt>Duration</dt>
        <dd>{duration(span.end - span.start)}</dd>
        {span.seqs.length ? (
          <>
            <dt>Events</dt>
            <dd>seq {span.seqs.join(', ')}</dd>
          </>
        ) : null}
        {span.worker ? (
          <>
            <dt>Worker</dt>
            <dd>{span.worker}</dd>
          </>
        ) : null}
      </dl>
      <Block title="Input" value={span.input} />
      <Block title="Output" value={span.output} />
      <Block title="Error" value={span.error} className="bad" />
      <Block title="Details" value={span.extra} />
      {forkable ? <ForkForm key={span.seqs.join(',')} span={span} onFork={onFork} /> : null}
    </section>
  );
}

/** A fork of the run from one event with one change, as the span detail asks for it. */
export type ForkRequest = { at: number; edit: { kind: 'model_answer'; text: string } | { kind: 'approval'; decision: 'approve' | 'reject' } };

/** "Fork from here": another answer for a model call, or another decision for an approval. */
function ForkForm({ span, onFork }: { span: Span; onFork: (request: ForkRequest) => Promise<void> }) {
  const answer = (span.output as { text?: string } | undefined)?.text ?? '';
  const [text, setText] = useState(answer);
  const [decision, setDecision] = useState<'approve' | 'reject'>(span.extra?.['decision'] === 'reject' ? 'approve' : 'reject');
  const [state, setState] = useState<'idle' | 'forking' | string>('idle');
  const at = span.seqs[0]!;
  const fork = (request: ForkRequest) => {
    setState('forking');
    onFork(request).then(
      () => setState('idle'),
      (error: unknown) => setState(error instanceof Error ? error.message : String(error)),
    );
  };
  return (
    <form
      className="fork"
      aria-label="Fork from here"
      onSubmit={(event) => {
        event.preventDefault();
        fork(span.kind === 'model' ? { at, edit: { kind: 'model_answer', text } } : { at, edit: { kind: 'approval', decision } });
      }}
    >
      {span.kind === 'model' ? (
        <label>
          Another answer
          <textarea value={text} rows={3} onChange={(event) => setText(event.target.value)} />
        </label>
      ) : (
        <label>
          Another decision
          <select value={decision} onChange={(event) => setDecision(event.target.value as 'approve' | 'reject')}>
            <option value="approve">approve</option>
            <option value="reject">reject</option>
          </select>
        </label>
      )}
      <button type="submit" disabled={state === 'forking'}>
        Fork from here
      </button>
      {state !== 'idle' && state !== 'forking' ? <p className="bad">{state}</p> : null}
    </form>
  );
}

/**
 * Durations and offsets as people read them, with their unit: milliseconds below a second (two
 * decimals below 10 ms), seconds with a decimal below a minute, then minutes and seconds.
 */
export function duration(value: number): string {
  if (value < 1000) return `${value < 10 && !Number.isInteger(value) ? value.toFixed(2) : String(Math.round(value))} ms`;
  if (value < 60_000) return `${(Math.round(value / 100) / 10).toFixed(1)} s`;
  const seconds = Math.round(value / 1000);
  return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

/**
 * The waterfall of a run: one row per span on a shared time axis, virtualized so only the
 * rows on screen exist in the DOM (a 100k-event trace stays smooth). Every row is a button,
 * so even a zero-length span can be clicked or reached with the keyboard; its inputs and
 * outputs (redacted by the API) open in the panel beside it.
 */
export function TraceView({ records, onFork }: { records: readonly TraceRow[]; onFork?: (request: ForkRequest) => Promise<void> }) {
  const spans = useMemo(() => spansOf(records), [records]);
  return <SpanTimeline spans={spans} events={records.length} onFork={onFork} />;
}

/** The virtualized waterfall over any spans: a run's trace, or spans read from an OTLP file. */
export function SpanTimeline({
  spans,
  events,
  onFork,
}: {
  spans: readonly Span[];
  events?: number;
  onFork?: ((request: ForkRequest) => Promise<void>) | undefined;
}) {
  const [filter, setFilter] = useState<'all' | SpanKind>('all');
  const [selected, setSelected] = useState<Span | null>(null);
  const shown = useMemo(() => (filter === 'all' ? spans : spans.filter((span) => span.kind === filter)), [spans, filter]);
  const bounds = useMemo(() => {
    let t0 = Infinity;
    let t1 = -Infinity;
    for (const span of spans) {
      if (span.start < t0) t0 = span.start;
      if (span.end > t1) t1 = span.end;
    }
    return { t0, t1: Math.max(t1, t0 + 1) };
  }, [spans]);
  const stats = useMemo(() => {
    let retries = 0;
    let errors = 0;
    let approvals = 0;
    for (const span of spans) {
      if ((span.attempt ?? 1) > 1) retries++;
      if (span.kind === 'error') errors++;
      if (span.kind === 'approval') approvals++;
    }
    return { retries, errors, approvals };
  }, [spans]);
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: shown.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
    // Rows on the very first paint, before the scroller has been measured.
    initialRect: { width: 960, height: 480 },
  });
  if (spans.length === 0) return <p>No spans yet.</p>;
  const { t0, t1 } = bounds;
  const pct = (t: number) => ((t - t0) / (t1 - t0)) * 100;
  return (
    <div className="trace">
      <p className="hint" role="status">
        {events !== undefined ? `${events.toLocaleString('en')} events · ` : ''}
        {spans.length.toLocaleString('en')} spans over {duration(t1 - t0)} · {stats.retries} retried attempt(s) · {stats.errors} error(s) · {stats.approvals}{' '}
        approval(s)
      </p>
      <div className="filters">
        <label>
          Show{' '}
          <select value={filter} onChange={(e) => setFilter(e.target.value as 'all' | SpanKind)}>
            {FILTERS.map((f) => (
              <option key={f.value} value={f.value}>
                {f.label}
              </option>
            ))}
          </select>
        </label>
        <span className="legend" aria-hidden="true">
          <i className="bar stage" /> stage <i className="bar tool" /> tool <i className="bar model" /> model <i className="bar error" /> error{' '}
          <i className="bar approval" /> approval <i className="bar budget" /> budget <i className="bar resume" /> resumed
        </span>
      </div>
      <div className="trace-body">
        <div ref={scroller} className="trace-scroller" role="region" aria-label="Timeline" tabIndex={0}>
          <ol className="waterfall" style={{ height: virtualizer.getTotalSize() }}>
            {virtualizer.getVirtualItems().map((item) => {
              const span = shown[item.index]!;
              const active = selected === span;
              return (
                <li key={item.key} style={{ transform: `translateY(${item.start}px)`, height: ROW_HEIGHT }}>
                  <button
                    type="button"
                    className={active ? 'span-row active' : 'span-row'}
                    aria-pressed={active}
                    onClick={() => setSelected(active ? null : span)}
                    title={`${span.label}: ${duration(span.end - span.start)}`}
                  >
                    <span className="span-label">{span.label}</span>
                    <span className="track">
                      <span className={`bar ${span.kind}`} style={{ left: `${pct(span.start)}%`, width: `max(${pct(span.end) - pct(span.start)}%, 3px)` }} />
                    </span>
                    <span className="span-ms">{duration(span.end - span.start)}</span>
                  </button>
                </li>
              );
            })}
          </ol>
        </div>
        {selected ? <SpanDetail span={selected} t0={t0} onFork={onFork} /> : <p className="hint span-panel">Select a span to see its input and output.</p>}
      </div>
    </div>
  );
}
