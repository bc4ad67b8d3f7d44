import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { legacyKeywordSnapshot } from '../../../tests/support/legacyKeywordSnapshot.ts';
import { KeywordIndex } from './keywordIndex.ts';

const WORDS = ['bee', 'hive', 'tea', 'oolong', 'sun', 'planet', 'the', 'a', 'Café', 'mite'];
const text = fc.array(fc.constantFrom(...WORDS), { maxLength: 12 }).map((words) => words.join(' '));
const op = fc.oneof(
  fc.record({ kind: fc.constant('upsert' as const), id: fc.integer({ min: 0, max: 12 }), text }),
  fc.record({ kind: fc.constant('delete' as const), id: fc.integer({ min: 0, max: 12 }) }),
);
type Op = { kind: 'upsert'; id: number; text: string } | { kind: 'delete'; id: number };
const OPTIONS = { stopWords: ['the', 'a'] };
/** The settings a snapshot of an index with OPTIONS records. */
const SETTINGS = { k1: 1.2, b: 0.75, stopWords: ['a', 'the'] };

function apply(index: KeywordIndex, ops: readonly Op[], metadata: Map<string, Record<string, unknown>>): void {
  for (const o of ops) {
    const id = `doc-${o.id}`;
    if (o.kind === 'upsert') {
      index.upsert(id, o.text, { text: o.text });
      metadata.set(id, { text: o.text });
    } else {
      index.delete([id]);
      metadata.delete(id);
    }
  }
}

// A query of more than 32 distinct words, the matching ones past the 32nd.
const LONG_QUERY = [...Array.from({ length: 33 }, (_, i) => `filler${i}`), ...WORDS].join(' ');
const everything = (index: KeywordIndex) => [
  index.size,
  ...WORDS.map((w) => index.search(`${w} bee`, 20)),
  index.search('hive tea sun', 3),
  index.search(`tea ${LONG_QUERY}`, 20),
];

describe('KeywordIndex snapshots', () => {
  it('load back to an index that ranks as one built afresh, before and after further changes', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 30 }), fc.array(op, { maxLength: 30 }), fc.array(fc.nat(), { maxLength: 5 }), (before, after, cuts) => {
        const metadata = new Map<string, Record<string, unknown>>();
        const original = new KeywordIndex(OPTIONS);
        apply(original, before, metadata);
        // Storage may hand the snapshot back in parts, cut anywhere: it is read as it is, unjoined.
        const bytes = original.toSnapshot();
        const edges = [0, ...cuts.map((c) => c % (bytes.length + 1)).sort((x, y) => x - y), bytes.length];
        const parts = edges.slice(1).map((end, i) => bytes.slice(edges[i], end));
        const loaded = KeywordIndex.fromSnapshot(parts, OPTIONS, (id) => metadata.get(id));
        expect(loaded).toBeDefined();
        expect(everything(loaded!)).toEqual(everything(original));
        apply(original, after, metadata);
        apply(loaded!, after, metadata);
        const rebuilt = new KeywordIndex(OPTIONS);
        for (const [id, m] of metadata) rebuilt.upsert(id, String(m['text']), m);
        expect(everything(loaded!)).toEqual(everything(rebuilt));
        // A snapshot of a loaded and changed index is as good as one of a fresh build.
        const again = KeywordIndex.fromSnapshot(loaded!.toSnapshot(), OPTIONS, (id) => metadata.get(id));
        expect(everything(again!)).toEqual(everything(rebuilt));
      }),
      { numRuns: 150 },
    );
  });

  it('refuses snapshots of other options, other versions, and damaged bytes', () => {
    const index = new KeywordIndex(OPTIONS);
    index.upsert('a', 'bee hive', {});
    index.upsert('b', 'tea sun', {});
    const bytes = index.toSnapshot();
    const none = () => undefined;
    expect(KeywordIndex.fromSnapshot(bytes, OPTIONS, none)?.size).toBe(2);
    expect(KeywordIndex.fromSnapshot(bytes, { stopWords: ['the'] }, none)).toBeUndefined();
    expect(KeywordIndex.fromSnapshot(bytes, { ...OPTIONS, k1: 2 }, none)).toBeUndefined();
    const otherVersion = bytes.slice();
    otherVersion[4] = 9;
    expect(KeywordIndex.fromSnapshot(otherVersion, OPTIONS, none)).toBeUndefined();
    expect(KeywordIndex.fromSnapshot(bytes.subarray(0, bytes.length - 4), OPTIONS, none)).toBeUndefined();
    // The last posting (of "sun", in document b) is two varints at the end: its row's gap, then its frequency.
    const badRow = bytes.slice();
    badRow[badRow.length - 2] = 99;
    // A posting whose row is past the documents is left out when its word is first searched, never misread.
    const damaged = KeywordIndex.fromSnapshot(badRow, OPTIONS, none)!;
    expect(damaged.search('sun')).toEqual([]);
    expect(damaged.search('tea').map((hit) => hit.id)).toEqual(['b']);
    // Ids are kept sorted: ids out of order or repeated are damage.
    const text = new TextDecoder().decode(bytes);
    const at = text.indexOf('"ids":["a","b"]');
    expect(at).toBeGreaterThan(0);
    for (const ids of ['"ids":["b","a"]', '"ids":["a","a"]']) {
      const swapped = bytes.slice();
      swapped.set(new TextEncoder().encode(ids), at);
      expect(KeywordIndex.fromSnapshot(swapped, OPTIONS, none)).toBeUndefined();
    }
    expect(KeywordIndex.fromSnapshot(new Uint8Array(3), OPTIONS, none)).toBeUndefined();
    // Bytes at an odd offset of a shared buffer (as a database may hand them over) still load.
    const shifted = new Uint8Array(bytes.length + 1);
    shifted.set(bytes, 1);
    expect(KeywordIndex.fromSnapshot(shifted.subarray(1), OPTIONS, none)?.search('bee')).toEqual(index.search('bee'));
  });

  it('still reads versions 1 and 2 (fixed-width rows and frequencies, ids in any order)', () => {
    const index = new KeywordIndex(OPTIONS);
    index.upsert('b', 'bee hive', {});
    index.upsert('a', `tea ${'sun '.repeat(300)}`, {});
    index.upsert('c', 'hive tea tea', {});
    const bytes = index.toSnapshot();
    for (const version of [1, 2] as const) {
      const old = legacyKeywordSnapshot(bytes, SETTINGS, version);
      expect(headerOf(old)['ids']).toEqual(['c', 'b', 'a']);
      const loaded = KeywordIndex.fromSnapshot(old, OPTIONS)!;
      for (const query of ['bee', 'sun tea', 'hive sun', 'tea']) expect(loaded.search(query)).toEqual(index.search(query));
      loaded.delete(['b']);
      index.delete(['b']);
      expect(loaded.search('hive')).toEqual(index.search('hive'));
      index.upsert('b', 'bee hive', {});
    }
  });

  it('keeps ids sorted and postings as varints, smaller than version 2, past 65,536 documents too', () => {
    const index = new KeywordIndex(OPTIONS);
    for (let i = 0x10000; i >= 0; i--) index.upsert(`d${i}`, i % 1000 === 0 ? 'bee hive' : `tea ${'sun '.repeat(i % 7)}`, {});
    const bytes = index.toSnapshot();
    const ids = headerOf(bytes)['ids'] as string[];
    expect(ids).toEqual([...ids].sort());
    expect(bytes.length).toBeLessThan(legacyKeywordSnapshot(bytes, SETTINGS, 2).length);
    const loaded = KeywordIndex.fromSnapshot(bytes, OPTIONS)!;
    for (const query of ['bee', 'sun', 'tea hive']) expect(loaded.search(query, 100)).toEqual(index.search(query, 100));
    expect([loaded.has('d65536'), loaded.has('d0'), loaded.has('d65537')]).toEqual([true, true, false]);
  });
});

function headerOf(bytes: Uint8Array): Record<string, unknown> {
  const view = new DataView(bytes.buffer, bytes.byteOffset);
  return JSON.parse(new TextDecoder().decode(bytes.subarray(12, 12 + view.getUint32(8, true)))) as Record<string, unknown>;
}
