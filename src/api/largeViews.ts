import type { Context } from 'hono';
import { stream } from 'hono/streaming';
import { createYielder, deriveEvent, exportJournal, redact, type DerivedFrom, type JournalEvent, type OtlpTraceExport } from '../core/index.ts';

// A 10,000-step run's views are tens of megabytes. Built and serialised in one go they hold
// the event loop for over a second, and every other request — health checks included — waits.
// These writers stream a view in slices instead: each slice is transformed (redacted,
// derived) and serialised on its own, and the loop gets a turn between slices. The bytes are
// exactly what `c.json(view)` would have sent.

/** Items per slice: big enough to amortise a write, small enough to keep each slice short. */
const SLICE = 256;

/**
 * Stream `prefix`, the items of `items` as JSON joined by `separator`, then `suffix`, mapping
 * each slice with `map` just before it is written and yielding to the loop between slices.
 */
function streamSlices<T>(
  c: Context,
  contentType: string,
  parts: { prefix: string; suffix: string; separator: string },
  items: readonly T[],
  map: (slice: readonly T[]) => string[],
): Response {
  c.header('content-type', contentType);
  const yieldNow = createYielder(15);
  return stream(c, async (out) => {
    await out.write(parts.prefix);
    for (let i = 0; i < items.length; i += SLICE) {
      const text = map(items.slice(i, i + SLICE)).join(parts.separator);
      await out.write(i === 0 ? text : parts.separator + text);
      await yieldNow();
    }
    await out.write(parts.suffix);
  });
}

/**
 * A journal as `{"events":[…]}` (JSON) or one event per line (NDJSON); with `derivedFrom`, the
 * redacted derivation of it (see `redactJournal`), derived slice by slice as it is written.
 */
export function journalView(c: Context, journal: readonly JournalEvent[], format: 'json' | 'ndjson', derivedFrom?: DerivedFrom): Response {
  let previous: JournalEvent | undefined;
  const derive = (slice: readonly JournalEvent[]) => (derivedFrom ? slice.map((event) => (previous = deriveEvent(previous, event, derivedFrom))) : slice);
  if (format === 'ndjson')
    return streamSlices(c, 'application/x-ndjson', { prefix: '', suffix: '', separator: '' }, journal, (slice) => [exportJournal(derive(slice))]);
  return streamSlices(c, 'application/json', { prefix: '{"events":[', suffix: ']}', separator: ',' }, journal, (slice) =>
    derive(slice).map((event) => JSON.stringify(event)),
  );
}

/** `{"<key>":[…]}` with every item redacted, streamed. */
export function redactedListView(c: Context, key: string, items: readonly unknown[]): Response {
  return streamSlices(c, 'application/json', { prefix: `{${JSON.stringify(key)}:[`, suffix: ']}', separator: ',' }, items, (slice) =>
    slice.map((item) => JSON.stringify(redact(item))),
  );
}

/** An OTLP export, redacted, its spans streamed (the envelope around them is small). */
export function otlpView(c: Context, otlp: OtlpTraceExport): Response {
  const [resource, ...others] = otlp.resourceSpans;
  const [scope, ...otherScopes] = resource?.scopeSpans ?? [];
  if (!resource || !scope || others.length || otherScopes.length) return c.json(redact(otlp), 200);
  // The envelope is serialised once with a marker where the spans go, then split around it.
  const mark = '\u0000spans\u0000';
  const envelope = JSON.stringify(redact({ resourceSpans: [{ ...resource, scopeSpans: [{ ...scope, spans: mark }] }] }));
  const [prefix, suffix] = envelope.split(JSON.stringify(mark)) as [string, string];
  return streamSlices(c, 'application/json', { prefix: `${prefix}[`, suffix: `]${suffix}`, separator: ',' }, scope.spans, (slice) =>
    slice.map((span) => JSON.stringify(redact(span))),
  );
}
