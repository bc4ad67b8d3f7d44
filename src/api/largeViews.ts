import type { Context } from 'hono';
import {
  createYielder,
  deriveEvent,
  derivedEventPieces,
  exportJournal,
  otlpEnvelope,
  otlpSpanPages,
  redact,
  type DerivedFrom,
  type DerivedLink,
  type JournalEvent,
  type JournalPager,
} from '../core/index.ts';

// A 10,000-step run's views are tens of megabytes. Built and serialised in one go they hold
// the event loop for over a second, and every other request — health checks included — waits.
// These writers send a view as its journal is read from the store, page by page
// (JournalPager): each slice is transformed (redacted, derived, projected) and serialised on
// its own when the client has taken the one before, and the loop gets a turn between slices.
// The bytes are exactly what `c.json(view)` of the whole view would have sent.

/** Most items per slice: big enough to amortise a write, small enough to keep each slice short. */
const SLICE = 256;

/**
 * The items of `pages` in slices of one item, then two, four… up to {@link SLICE}: the first
 * items leave on their own, however large (a run's first events hold its whole plan).
 */
async function* slicesOf<T>(pages: AsyncIterable<readonly T[]>): AsyncGenerator<readonly T[]> {
  let size = 1;
  for await (const page of pages)
    for (let i = 0; i < page.length; i += size, size = Math.min(size * 2, SLICE)) yield i === 0 && page.length <= size ? page : page.slice(i, i + size);
}

/**
 * The text of `prefix` (at once, before anything is read), the items of `pages` as mapped by
 * `map` joined by `separator`, then `suffix`.
 */
async function* listText<T>(
  parts: { prefix: string; suffix: string; separator: string },
  pages: AsyncIterable<readonly T[]>,
  map: (slice: readonly T[]) => string[],
): AsyncGenerator<string> {
  if (parts.prefix) {
    yield parts.prefix;
    // A turn of the loop before the first read: the host sends the headers and the opening now.
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  const yieldNow = createYielder(15);
  let first = true;
  for await (const slice of slicesOf(pages)) {
    if (slice.length === 0) continue;
    const text = map(slice).join(parts.separator);
    yield first ? text : parts.separator + text;
    first = false;
    await yieldNow();
  }
  if (parts.suffix) yield parts.suffix;
}

/** Most characters of redacted NDJSON sent in one chunk. */
const CHUNK_CHARS = 64 * 1024;

/**
 * The redacted NDJSON journal, each line written in pieces as its data is redacted
 * (derivedEventPieces): the first chunk is the first piece, and chunks double up to
 * {@link CHUNK_CHARS}, so a run's first event (which holds its whole plan) starts leaving at
 * once and the loop gets turns while it is written.
 */
async function* derivedNdjson(pager: JournalPager, derivedFrom: DerivedFrom): AsyncGenerator<string> {
  const yieldNow = createYielder(15);
  let previous: DerivedLink | undefined;
  let chunk = '';
  let want = 1;
  for await (const page of pager.pages()) {
    for (const event of page) {
      const pieces = derivedEventPieces(previous, event, derivedFrom);
      for (;;) {
        const step = pieces.next();
        if (step.done) {
          previous = step.value;
          break;
        }
        chunk += step.value;
        if (chunk.length < want) continue;
        yield chunk;
        chunk = '';
        want = Math.min(want * 2, CHUNK_CHARS);
        await yieldNow();
      }
    }
  }
  if (chunk) yield chunk;
}

/**
 * A response whose body is `chunks`, each pulled when the client has read the one before. A
 * failure while reading (a run deleted meanwhile) aborts the response rather than ending a
 * truncated body as if it were whole; a client that goes away stops the reading.
 */
function streamedResponse(c: Context, contentType: string, chunks: AsyncGenerator<string>): Response {
  c.header('content-type', contentType);
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { value, done } = await chunks.next();
      if (done) controller.close();
      else controller.enqueue(encoder.encode(value));
    },
    async cancel() {
      await chunks.return(undefined);
    },
  });
  return c.body(body);
}

/**
 * A journal as `{"events":[…]}` (JSON) or one event per line (NDJSON); with `derivedFrom`, the
 * redacted derivation of it (see `redactJournal`), derived slice by slice as it is written.
 */
export function journalView(c: Context, pager: JournalPager, format: 'json' | 'ndjson', derivedFrom?: DerivedFrom): Response {
  let previous: JournalEvent | undefined;
  const derive = (slice: readonly JournalEvent[]) => (derivedFrom ? slice.map((event) => (previous = deriveEvent(previous, event, derivedFrom))) : slice);
  if (format === 'ndjson')
    return streamedResponse(
      c,
      'application/x-ndjson',
      derivedFrom ? derivedNdjson(pager, derivedFrom) : listText({ prefix: '', suffix: '', separator: '' }, pager.pages(), (slice) => [exportJournal(slice)]),
    );
  return streamedResponse(
    c,
    'application/json',
    listText({ prefix: '{"events":[', suffix: ']}', separator: ',' }, pager.pages(), (slice) => derive(slice).map((event) => JSON.stringify(event))),
  );
}

/** `{"<key>":[…]}` with every item redacted, sent as `pages` come. */
export function redactedListView(c: Context, key: string, pages: AsyncIterable<readonly unknown[]>): Response {
  return streamedResponse(
    c,
    'application/json',
    listText({ prefix: `{${JSON.stringify(key)}:[`, suffix: ']}', separator: ',' }, pages, (slice) => slice.map((item) => JSON.stringify(redact(item)))),
  );
}

/** The run's OTLP export (`toOtlp`), redacted, its spans sent as the journal is read (the envelope around them is small). */
export function otlpView(c: Context, pager: JournalPager): Response {
  if (!pager.head) return c.json(redact({ resourceSpans: [] }), 200);
  // The envelope is serialised once with a marker where the spans go, then split around it.
  const mark = '\u0000spans\u0000';
  const envelope = JSON.stringify(redact(otlpEnvelope(mark)));
  const [prefix, suffix] = envelope.split(JSON.stringify(mark)) as [string, string];
  return streamedResponse(
    c,
    'application/json',
    listText({ prefix: `${prefix}[`, suffix: `]${suffix}`, separator: ',' }, otlpSpanPages(pager), (slice) =>
      slice.map((span) => JSON.stringify(redact(span))),
    ),
  );
}
