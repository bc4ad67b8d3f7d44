import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { sealEvent } from '../../src/core/testing.ts';
import { SqliteStore } from '../../src/edge/sqliteStore.ts';
import { describeMemoryConformance, describeStoreConformance } from '../support/storeConformance.ts';

const dir = mkdtempSync(join(tmpdir(), 'cugar-sqlite-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

for (const groupCommit of [true, false]) {
  describeStoreConformance(`SQLite (${groupCommit ? 'group commit' : 'one transaction per append'})`, {
    open: async () => new SqliteStore(join(dir, `store-${n++}.db`), { groupCommit }),
    reopen: async (store) => {
      const path = (store as SqliteStore).path;
      await store.close?.();
      return new SqliteStore(path, { groupCommit });
    },
    connect: async (store) => new SqliteStore((store as SqliteStore).path, { groupCommit }),
  });
}

describe('SqliteStore', () => {
  it('runs in WAL mode and reports a corrupt row as a typed error, losing nothing else', async () => {
    const path = join(dir, 'corrupt.db');
    const store = new SqliteStore(path);
    const a = sealEvent(undefined, 'ok-run', 'stage', 1, { stage: 'initialize' });
    const b = sealEvent(undefined, 'bad-run', 'stage', 1, { stage: 'initialize' });
    const run = (e: typeof a) => ({
      runId: e.runId,
      traceId: 't',
      profile: 'demo',
      goal: 'g',
      status: 'running' as const,
      createdAt: 1,
      updatedAt: 1,
      head: { seq: 0, hash: e.hash },
    });
    await store.append({ runId: 'ok-run', events: [a], expectedHead: null, run: run(a) });
    await store.append({ runId: 'bad-run', events: [b], expectedHead: null, run: run(b) });
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
