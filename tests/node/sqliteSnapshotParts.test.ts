import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { InMemoryVectorBackend, type VectorBackend } from '../../src/core/index.ts';
import { hasVectorSnapshots } from '../../src/core/stores.ts';
import { joinedBytes } from '../../src/core/store/vectorSnapshot.ts';
import { STORE_SCHEMA } from '../../src/edge/sqliteSchema.ts';
import { SqliteStore } from '../../src/edge/sqliteStore.ts';
import { SqliteVectorRows } from '../../src/edge/sqliteVectorRows.ts';

// Large snapshots are stored in parts of 1 MiB and read back as those parts, unjoined; small
// ones, and snapshots written inline by earlier versions, are read from their row as before.

const dir = mkdtempSync(join(tmpdir(), 'cugar-snapshot-parts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

function open(): { db: Database.Database; rows: SqliteVectorRows } {
  const db = new Database(join(dir, `rows-${n++}.db`));
  db.exec(STORE_SCHEMA);
  return { db, rows: new SqliteVectorRows(db) };
}

/** `length` bytes that differ from part to part, so a part out of order or missing shows. */
function pattern(length: number, seed: number): Uint8Array {
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) bytes[i] = (i * 31 + seed + (i >> 20) * 7) & 0xff;
  return bytes;
}

const parts = (db: Database.Database, name: string) =>
  (db.prepare('SELECT count(*) AS n FROM vector_snapshot_parts WHERE name = ?').get(name) as { n: number }).n;

describe('SQLite vector snapshots in parts', () => {
  it('stores a large snapshot in parts and reads back the same bytes in the same parts; a smaller one replaces every part', async () => {
    const { db, rows } = open();
    const generation = await rows.put('p', [{ id: 'a', bytes: new Uint8Array(8), metadata: {} }]);
    const at = generation ? generation.after : 0;
    const large = pattern(3 * (1 << 20) + 12_345, 1);
    expect(rows.writeSnapshot('p', 'vectors', at, large)).toBe(true);
    expect(parts(db, 'vectors')).toBe(4);
    const read = rows.readSnapshot('p', 'vectors')!;
    expect(read.generation).toBe(at);
    expect(Buffer.compare(Buffer.from(joinedBytes(read.bytes)), Buffer.from(large))).toBe(0);
    // The parts as written, each aligned, so the vectors inside them are viewed in place.
    const pieces = read.bytes as readonly Uint8Array[];
    expect(pieces.map((piece) => piece.length)).toEqual([1 << 20, 1 << 20, 1 << 20, 12_345]);
    for (const piece of pieces) expect(piece.byteOffset % 4).toBe(0);

    const smaller = pattern((1 << 20) + 1, 2);
    expect(rows.writeSnapshot('p', 'vectors', at, smaller)).toBe(true);
    expect(parts(db, 'vectors')).toBe(2);
    expect(Buffer.compare(Buffer.from(joinedBytes(rows.readSnapshot('p', 'vectors')!.bytes)), Buffer.from(smaller))).toBe(0);

    const small = pattern(100, 3);
    expect(rows.writeSnapshot('p', 'vectors', at, small)).toBe(true);
    expect(parts(db, 'vectors')).toBe(0);
    expect([...joinedBytes(rows.readSnapshot('p', 'vectors')!.bytes)]).toEqual([...small]);
    db.close();
  });

  it('reads a snapshot stored inline by an earlier version, and refuses a write at a stale generation without touching the parts', async () => {
    const { db, rows } = open();
    const change = await rows.put('p', [{ id: 'a', bytes: new Uint8Array(8), metadata: {} }]);
    const at = change ? change.after : 0;
    const inline = pattern(2 * (1 << 20), 4);
    db.prepare('INSERT INTO vector_snapshots (profile, name, generation, bytes) VALUES (?, ?, ?, ?)').run('p', 'vectors', at, Buffer.from(inline));
    expect(Buffer.compare(Buffer.from(joinedBytes(rows.readSnapshot('p', 'vectors')!.bytes)), Buffer.from(inline))).toBe(0);

    expect(rows.writeSnapshot('p', 'keywords', at, pattern(2 * (1 << 20), 5))).toBe(true);
    await rows.put('p', [{ id: 'b', bytes: new Uint8Array(8), metadata: {} }]);
    expect(rows.writeSnapshot('p', 'keywords', at, pattern(100, 6))).toBe(false);
    expect(parts(db, 'keywords')).toBe(2);
    const kept = rows.readSnapshot('p', 'keywords')!;
    expect(kept.generation).toBe(at);
    expect(kept.current).toBe(at + 1);
    db.close();
  });

  it('restarts a profile from a snapshot of several parts, searches and lists as before, and takes writes after', async () => {
    const file = join(dir, `store-${n++}.db`);
    const dim = 256;
    const vector = (i: number) => Float32Array.from({ length: dim }, (_, d) => Math.sin(i * 0.37 + d * 1.3) + (d === i % dim ? 2 : 0));
    const records = Array.from({ length: 2_300 }, (_, i) => ({ id: `r${i}`, vector: vector(i), metadata: { path: `doc-${i}.md`, n: i } }));
    const reference = new InMemoryVectorBackend(dim);
    let store = new SqliteStore(file);
    let vectors: VectorBackend = store.vectors(dim);
    await Promise.all([vectors.connect(), reference.connect()]);
    for (const backend of [vectors, reference]) for (let i = 0; i < records.length; i += 500) await backend.upsert('p', records.slice(i, i + 500));
    expect(hasVectorSnapshots(vectors) && (await vectors.snapshotVectors('p'))).toBe(true);
    await store.close();

    // The rows' vectors are damaged behind the store's back (reading them would fail), so only the
    // snapshot can give the vectors back; the metadata is read from the rows, for the hits only.
    const db = new Database(file);
    expect(parts(db, 'vectors')).toBeGreaterThan(2);
    db.prepare("UPDATE vectors SET vector = x''").run();
    db.close();
    store = new SqliteStore(file);
    vectors = store.vectors(dim);
    await vectors.connect();
    const queries = [7, 1_500, 2_299].map((i) => vector(i + 1));
    for (const query of queries) expect(await vectors.search('p', query, { k: 10 })).toEqual(await reference.search('p', query, { k: 10 }));
    expect(await vectors.list('p', { vectors: true })).toEqual(await reference.list('p', { vectors: true }));

    // Writes land in the loaded chunks: a row replaced in the first chunk, one added, one deleted.
    for (const backend of [vectors, reference]) {
      await backend.upsert('p', [
        { id: 'r3', vector: vector(9_999), metadata: { path: 'changed.md' } },
        { id: 'new', vector: vector(4_242) },
      ]);
      expect(await backend.delete('p', ['r2000'])).toBe(1);
    }
    for (const query of [...queries, vector(9_999), vector(4_242)])
      expect(await vectors.search('p', query, { k: 10 })).toEqual(await reference.search('p', query, { k: 10 }));
    expect(await vectors.count('p')).toBe(2_300);
    await store.close();
  });
});
