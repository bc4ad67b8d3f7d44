import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOURNAL_PAGE_SIZE, redact, type JournalEvent } from '../../src/core/index.ts';
import { startServer, type RunningServer } from '../../src/edge/nodeServer.ts';

// The events stream replays what a client missed from the journal read page by page; the bytes
// must stay those of the replay that read the whole journal first (event, data, id per event,
// as Hono's writeSSE writes them).

const TOKEN = 'streamed-events-token-0123456789';
const STEPS = 400;

/** The stream a finished run's replay sent before paging: every event after `after`, in order. */
function previousReplay(journal: readonly JournalEvent[], after: number): string {
  return journal
    .filter((event) => event.seq > after)
    .map((event) => `event: ${event.type}\ndata: ${JSON.stringify(redact(event))}\nid: ${event.seq}\n\n`)
    .join('');
}

describe('GET /v1/runs/{runId}/events replays the journal page by page', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cugar-streamed-events-'));
  let server: RunningServer;
  let runId: string;
  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(new URL(path, server.url), { headers: { authorization: `Bearer ${TOKEN}`, ...headers } });

  beforeAll(async () => {
    server = await startServer({ port: 0, dataDir: dir, corpusDir: join(dir, 'none'), tokens: { [TOKEN]: { profiles: '*' } }, log: () => undefined });
    const plan = Array.from({ length: STEPS }, (_, i) => ({ tool: 'add', input: { a: i, b: 1 } }));
    const started = await fetch(new URL('/v1/runs?wait=60', server.url), {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ goal: `add ${STEPS} pairs`, profile: 'demo', plan }),
    });
    ({ runId } = (await started.json()) as { runId: string });
    for (;;) {
      const run = await server.runtime.store.getRun(runId);
      if (run && run.status !== 'running') break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends the bytes the whole-journal replay sent, from the start and after a Last-Event-ID', async () => {
    expect((await server.runtime.store.getRun(runId))!.status).toBe('completed');
    const journal = await server.runtime.store.readJournal(runId);
    expect(journal.length).toBeGreaterThan(2 * JOURNAL_PAGE_SIZE);
    const cases: Array<{ path: string; headers: Record<string, string>; after: number }> = [
      { path: `/v1/runs/${runId}/events`, headers: {}, after: -1 },
      { path: `/v1/runs/${runId}/events`, headers: { 'last-event-id': '700' }, after: 700 },
      { path: `/v1/runs/${runId}/events?lastEventId=3`, headers: {}, after: 3 },
      { path: `/v1/runs/${runId}/events`, headers: { 'last-event-id': '-5' }, after: -5 },
      { path: `/v1/runs/${runId}/events`, headers: { 'last-event-id': String(journal.length + 10) }, after: journal.length + 10 },
    ];
    for (const { path, headers, after } of cases) {
      const response = await get(path, headers);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toContain('text/event-stream');
      const text = await response.text();
      const expected = previousReplay(journal, after);
      expect(text.length, `after ${after}`).toBe(expected.length);
      expect(text === expected, `after ${after}`).toBe(true);
    }
  });

  it('reads the journal in pages rather than whole', async () => {
    const store = server.runtime.store;
    const whole = store.readJournal.bind(store);
    const paged = store.readJournalPage!.bind(store);
    const reads: Array<{ from: number; count: number }> = [];
    store.readJournal = async (id, from) => {
      const events = await whole(id, from);
      reads.push({ from: from ?? 0, count: events.length });
      return events;
    };
    store.readJournalPage = async (id, from, limit) => {
      const events = await paged(id, from, limit);
      reads.push({ from, count: events.length });
      return events;
    };
    try {
      expect((await get(`/v1/runs/${runId}/events`)).status).toBe(200);
      const journal = await whole(runId);
      expect(reads.reduce((n, read) => n + read.count, 0)).toBe(journal.length);
      expect(Math.max(...reads.map((read) => read.count))).toBeLessThanOrEqual(JOURNAL_PAGE_SIZE);
      expect(reads[0]).toEqual({ from: 0, count: 1 });
    } finally {
      store.readJournal = whole;
      store.readJournalPage = paged;
    }
  });

  it('answers 404 for an unknown run, as before', async () => {
    expect((await get('/v1/runs/no-such-run/events')).status).toBe(404);
  });
});
