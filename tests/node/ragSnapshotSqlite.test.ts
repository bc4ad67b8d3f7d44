import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { SqliteStore } from '../../src/edge/sqliteStore.ts';
import { describeRagSnapshots, type SnapshotStore } from '../support/ragSnapshotCases.ts';

const dir = mkdtempSync(join(tmpdir(), 'cugar-rag-snapshot-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const files = new WeakMap<SnapshotStore, string>();

describeRagSnapshots('SQLite', {
  async open() {
    const file = join(dir, `store-${n++}.db`);
    const store = new SqliteStore(file);
    files.set(store, file);
    return store;
  },
  async reopen(store) {
    const file = files.get(store)!;
    await store.close();
    const next = new SqliteStore(file);
    files.set(next, file);
    return next;
  },
});
