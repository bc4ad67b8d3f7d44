import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { auditHeadLog } from '../../src/core/index.ts';
import { createHeadSigner, generateSigningKey } from '../../src/core/signing.ts';
import { sealEvent } from '../../src/core/testing.ts';
import { SqliteStore } from '../../src/edge/sqliteStore.ts';
import { describeMemoryConformance, describeStoreConformance } from '../support/storeConformance.ts';

const dir = mkdtempSync(join(tmpdir(), 'cugar-sqlite-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

const signer = createHeadSigner(generateSigningKey());

/** The summary of a running run whose head is `event`, as a batch carries it. */
const summaryAt = (event: { runId: string; seq: number; hash: string }) => ({
  runId: event.runId,
  traceId: 't',
  profile: 'demo',
  goal: 'g',
  status: 'running' as const,
  createdAt: 1,
  updatedAt: 1,
  head: { seq: event.seq, hash: event.hash },
});

for (const groupCommit of [true, false]) {
  describeStoreConformance(`SQLite (${groupCommit ? 'group commit' : 'one transaction per append'})`, {
    open: async () => new SqliteStore(join(dir, `store-${n++}.db`), { groupCommit, signer }),
    reopen: async (store) => {
      const path = (store as SqliteStore).path;
      await store.close?.();
      return new SqliteStore(path, { groupCommit, signer });
    },
    connect: async (store) => new SqliteStore((store as SqliteStore).path, { groupCommit, signer }),
    signer,
  });
}

describe('SqliteStore', () => {
  it('writes the facts of one turn in one transaction (memory in the loop of concurrent runs), or one each without group commit', async () => {
    for (const groupCommit of [true, false]) {
      const store = new SqliteStore(join(dir, `facts-${groupCommit}.db`), { groupCommit });
      const fact = (i: number) => ({
        id: `reflection:run-${i}`,
        profile: 'demo',
        namespace: 'reflection',
        key: `run-${i}`,
        value: { i },
        at: i,
        timestamp: new Date(i).toISOString(),
      });
      await Promise.all(Array.from({ length: 30 }, (_, i) => store.putFacts([fact(i), { ...fact(i), id: `goals:run-${i}`, namespace: 'goals' }])));
      expect(store.memoryWrites.facts).toBe(groupCommit ? 1 : 30);
      expect(await store.queryFacts('demo', { namespace: 'reflection' })).toHaveLength(30);
      // A fact written again under its id replaces the one kept.
      await store.putFacts([{ ...fact(3), value: { i: 'again' } }]);
      expect(await store.queryFacts('demo', { namespace: 'reflection', key: 'run-3' })).toMatchObject([{ value: { i: 'again' } }]);
      expect(await store.namespaces('demo')).toEqual(['goals', 'reflection']);
      await store.close();
      await expect(store.putFacts([fact(99)])).rejects.toMatchObject({ code: 'store_closed' });
    }
  });

  it('writes the vectors of one turn in one transaction, each put with its own generation, or one each without group commit', async () => {
    for (const groupCommit of [true, false]) {
      const path = join(dir, `vectors-${groupCommit}.db`);
      const store = new SqliteStore(path, { groupCommit });
      const vectors = store.vectors(4);
      // Load both profiles first, so the puts all start in one turn.
      await Promise.all(['a', 'b'].map((profile) => vectors.count(profile)));
      await Promise.all(
        Array.from({ length: 30 }, (_, i) => vectors.upsert(i % 2 ? 'a' : 'b', [{ id: `v${i}`, vector: Float32Array.of(1, i, 0, 0), metadata: { i } }])),
      );
      expect(store.memoryWrites.vectors).toBe(groupCommit ? 1 : 30);
      expect([await vectors.count('a'), await vectors.count('b')]).toEqual([15, 15]);
      await store.close();
      // Each put counted its own generation.
      const raw = new Database(path, { readonly: true });
      expect(raw.prepare("SELECT generation FROM vector_generations WHERE profile = 'a'").pluck().get()).toBe(15);
      raw.close();
      const reopened = new SqliteStore(path, { groupCommit });
      expect(await reopened.vectors(4).count('a')).toBe(15);
      expect((await reopened.vectors(4).search('b', Float32Array.of(1, 2, 0, 0), { k: 1 }))[0]).toMatchObject({ id: 'v2', metadata: { i: 2 } });
      await reopened.close();
    }
  });

  it('runs in WAL mode and reports a corrupt row as a typed error, losing nothing else', async () => {
    const path = join(dir, 'corrupt.db');
    const store = new SqliteStore(path);
    const a = sealEvent(undefined, 'ok-run', 'stage', 1, { stage: 'initialize' });
    const b = sealEvent(undefined, 'bad-run', 'stage', 1, { stage: 'initialize' });
    await store.append({ runId: 'ok-run', events: [a], expectedHead: null, run: summaryAt(a) });
    await store.append({ runId: 'bad-run', events: [b], expectedHead: null, run: summaryAt(b) });
    await store.close();
    const raw = new Database(path);
    expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
    raw.prepare("UPDATE events SET data = '{not json' WHERE run_id = 'bad-run'").run();
    raw.close();
    const reopened = new SqliteStore(path);
    await expect(reopened.readJournal('bad-run')).rejects.toMatchObject({ code: 'corrupt_row', failureMode: 'SYSTEM' });
    expect(await reopened.readJournal('ok-run')).toEqual([a]);
    await reopened.close();
  });

  it('updates a run row on later appends, and writes it again when it is missing', async () => {
    const path = join(dir, 'run-rows.db');
    const store = new SqliteStore(path);
    const first = sealEvent(undefined, 'r', 'stage', 1, { stage: 'initialize' });
    const second = sealEvent(first, 'r', 'stage', 2, { stage: 'plan' });
    const third = sealEvent(second, 'r', 'stage', 3, { stage: 'route' });
    await store.append({ runId: 'r', events: [first], expectedHead: null, run: summaryAt(first) });
    await store.append({ runId: 'r', events: [second], expectedHead: first, run: { ...summaryAt(second), updatedAt: 2 } });
    expect(await store.getRun('r')).toEqual({ ...summaryAt(second), updatedAt: 2 });
    await store.close();
    // A row lost outside the store (the events stay): the next append writes it whole again.
    const raw = new Database(path);
    raw.prepare("DELETE FROM runs WHERE run_id = 'r'").run();
    raw.close();
    const reopened = new SqliteStore(path);
    await reopened.append({ runId: 'r', events: [third], expectedHead: second, run: { ...summaryAt(third), status: 'completed', updatedAt: 3 } });
    expect(await reopened.getRun('r')).toEqual({ ...summaryAt(third), status: 'completed', updatedAt: 3 });
    expect(await reopened.listRuns({ status: 'completed' })).toMatchObject([{ runId: 'r' }]);
    await reopened.close();
  });

  it("writes an event's data as the text its batch carries, and writes it itself without one", async () => {
    const path = join(dir, 'data-texts.db');
    const store = new SqliteStore(path);
    const texts: string[] = [];
    const first = sealEvent(undefined, 'r', 'stage', 1, { stage: 'initialize' }, texts);
    const second = sealEvent(first, 'r', 'stage', 2, { stage: 'plan' });
    await store.append({ runId: 'r', events: [first], expectedHead: null, run: summaryAt(first), dataTexts: texts });
    await store.append({ runId: 'r', events: [second], expectedHead: first, run: summaryAt(second) });
    await store.close();
    const raw = new Database(path);
    expect(raw.prepare("SELECT data FROM events WHERE run_id = 'r' ORDER BY seq").pluck().all()).toEqual(['{"stage":"initialize"}', '{"stage":"plan"}']);
    raw.close();
    // The text is written as given: the store does not write the data again.
    const other = new SqliteStore(join(dir, 'data-texts-given.db'));
    const third = sealEvent(undefined, 'q', 'stage', 1, { stage: 'initialize' });
    await other.append({ runId: 'q', events: [third], expectedHead: null, run: summaryAt(third), dataTexts: ['{"stage":"route"}'] });
    expect((await other.readJournal('q'))[0]!.data).toEqual({ stage: 'route' });
    await other.close();
  });
});

describe('SqliteStore events table', () => {
  it('moves the events of a database ordered by (run_id, seq) into insertion order once, losing and reordering nothing', async () => {
    const path = join(dir, 'events-by-key.db');
    const store = new SqliteStore(path, { signer });
    const chain = (runId: string, count: number) => {
      const events: ReturnType<typeof sealEvent>[] = [];
      for (let i = 0; i < count; i++)
        events.push(sealEvent(events.at(-1), runId, 'stage', i + 1, { stage: (['initialize', 'plan', 'route', 'execute'] as const)[i % 4]! }));
      return events;
    };
    const runOf = (events: ReturnType<typeof sealEvent>[]) => summaryAt(events.at(-1)!);
    const runs = [chain('run-b', 3), chain('run-a', 4)];
    for (const events of runs) await store.append({ runId: events[0]!.runId, events, expectedHead: null, run: runOf(events) });
    await store.close();
    // As a version that kept events ordered by their key left them.
    const raw = new Database(path);
    raw.exec(`DROP INDEX events_by_run; ALTER TABLE events RENAME TO current_events;
      CREATE TABLE events (run_id TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL, at REAL NOT NULL,
        data TEXT NOT NULL, prev TEXT NOT NULL, hash TEXT NOT NULL, PRIMARY KEY (run_id, seq)) WITHOUT ROWID;
      INSERT INTO events SELECT run_id, seq, type, at, data, prev, hash FROM current_events; DROP TABLE current_events;`);
    raw.close();
    const reopened = new SqliteStore(path, { signer });
    for (const events of runs) expect(await reopened.readJournal(events[0]!.runId)).toEqual(events);
    const check = new Database(path, { readonly: true });
    expect(check.prepare("SELECT sql FROM sqlite_schema WHERE name = 'events'").pluck().get()).not.toMatch(/WITHOUT ROWID/i);
    // Each run's events stay together, in order.
    expect(check.prepare('SELECT run_id || seq FROM events ORDER BY rowid').pluck().all()).toEqual([
      'run-a0',
      'run-a1',
      'run-a2',
      'run-a3',
      'run-b0',
      'run-b1',
      'run-b2',
    ]);
    check.close();
    // Appends go on from the heads, and a seq taken twice is still a conflict.
    const [b] = runs;
    const next = sealEvent(b!.at(-1), 'run-b', 'stage', 9, { stage: 'complete' });
    await reopened.append({ runId: 'run-b', events: [next], expectedHead: runOf(b!).head, run: runOf([...b!, next]) });
    const again = new Database(path);
    expect(() => again.prepare('INSERT INTO events SELECT * FROM events WHERE run_id = ? AND seq = 0').run('run-a')).toThrow(/UNIQUE/);
    again.close();
    expect(await reopened.readJournal('run-b')).toEqual([...b!, next]);
    await reopened.close();
    // Opening it again migrates nothing more.
    const third = new SqliteStore(path, { signer });
    expect(await third.readJournal('run-a')).toEqual(runs[1]);
    await third.close();
  });
});

describe('SqliteStore log of heads', () => {
  it('starts on a database written before it, entering its runs as predating the log', async () => {
    const path = join(dir, 'before-the-log.db');
    const store = new SqliteStore(path);
    const event = sealEvent(undefined, 'old-run', 'stage', 1, { stage: 'initialize' });
    const run = {
      runId: 'old-run',
      traceId: 't',
      profile: 'demo',
      goal: 'g',
      status: 'completed' as const,
      createdAt: 1,
      updatedAt: 1,
      head: { seq: 0, hash: event.hash },
    };
    await store.append({ runId: 'old-run', events: [event], expectedHead: null, run });
    await store.close();
    // As a version without the log left it.
    const raw = new Database(path);
    raw.exec('DROP TABLE head_log; DROP TABLE head_log_signature;');
    raw.close();
    const reopened = new SqliteStore(path, { signer });
    expect(await reopened.readHeadLog()).toEqual({ entries: [] });
    expect(auditHeadLog(await reopened.readHeadLog(), await reopened.listRuns(), (head, sig) => signer.verifyLog(head, sig))).toMatchObject({
      ok: true,
      predating: 1,
      findings: [],
    });
    const next = sealEvent(undefined, 'new-run', 'stage', 2, { stage: 'initialize' });
    await reopened.append({ runId: 'new-run', events: [next], expectedHead: null, run: { ...run, runId: 'new-run', head: { seq: 0, hash: next.hash } } });
    const log = await reopened.readHeadLog();
    expect(log.entries).toMatchObject([
      { index: 0, runId: 'old-run', seq: 0, hash: event.hash, predates: true },
      { index: 1, runId: 'new-run', seq: 0, rest: true },
    ]);
    expect(log.signed).toMatchObject({ size: 2, hash: log.entries[1]!.logHash });
    expect(auditHeadLog(log, await reopened.listRuns(), (head, sig) => signer.verifyLog(head, sig))).toMatchObject({
      ok: true,
      signature: 'signed',
      predating: 1,
      findings: [],
    });
    await reopened.close();
  });
});

describeMemoryConformance('SQLite', {
  open: async () => new SqliteStore(join(dir, `memory-${n++}.db`)),
  reopen: async (store) => {
    const path = (store as SqliteStore).path;
    await store.close?.();
    return new SqliteStore(path);
  },
});

describe('SqliteVectorBackend', () => {
  it('reports a corrupt stored vector as a typed error and leaves other profiles readable', async () => {
    const path = join(dir, 'corrupt-vectors.db');
    const store = new SqliteStore(path);
    const vectors = store.vectors(4);
    await vectors.upsert('good', [{ id: 'a', vector: Float32Array.of(1, 0, 0, 0) }]);
    await vectors.upsert('bad', [{ id: 'b', vector: Float32Array.of(0, 1, 0, 0) }]);
    await store.close();
    const raw = new Database(path);
    raw.prepare("UPDATE vectors SET vector = x'0102' WHERE profile = 'bad'").run();
    raw.close();
    const reopened = new SqliteStore(path);
    await expect(reopened.vectors(4).count('bad')).rejects.toMatchObject({ code: 'corrupt_row', failureMode: 'SYSTEM' });
    const fresh = reopened.vectors(4);
    expect((await fresh.search('good', Float32Array.of(1, 0, 0, 0)))[0]).toMatchObject({ id: 'a', score: 1 });
    await reopened.close();
  });
});
