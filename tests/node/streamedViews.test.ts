import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import {
  InMemoryStore,
  JOURNAL_PAGE_SIZE,
  JournalPager,
  Orchestrator,
  ResourceError,
  SystemError,
  ToolRegistry,
  ValidationError,
  exportJournal,
  importJournal,
  otlpSpanPages,
  traceRecordPages,
  type JournalEvent,
  type Store,
} from '../../src/core/index.ts';
import { sealEvent } from '../../src/core/testing.ts';
import { startServer, type RunningServer } from '../../src/edge/nodeServer.ts';
import { SqliteStore } from '../../src/edge/sqliteStore.ts';
import { previousJournalBody, previousOtlp, previousOtlpBody, previousTraceBody, previousTraceRecords } from '../support/previousViews.ts';

// Views of a run are read from the store page by page and projected as the pages come; what
// they send must stay exactly what the whole-journal projections sent before (kept in
// tests/support/previousViews.ts), for runs with retries, approvals, failures, calls that
// overlap or never end, and model calls.

const TOKEN = 'streamed-views-token-0123456789';
const STEPS = 240;

/** A journal of `STEPS` steps: every seventh fails once and is retried, one waits for an approval, the last fails for good. */
async function eventfulJournal(): Promise<JournalEvent[]> {
  const registry = new ToolRegistry();
  const failed = new Set<number>();
  registry.register('demo', 'flaky', {
    description: 'a service that is sometimes busy',
    parameters: z.object({ i: z.number(), note: z.string() }),
    idempotent: true,
    handler: ({ i }) => {
      if (i % 7 === 0 && !failed.has(i)) {
        failed.add(i);
        throw new ResourceError('busy');
      }
      return { i, echoed: `password: p${i}-hunter2` };
    },
  });
  registry.register('demo', 'guarded', {
    description: 'needs a person to say yes',
    parameters: z.object({ what: z.string() }),
    requiresApproval: true,
    handler: ({ what }) => `done ${what}`,
  });
  registry.register('demo', 'broken', {
    description: 'always refuses',
    parameters: z.object({}),
    handler: () => {
      throw new ValidationError('refused for good');
    },
  });
  const store = new InMemoryStore();
  const orchestrator = new Orchestrator({ registry, store, retry: { maxAttempts: 3, baseDelay: 0 }, autonomy: { maxRepeats: STEPS + 10 } });
  const plan = [
    ...Array.from({ length: STEPS / 2 }, (_, i) => ({ tool: 'flaky', input: { i, note: `api_key: k${i}secretvalue` } })),
    { tool: 'guarded', input: { what: 'the middle step' } },
    ...Array.from({ length: STEPS / 2 }, (_, i) => ({ tool: 'flaky', input: { i: STEPS / 2 + i, note: 'plain' } })),
    { tool: 'broken', input: {} },
  ];
  const paused = await orchestrator.start('an eventful run', 'demo', { plan });
  expect(paused.status).toBe('paused');
  const outcome = await orchestrator.resolveApproval(paused.pendingApproval!.approvalId, { decision: 'approve', by: 'ada' });
  expect(outcome.status).toBe('failed');
  return store.readJournal(outcome.runId);
}

/** A store over `events` with (or without) the paged reads, counting the pages it was asked for. */
function arrayStore(events: readonly JournalEvent[], paged: boolean, pagesRead = { count: 0 }): Store {
  const base = { readJournal: async (_runId: string, fromSeq = 0) => events.slice(fromSeq) };
  if (!paged) return base as unknown as Store;
  return {
    ...base,
    readJournalPage: async (_runId: string, fromSeq: number, limit: number) => (pagesRead.count++, events.slice(fromSeq, fromSeq + limit)),
    readJournalOfTypes: async (_runId: string, types: readonly string[], toSeq: number) => events.slice(0, toSeq + 1).filter((e) => types.includes(e.type)),
  } as unknown as Store;
}

async function collect<T>(pages: AsyncIterable<readonly T[]>): Promise<T[]> {
  const all: T[] = [];
  for await (const page of pages) all.push(...page);
  return all;
}

/** Open `events` as a run's journal at its head, read in pages of `pageSize`. */
function open(events: readonly JournalEvent[], paged: boolean, pageSize: number): Promise<JournalPager> {
  const last = events.at(-1);
  return JournalPager.open(arrayStore(events, paged), 'run', last && { seq: last.seq, hash: last.hash }, pageSize);
}

type Op =
  | { kind: 'start' | 'complete' | 'error'; step: number; attempt: number }
  | { kind: 'stage'; stage: 'plan' | 'execute' | 'complete' }
  | { kind: 'completed'; success: boolean }
  | { kind: 'requested' | 'received' | 'timeout'; approval: number }
  | { kind: 'modelStart' | 'modelComplete' | 'modelError'; call: number; attempt: number };

const opArbitrary: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constantFrom('start' as const, 'complete' as const, 'error' as const), step: fc.nat(3), attempt: fc.integer({ min: 1, max: 2 }) }),
  fc.record({ kind: fc.constant('stage' as const), stage: fc.constantFrom('plan' as const, 'execute' as const, 'complete' as const) }),
  fc.record({ kind: fc.constant('completed' as const), success: fc.boolean() }),
  fc.record({ kind: fc.constantFrom('requested' as const, 'received' as const, 'timeout' as const), approval: fc.nat(2) }),
  fc.record({
    kind: fc.constantFrom('modelStart' as const, 'modelComplete' as const, 'modelError' as const),
    call: fc.nat(2),
    attempt: fc.integer({ min: 1, max: 2 }),
  }),
);

/** A journal of the projections' event types in any order (the projections read them without checking the run's rules). */
function journalOf(ops: readonly Op[], gaps: readonly number[]): JournalEvent[] {
  const events: JournalEvent[] = [];
  let at = 1_700_000_000_000;
  const push = (type: string, data: Record<string, unknown>) => {
    at += gaps[events.length % gaps.length] ?? 1;
    events.push(sealEvent(events.at(-1), 'run', type as never, at, data as never) as JournalEvent);
  };
  push('stage', { stage: 'initialize', inputs: { goal: 'ops', profile: 'demo', traceId: 'trace-1' } });
  for (const op of ops) {
    const stepId = 'step' in op ? `step-${op.step}` : '';
    if (op.kind === 'start') push('tool_call_start', { stepId, attempt: op.attempt, tool: `tool${op.step}`, worker: 'w', input: { token: 'sk-secretsecret' } });
    else if (op.kind === 'complete')
      push('tool_call_complete', { stepId, attempt: op.attempt, output: { step: op.step }, ...(op.step % 2 ? { durationMs: 3 } : {}) });
    else if (op.kind === 'error') push('tool_call_error', { stepId, attempt: op.attempt, error: { code: 'busy', message: 'busy' } });
    else if (op.kind === 'stage') push('stage', { stage: op.stage });
    else if (op.kind === 'completed') push('run_completed', { success: op.success, stopReason: op.success ? 'done' : 'failed', outputs: {} });
    else if (op.kind === 'requested') push('approval_requested', { approvalId: `a${op.approval}`, stepId: 'step-9', tool: 'guarded' });
    else if (op.kind === 'received') push('approval_received', { approvalId: `a${op.approval}`, decision: 'approve' });
    else if (op.kind === 'timeout') push('approval_timeout', { approvalId: `a${op.approval}`, action: 'reject' });
    else if (op.kind === 'modelStart')
      push('model_call_start', {
        callId: `c${op.call}`,
        turn: op.call,
        attempt: op.attempt,
        model: 'm',
        requestHash: 'h',
        request: { messages: [{ role: 'user', content: `turn ${op.call}` }], fromMessage: op.call },
      });
    else if (op.kind === 'modelComplete')
      push('model_call_complete', {
        callId: `c${op.call}`,
        attempt: op.attempt,
        model: 'm',
        text: 'answer',
        toolCalls: [],
        finishReason: 'stop',
        usage: { inputTokens: 1, outputTokens: 2 },
        durationMs: 4,
      });
    else if (op.kind === 'modelError') push('model_call_error', { callId: `c${op.call}`, attempt: op.attempt, error: { code: 'down', message: 'down' } });
  }
  return events;
}

describe('trace and OTLP read page by page', () => {
  it('are exactly the whole-journal projections, for any order of events and any page size', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(opArbitrary, { maxLength: 60 }),
        fc.array(fc.nat(5), { minLength: 1, maxLength: 7 }),
        fc.integer({ min: 1, max: 9 }),
        fc.boolean(),
        async (ops, gaps, pageSize, paged) => {
          const events = journalOf(ops, gaps);
          expect(await collect(traceRecordPages(await open(events, paged, pageSize)))).toEqual(previousTraceRecords(events));
          const spans = await collect(otlpSpanPages(await open(events, paged, pageSize)));
          expect(spans).toEqual(previousOtlp(events).resourceSpans[0]!.scopeSpans[0]!.spans);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('are the same for a real run with retries, an approval and a failure, and read it a page at a time', async () => {
    const events = await eventfulJournal();
    const reads = { count: 0 };
    const last = events.at(-1)!;
    const pager = await JournalPager.open(arrayStore(events, true, reads), 'run', { seq: last.seq, hash: last.hash }, 64);
    expect(await collect(traceRecordPages(pager))).toEqual(previousTraceRecords(events));
    // Pages of 1, 2, 4 … 32, then 64 events: never the whole journal at once.
    expect(reads.count).toBe(6 + Math.ceil((events.length - 63) / 64));
    expect(await collect(otlpSpanPages(await open(events, true, 100)))).toEqual(previousOtlp(events).resourceSpans[0]!.scopeSpans[0]!.spans);
  });
});

describe('JournalPager', () => {
  it('stops at the head it was opened at, reads nothing before it is asked, and fails when the store no longer holds that head', async () => {
    const events = journalOf(
      [
        { kind: 'stage', stage: 'plan' },
        { kind: 'start', step: 0, attempt: 1 },
        { kind: 'complete', step: 0, attempt: 1 },
      ],
      [1],
    );
    const reads = { count: 0 };
    const at2 = await JournalPager.open(arrayStore(events, true, reads), 'run', { seq: 2, hash: events[2]!.hash }, 2);
    expect(reads.count).toBe(0);
    expect(await at2.last()).toBe(events[2]);
    expect(await collect(at2.pages())).toEqual(events.slice(0, 3));
    expect(await at2.ofTypes(['tool_call_complete'])).toEqual([]);
    const stale = await JournalPager.open(arrayStore(events, true), 'run', { seq: 2, hash: 'f'.repeat(64) }, 2);
    await expect(stale.last()).rejects.toMatchObject({ code: 'journal_changed' });
    await expect(collect(stale.pages())).rejects.toMatchObject({ code: 'journal_changed' });
    // A store without pages is read whole, as it stands.
    const whole = await JournalPager.open(arrayStore(events, false), 'run', { seq: 2, hash: events[2]!.hash }, 2);
    expect(whole.head).toEqual({ seq: 3, hash: events[3]!.hash });
    expect(await collect(whole.pages())).toEqual(events);
    await expect(JournalPager.open(arrayStore(events, true), 'run', undefined, 0)).rejects.toThrow(RangeError);
  });

  it('fails with journal_changed when events go missing while it reads', async () => {
    const events = journalOf(
      Array.from({ length: 6 }, () => ({ kind: 'stage', stage: 'plan' }) as const),
      [1],
    );
    const store = arrayStore(events, true);
    const pager = await JournalPager.open(store, 'run', { seq: events.at(-1)!.seq, hash: events.at(-1)!.hash }, 2);
    // The run is deleted after the first page was read.
    (store as { readJournalPage: unknown }).readJournalPage = async () => [];
    const reading = collect(pager.pages());
    await expect(reading).rejects.toBeInstanceOf(SystemError);
    await expect(reading).rejects.toMatchObject({ code: 'journal_changed' });
  });
});

describe('the run views over HTTP', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cugar-streamed-views-'));
  let server: RunningServer;
  let journal: JournalEvent[];
  const get = (path: string) => fetch(new URL(path, server.url), { headers: { authorization: `Bearer ${TOKEN}` } });

  beforeAll(async () => {
    server = await startServer({
      port: 0,
      dataDir: dir,
      corpusDir: join(dir, 'none'),
      tokens: { [TOKEN]: { profiles: '*', scopes: ['journal:raw'] } },
      log: () => undefined,
    });
    journal = await eventfulJournal();
    const imported = await fetch(new URL('/v1/journals', server.url), {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ journal: exportJournal(journal) }),
    });
    expect(imported.status).toBe(200);
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends the bytes the whole-journal views sent, with the same headers, in more than one page', async () => {
    const runId = journal[0]!.runId;
    expect(journal.length).toBeGreaterThan(JOURNAL_PAGE_SIZE);
    const summary = (await server.runtime.store.getRun(runId))!;
    expect(summary.head).toEqual({ seq: journal.at(-1)!.seq, hash: journal.at(-1)!.hash });
    // The journal as the previous views read it: whole, from the server's store (SQLite keeps data with sorted keys).
    const stored = await server.runtime.store.readJournal(runId);
    expect(exportJournal(stored)).toBe(exportJournal(journal));
    const views = [
      { path: 'journal', type: 'application/json', kind: 'redacted', body: previousJournalBody(stored, 'json', false, summary.signature) },
      { path: 'journal?format=ndjson', type: 'application/x-ndjson', kind: 'redacted', body: previousJournalBody(stored, 'ndjson', false, summary.signature) },
      { path: 'journal?raw=true', type: 'application/json', kind: 'raw', body: previousJournalBody(stored, 'json', true) },
      { path: 'journal?format=ndjson&raw=true', type: 'application/x-ndjson', kind: 'raw', body: previousJournalBody(stored, 'ndjson', true) },
      { path: 'trace', type: 'application/json', body: previousTraceBody(stored) },
      { path: 'otlp', type: 'application/json', body: previousOtlpBody(stored) },
    ];
    for (const view of views) {
      const response = await get(`/v1/runs/${runId}/${view.path}`);
      expect(response.status, view.path).toBe(200);
      expect(response.headers.get('content-type'), view.path).toContain(view.type);
      if (view.kind) expect(response.headers.get('x-cugar-journal'), view.path).toBe(view.kind);
      const text = await response.text();
      expect(text.length, view.path).toBe(view.body.length);
      expect(text === view.body, view.path).toBe(true);
      if (view.kind !== 'raw') expect(text, view.path).not.toContain('secretvalue');
    }
  });

  it('answers 404 for an unknown run on every view, as before', async () => {
    expect((await get('/v1/runs/no-such-run/trace')).status).toBe(404);
    expect((await get('/v1/runs/no-such-run/otlp')).status).toBe(404);
    expect((await get('/v1/runs/no-such-run/journal')).status).toBe(404);
  });
});

describe('SqliteStore paged reads', () => {
  it('read the same events as readJournal: a page by seq, and the events of some types up to a seq', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cugar-sqlite-pages-'));
    const store = new SqliteStore(join(dir, 'pages.db'));
    try {
      const events = await eventfulJournal();
      const { runId: run } = await importJournal(store, events);
      const whole = await store.readJournal(run);
      expect(whole).toHaveLength(events.length);
      expect(await store.readJournalPage(run, 0, 5)).toEqual(whole.slice(0, 5));
      expect(await store.readJournalPage(run, 300, 64)).toEqual(whole.slice(300, 364));
      expect(await store.readJournalPage(run, whole.length - 2, 64)).toEqual(whole.slice(-2));
      expect(await store.readJournalPage(run, whole.length, 64)).toEqual([]);
      expect(await store.readJournalPage('no-such-run', 0, 64)).toEqual([]);
      const types = ['stage', 'approval_requested', 'run_completed'] as const;
      expect(await store.readJournalOfTypes(run, types, whole.length)).toEqual(whole.filter((e) => (types as readonly string[]).includes(e.type)));
      expect(await store.readJournalOfTypes(run, types, 10)).toEqual(whole.slice(0, 11).filter((e) => (types as readonly string[]).includes(e.type)));
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
