import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { vectorFromBytes, vectorToBytes } from '../../src/core/store/persistedVectors.ts';
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
