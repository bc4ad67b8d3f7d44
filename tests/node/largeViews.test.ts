import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  InMemoryStore,
  Orchestrator,
  ToolRegistry,
  derivedFromOf,
  exportJournal,
  parseJournal,
  readOtlp,
  redact,
  redactJournal,
  registerBuiltinTools,
  toOtlp,
  toTraceRecords,
  verifyJournal,
  type JournalEvent,
} from '../../src/core/index.ts';
import { startServer, type RunningServer } from '../../src/edge/nodeServer.ts';

const TOKEN = 'large-views-token-0123456789';
const dir = mkdtempSync(join(tmpdir(), 'cugar-views-'));
let server: RunningServer;
let journal: JournalEvent[];
const get = (path: string) => fetch(new URL(path, server.url), { headers: { authorization: `Bearer ${TOKEN}` } });

// A 2,000-step run's views are streamed in slices that yield to the event loop between them;
// what arrives is exactly the view a single JSON document would have been.
beforeAll(async () => {
  server = await startServer({
    port: 0,
    dataDir: dir,
    corpusDir: join(dir, 'none'),
    tokens: { [TOKEN]: { profiles: '*', scopes: ['journal:raw'] } },
    log: () => undefined,
  });
  const registry = new ToolRegistry();
  registerBuiltinTools(registry);
  const elsewhere = new InMemoryStore();
  const plan = Array.from({ length: 2_000 }, (_, i) => ({ tool: 'echo', input: { message: `step ${i} api_key: k${i}secretvalue` } }));
  const outcome = await new Orchestrator({ registry, store: elsewhere }).start('many steps', 'demo', { plan });
  journal = await elsewhere.readJournal(outcome.runId);
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

describe('large run views are streamed', () => {
  it('streams the journal (JSON and NDJSON, redacted and raw) as the exact documents', async () => {
    const runId = journal[0]!.runId;
    const summary = (await (await get(`/v1/runs/${runId}`)).json()) as { status: string };
    expect(summary.status).toBe('completed');
    const json = await get(`/v1/runs/${runId}/journal`);
    expect(json.headers.get('content-length')).toBeNull();
    const { events } = (await json.json()) as { events: JournalEvent[] };
    const derived = redactJournal(journal, derivedFromOf(events)?.signature);
    expect(events).toEqual(derived);
    expect(verifyJournal(events)).toMatchObject({ ok: true, count: journal.length });
    expect(JSON.stringify(events)).not.toContain('secretvalue');
    expect(parseJournal(await (await get(`/v1/runs/${runId}/journal?format=ndjson`)).text())).toEqual(derived);
    expect(await (await get(`/v1/runs/${runId}/journal?format=ndjson&raw=true`)).text()).toBe(exportJournal(journal));
  });

  it('streams traces and OTLP exports equal to the redacted views', async () => {
    const runId = journal[0]!.runId;
    const { records } = (await (await get(`/v1/runs/${runId}/trace`)).json()) as { records: unknown[] };
    expect(records).toEqual(redact(toTraceRecords(journal)));
    const otlp = await (await get(`/v1/runs/${runId}/otlp`)).json();
    expect(otlp).toEqual(redact(toOtlp(journal)));
    expect(readOtlp(otlp).length).toBeGreaterThan(2_000);
  });
});
