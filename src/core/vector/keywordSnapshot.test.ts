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
      fc.property(fc.array(op, { maxLength: 30 }), fc.array(op, { maxLength: 30 }), (before, after) => {
        const metadata = new Map<string, Record<string, unknown>>();
        const original = new KeywordIndex(OPTIONS);
        apply(original, before, metadata);
        const loaded = KeywordIndex.fromSnapshot(original.toSnapshot(), OPTIONS, (id) => metadata.get(id));
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
    new DataView(badRow.buffer).setUint32(badRow.length - 20, 99, true); // the last posting's row (four postings, then four frequencies)
    expect(KeywordIndex.fromSnapshot(badRow, OPTIONS, none)).toBeUndefined();
    expect(KeywordIndex.fromSnapshot(new Uint8Array(3), OPTIONS, none)).toBeUndefined();
    // Bytes at an odd offset of a shared buffer (as a database may hand them over) still load.
    const shifted = new Uint8Array(bytes.length + 1);
    shifted.set(bytes, 1);
    expect(KeywordIndex.fromSnapshot(shifted.subarray(1), OPTIONS, none)?.search('bee')).toEqual(index.search('bee'));
  });
});
