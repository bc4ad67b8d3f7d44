// The trace view in a bare page, fed a real run's trace records: measures the time to the
// first painted rows and to the first answered click, for the virtualized view the dashboard
// ships and for a plain list that puts every span in the DOM (what most trace UIs do).
import { useState } from 'react';
import { createRoot } from 'react-dom/client';
import { flushSync } from 'react-dom';
import { TraceView, spansOf, type Span, type TraceRow } from '../../src/web/dashboard/TraceView.tsx';

/** Every span as a DOM row, with the same markup and detail behaviour, but no virtualization. */
function PlainList({ records }: { records: readonly TraceRow[] }) {
  const [spans] = useState(() => spansOf(records));
  const [selected, setSelected] = useState<Span | null>(null);
  let t0 = Infinity;
  let t1 = -Infinity;
  for (const span of spans) {
    if (span.start < t0) t0 = span.start;
    if (span.end > t1) t1 = span.end;
  }
  const pct = (t: number) => ((t - t0) / Math.max(1, t1 - t0)) * 100;
  return (
    <div className="trace-body">
      <div className="trace-scroller" role="region" aria-label="Timeline" tabIndex={0}>
        <ol className="waterfall plain">
          {spans.map((span, i) => (
            <li key={i} style={{ position: 'static', height: 30 }}>
              <button type="button" className="span-row" onClick={() => setSelected(span)}>
                <span className="span-label">{span.label}</span>
                <span className="track">
                  <span className={`bar ${span.kind}`} style={{ left: `${pct(span.start)}%`, width: `max(${pct(span.end) - pct(span.start)}%, 3px)` }} />
                </span>
                <span className="span-ms">{span.end - span.start} ms</span>
              </button>
            </li>
          ))}
        </ol>
      </div>
      {selected ? (
        <section className="span-panel" aria-label="Span detail">
          <h3>{selected.label}</h3>
          <pre>{JSON.stringify(selected.input ?? null)}</pre>
        </section>
      ) : null}
    </div>
  );
}

const frame = () => new Promise<void>((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));

async function measure(view: 'virtual' | 'plain', url: string) {
  const start = performance.now();
  const { records } = (await (await fetch(url)).json()) as { records: TraceRow[] };
  const loaded = performance.now();
  const root = createRoot(document.getElementById('root')!);
  flushSync(() => root.render(view === 'virtual' ? <TraceView records={records} /> : <PlainList records={records} />));
  // The virtualized list renders its rows once it has measured its scroller, a frame or more
  // after mounting on a busy machine: first paint is the first frame that has them.
  let rows: NodeListOf<Element>;
  do {
    await frame();
    rows = document.querySelectorAll('.span-row');
    if (performance.now() - loaded > 30_000)
      throw new Error(`no rows painted after 30 s (${rows.length} found): ${document.getElementById('root')?.textContent?.slice(0, 200) ?? ''}`);
  } while (rows.length < 4);
  const painted = performance.now();
  (rows[3] as HTMLButtonElement).click();
  while (!document.querySelector('.span-panel h3')) await frame();
  await frame();
  const interactive = performance.now();
  // Scroll to the middle and wait for the rows there to be painted.
  const scroller = document.querySelector('.trace-scroller')!;
  const scrollStart = performance.now();
  scroller.scrollTop = scroller.scrollHeight / 2;
  await frame();
  await frame();
  const scrolled = performance.now();
  return {
    events: records.length,
    spans: spansOf(records).length,
    domRows: document.querySelectorAll('.span-row').length,
    loadMs: loaded - start,
    renderMs: painted - loaded,
    firstPaintMs: painted - start,
    interactiveMs: interactive - start,
    clickMs: interactive - painted,
    scrollMs: scrolled - scrollStart,
  };
}

(globalThis as unknown as { measureTrace: typeof measure }).measureTrace = measure;
