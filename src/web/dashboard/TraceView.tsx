import { useVirtualizer } from '@tanstack/react-virtual';
import { useMemo, useRef, useState, type ReactNode } from 'react';
import { duration } from './format.ts';
import { SpanTree, TREE_LIMIT } from './SpanTree.tsx';
import { spanTree, spansOf, type Span, type SpanKind, type TraceRow } from './spans.ts';

export { spansOf, type Span, type SpanKind, type TraceRow } from './spans.ts';
export { duration } from './format.ts';

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

function SpanDetail({
  span,
  t0,
  onFork,
  extra,
}: {
  span: Span;
  t0: number;
  onFork?: ((request: ForkRequest) => Promise<void>) | undefined;
  extra?: ReactNode;
}) {
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
      {extra}
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
 * The waterfall of a run: one row per span on a shared time axis, virtualized so only the
 * rows on screen exist in the DOM (a 100k-event trace stays smooth). Every row is a button,
 * so even a zero-length span can be clicked or reached with the keyboard; its inputs and
 * outputs (redacted by the API) open in the panel beside it.
 */
export function TraceView({
  records,
  onFork,
  spanExtra,
}: {
  records: readonly TraceRow[];
  onFork?: (request: ForkRequest) => Promise<void>;
  /** More for the detail panel of a selected span (feedback on it, on the run page). */
  spanExtra?: (span: Span) => ReactNode;
}) {
  const spans = useMemo(() => spansOf(records), [records]);
  return <SpanTimeline spans={spans} events={records.length} onFork={onFork} spanExtra={spanExtra} />;
}

/** The virtualized waterfall over any spans: a run's trace, or spans read from an OTLP file. */
export function SpanTimeline({
  spans,
  events,
  onFork,
  spanExtra,
}: {
  spans: readonly Span[];
  events?: number;
  onFork?: ((request: ForkRequest) => Promise<void>) | undefined;
  spanExtra?: ((span: Span) => ReactNode) | undefined;
}) {
  const [filter, setFilter] = useState<'all' | SpanKind>('all');
  const [view, setView] = useState<'waterfall' | 'tree'>('waterfall');
  const [selected, setSelected] = useState<Span | null>(null);
  const tree = useMemo(() => (view === 'tree' && spans.length <= TREE_LIMIT ? spanTree(spans) : []), [view, spans]);
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
    let pending = 0;
    for (const span of spans) {
      if ((span.attempt ?? 1) > 1) retries++;
      if (span.kind === 'error') errors++;
      if (span.kind === 'approval') approvals++;
      if (span.extra?.['pending'] === true) pending++;
    }
    return { retries, errors, approvals, pending };
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
        approval(s){stats.pending ? `, ${stats.pending} pending` : ''}
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
        <label>
          View{' '}
          <select value={view} onChange={(e) => setView(e.target.value as 'waterfall' | 'tree')}>
            <option value="waterfall">waterfall</option>
            <option value="tree" disabled={spans.length > TREE_LIMIT}>
              span tree
            </option>
          </select>
        </label>
        <span className="legend" aria-hidden="true">
          <i className="bar stage" /> stage <i className="bar tool" /> tool <i className="bar model" /> model <i className="bar error" /> error{' '}
          <i className="bar approval" /> approval <i className="bar budget" /> budget <i className="bar resume" /> resumed
        </span>
      </div>
      <div className="trace-body">
        {view === 'tree' ? (
          <div className="trace-scroller" role="region" aria-label="Span tree view" tabIndex={0}>
            <SpanTree tree={tree} selected={selected} onSelect={(span) => setSelected(selected === span ? null : span)} />
          </div>
        ) : null}
        <div ref={scroller} className="trace-scroller" role="region" aria-label="Timeline" tabIndex={0} hidden={view === 'tree'}>
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
        {selected ? (
          <SpanDetail span={selected} t0={t0} onFork={onFork} extra={spanExtra?.(selected)} />
        ) : (
          <p className="hint span-panel">Select a span to see its input and output.</p>
        )}
      </div>
    </div>
  );
}
