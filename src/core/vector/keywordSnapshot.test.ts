import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KeywordIndex } from './keywordIndex.ts';

const WORDS = ['bee', 'hive', 'tea', 'oolong', 'sun', 'planet', 'the', 'a', 'Café', 'mite'];
const text = fc.array(fc.constantFrom(...WORDS), { maxLength: 12 }).map((words) => words.join(' '));
const op = fc.oneof(
  fc.record({ kind: fc.constant('upsert' as const), id: fc.integer({ min: 0, max: 12 }), text }),
  fc.record({ kind: fc.constant('delete' as const), id: fc.integer({ min: 0, max: 12 }) }),
);
type Op = { kind: 'upsert'; id: number; text: string } | { kind: 'delete'; id: number };
const OPTIONS = { stopWords: ['the', 'a'] };

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
    const badRow = bytes.slice();
    new DataView(badRow.buffer).setUint16(badRow.length - 6, 99, true); // the last posting's row (four u16 rows, then four u8 frequencies)
    // A posting whose row is past the documents is left out when its word is first searched, never misread.
    const damaged = KeywordIndex.fromSnapshot(badRow, OPTIONS, none)!;
    expect(damaged.search('sun')).toEqual([]);
    expect(damaged.search('tea').map((hit) => hit.id)).toEqual(['b']);
    expect(KeywordIndex.fromSnapshot(new Uint8Array(3), OPTIONS, none)).toBeUndefined();
    // Bytes at an odd offset of a shared buffer (as a database may hand them over) still load.
    const shifted = new Uint8Array(bytes.length + 1);
    shifted.set(bytes, 1);
    expect(KeywordIndex.fromSnapshot(shifted.subarray(1), OPTIONS, none)?.search('bee')).toEqual(index.search('bee'));
  });

  it('stores rows and frequencies as narrow as they fit, and still reads version 1 snapshots (every number in four bytes)', () => {
    const index = new KeywordIndex(OPTIONS);
    index.upsert('a', 'bee hive', {});
    index.upsert('b', `tea ${'sun '.repeat(300)}`, {});
    const bytes = index.toSnapshot();
    const header = headerOf(bytes);
    expect([header['docBytes'], header['tfBytes']]).toEqual([2, 2]); // two documents; "sun" 300 times
    const wide = version1(bytes);
    const loaded = KeywordIndex.fromSnapshot(wide, OPTIONS, () => undefined);
    for (const query of ['bee', 'sun tea', 'hive sun']) expect(loaded?.search(query)).toEqual(index.search(query));
  });

  it('widens rows past 65,536 documents', () => {
    const index = new KeywordIndex(OPTIONS);
    for (let i = 0; i <= 0x10000; i++) index.upsert(`d${i}`, i % 1000 === 0 ? 'bee hive' : 'tea', {});
    const bytes = index.toSnapshot();
    expect([headerOf(bytes)['docBytes'], headerOf(bytes)['tfBytes']]).toEqual([4, 1]);
    expect(KeywordIndex.fromSnapshot(bytes, OPTIONS, () => undefined)?.search('bee', 100)).toEqual(index.search('bee', 100));
  });
});

function headerOf(bytes: Uint8Array): Record<string, unknown> {
  const view = new DataView(bytes.buffer, bytes.byteOffset);
  return JSON.parse(new TextDecoder().decode(bytes.subarray(12, 12 + view.getUint32(8, true)))) as Record<string, unknown>;
}

/** The same snapshot in version 1's layout: no widths in the header, every number a u32. */
function version1(bytes: Uint8Array): Uint8Array {
  const header = headerOf(bytes);
  const { docBytes, tfBytes, ...rest } = header as { docBytes: number; tfBytes: number; postings: number; ids: string[]; terms: string[] };
  const words = rest.ids.length + rest.terms.length + 1;
  const postings = rest.postings;
  const align = (n: number) => (n + 3) & ~3;
  const start = align(12 + new DataView(bytes.buffer, bytes.byteOffset).getUint32(8, true));
  const docsAt = start + 4 * words;
  const tfsAt = align(docsAt + docBytes * postings);
  const read = (width: number, at: number) =>
    width === 1
      ? new Uint8Array(bytes.buffer, at, postings)
      : width === 2
        ? new Uint16Array(bytes.buffer, at, postings)
        : new Uint32Array(bytes.buffer, at, postings);
  const text = new TextEncoder().encode(JSON.stringify(rest));
  const newStart = align(12 + text.length);
  const out = new Uint8Array(newStart + 4 * (words + 2 * postings));
  const view = new DataView(out.buffer);
  view.setUint32(0, 0x4b575343, true);
  view.setUint32(4, 1, true);
  view.setUint32(8, text.length, true);
  out.set(text, 12);
  const u32 = new Uint32Array(out.buffer, newStart);
  u32.set(new Uint32Array(bytes.buffer, start, words), 0);
  u32.set(read(docBytes, docsAt), words);
  u32.set(read(tfBytes, tfsAt), words + postings);
  return out;
}
