import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { IVF_SNAPSHOT, PersistedVectorBackend, vectorFromBytes, vectorToBytes } from '../../src/core/store/persistedVectors.ts';
import { SqliteVectorRows } from '../../src/edge/sqliteVectorRows.ts';
import { IvfVectorIndex } from '../../src/core/vector/ivfVectorIndex.ts';
import { ANN_DIM, annRecords, trainedAnnIndex } from '../support/annFixture.ts';

describe('IvfVectorIndex persisted in SQLite', () => {
  it('reloads its vectors and structure from SQLite and answers as before, without training', () => {
    const db = new Database(':memory:');
    db.exec('CREATE TABLE vectors (id TEXT PRIMARY KEY, bytes BLOB NOT NULL); CREATE TABLE snapshots (name TEXT PRIMARY KEY, bytes BLOB NOT NULL)');
    const index = trainedAnnIndex();
    const insert = db.prepare('INSERT INTO vectors (id, bytes) VALUES (?, ?)');
    db.transaction(() => {
      for (const record of annRecords(3000)) insert.run(record.id, Buffer.from(vectorToBytes(record.vector)));
    })();
    db.prepare('INSERT INTO snapshots (name, bytes) VALUES (?, ?)').run('ivf', Buffer.from(index.serialise()!));

    const reloaded = new IvfVectorIndex(ANN_DIM, { trainAt: 1000 });
    const rows = db.prepare('SELECT id, bytes FROM vectors ORDER BY id DESC').all() as Array<{ id: string; bytes: Buffer }>;
    reloaded.upsert(rows.map((row) => ({ id: row.id, vector: vectorFromBytes(row.bytes, ANN_DIM, row.id), metadata: { i: Number(row.id.slice(1)) } })));
    const { bytes } = db.prepare('SELECT bytes FROM snapshots WHERE name = ?').get('ivf') as { bytes: Buffer };
    reloaded.restore(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    expect(reloaded.trained).toBe(true);
    for (const record of annRecords(40, 77)) expect(reloaded.search(record.vector)).toEqual(index.search(record.vector));
    db.close();
  });
});

describe('PersistedVectorBackend with an approximate index on SQLite', () => {
  const open = () => {
    const db = new Database(':memory:');
    db.exec('CREATE TABLE vectors (profile TEXT NOT NULL, id TEXT NOT NULL, vector BLOB NOT NULL, metadata TEXT NOT NULL, PRIMARY KEY (profile, id))');
    return db;
  };
  // Counts the approximate index's structures written, so a test can tell a restart that trained from one that did not.
  const counting = (db: Database.Database) => {
    const rows = new SqliteVectorRows(db);
    let written = 0;
    const write = rows.writeSnapshot.bind(rows);
    rows.writeSnapshot = (profile, name, generation, bytes) => {
      if (name === IVF_SNAPSHOT) written++;
      return write(profile, name, generation, bytes);
    };
    return { rows, written: () => written };
  };
  const queries = annRecords(20, 77).map((r) => r.vector);

  it('stores the structure it trained and a restart answers the same without training', async () => {
    const db = open();
    const first = counting(db);
    const backend = new PersistedVectorBackend(ANN_DIM, first.rows, { approximateAbove: 1000 });
    await backend.connect();
    await backend.upsert('p', annRecords(3000));
    const answers = [];
    for (const q of queries) answers.push(await backend.search('p', q));
    expect(first.written()).toBe(1);

    const second = counting(db);
    const restarted = new PersistedVectorBackend(ANN_DIM, second.rows, { approximateAbove: 1000 });
    await restarted.connect();
    for (const [i, q] of queries.entries()) expect(await restarted.search('p', q)).toEqual(answers[i]);
    expect(second.written()).toBe(0);
    // Written since the structure was stored: filed in its nearest list, and found.
    await restarted.upsert('p', [{ id: 'late', vector: queries[0]!, metadata: { late: true } }]);
    expect((await restarted.search('p', queries[0]!, { k: 1 }))[0]).toMatchObject({ id: 'late', metadata: { late: true } });
    db.close();
  });

  it('trains again over a structure it cannot read', async () => {
    const db = open();
    const backend = new PersistedVectorBackend(ANN_DIM, new SqliteVectorRows(db), { approximateAbove: 1000 });
    await backend.connect();
    await backend.upsert('p', annRecords(3000));
    const answer = await backend.search('p', queries[1]!);
    db.prepare('UPDATE vector_snapshots SET bytes = ? WHERE name = ?').run(Buffer.from('not an index'), IVF_SNAPSHOT);
    const again = counting(db);
    const restarted = new PersistedVectorBackend(ANN_DIM, again.rows, { approximateAbove: 1000 });
    await restarted.connect();
    expect(await restarted.search('p', queries[1]!)).toEqual(answer);
    expect(again.written()).toBe(1);
    db.close();
  });
});
