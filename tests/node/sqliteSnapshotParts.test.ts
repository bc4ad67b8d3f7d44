import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { STORE_SCHEMA } from '../../src/edge/sqliteSchema.ts';
import { SqliteVectorRows } from '../../src/edge/sqliteVectorRows.ts';

// Large snapshots are stored in parts of 1 MiB and read back into one buffer; small ones, and
// snapshots written inline by earlier versions, are read from their row as before.

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
  it('stores a large snapshot in parts and reads back the same bytes; a smaller one replaces every part', () => {
    const { db, rows } = open();
    const generation = rows.put('p', [{ id: 'a', bytes: new Uint8Array(8), metadata: {} }]);
    const at = generation ? generation.after : 0;
    const large = pattern(3 * (1 << 20) + 12_345, 1);
    expect(rows.writeSnapshot('p', 'vectors', at, large)).toBe(true);
    expect(parts(db, 'vectors')).toBe(4);
    const read = rows.readSnapshot('p', 'vectors')!;
    expect(read.generation).toBe(at);
    expect(Buffer.compare(Buffer.from(read.bytes), Buffer.from(large))).toBe(0);
    // The copy is aligned, so the vectors inside it are viewed in place.
    expect(read.bytes.byteOffset % 4).toBe(0);

    const smaller = pattern((1 << 20) + 1, 2);
    expect(rows.writeSnapshot('p', 'vectors', at, smaller)).toBe(true);
    expect(parts(db, 'vectors')).toBe(2);
    expect(Buffer.compare(Buffer.from(rows.readSnapshot('p', 'vectors')!.bytes), Buffer.from(smaller))).toBe(0);

    const small = pattern(100, 3);
    expect(rows.writeSnapshot('p', 'vectors', at, small)).toBe(true);
    expect(parts(db, 'vectors')).toBe(0);
    expect([...rows.readSnapshot('p', 'vectors')!.bytes]).toEqual([...small]);
    db.close();
  });

  it('reads a snapshot stored inline by an earlier version, and refuses a write at a stale generation without touching the parts', () => {
    const { db, rows } = open();
    const change = rows.put('p', [{ id: 'a', bytes: new Uint8Array(8), metadata: {} }]);
    const at = change ? change.after : 0;
    const inline = pattern(2 * (1 << 20), 4);
    db.prepare('INSERT INTO vector_snapshots (profile, name, generation, bytes) VALUES (?, ?, ?, ?)').run('p', 'vectors', at, Buffer.from(inline));
    expect(Buffer.compare(Buffer.from(rows.readSnapshot('p', 'vectors')!.bytes), Buffer.from(inline))).toBe(0);

    expect(rows.writeSnapshot('p', 'keywords', at, pattern(2 * (1 << 20), 5))).toBe(true);
    rows.put('p', [{ id: 'b', bytes: new Uint8Array(8), metadata: {} }]);
    expect(rows.writeSnapshot('p', 'keywords', at, pattern(100, 6))).toBe(false);
    expect(parts(db, 'keywords')).toBe(2);
    const kept = rows.readSnapshot('p', 'keywords')!;
    expect(kept.generation).toBe(at);
    expect(kept.current).toBe(at + 1);
    db.close();
  });
});
