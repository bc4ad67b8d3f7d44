// Keyword snapshots as versions 1 and 2 wrote them, made from a current one, so tests can check
// that they are still read.
import { decodeKeywordSnapshot, type KeywordSettings } from '../../src/core/vector/keywordSnapshot.ts';

const align = (n: number) => (n + 3) & ~3;
const widthOf = (largest: number) => (largest <= 0xff ? 1 : largest <= 0xffff ? 2 : 4);

/**
 * `bytes` (the current version, made with `settings`) written again as version 2 (rows and
 * frequencies as narrow as they fit, widths in the header) or version 1 (every number a u32),
 * with the ids in reverse order: those versions kept ids in any order.
 */
export function legacyKeywordSnapshot(bytes: Uint8Array, settings: KeywordSettings, version: 1 | 2): Uint8Array {
  const packed = decodeKeywordSnapshot(bytes, settings)!;
  const n = packed.ids.length;
  const ids = [...packed.ids].reverse();
  const lengths = Array.from({ length: n }, (_, row) => packed.lengths[n - 1 - row]!);
  const terms = [...packed.terms.keys()];
  const docs: number[] = [];
  const tfs: number[] = [];
  const offsets = [0];
  terms.forEach((_, t) => {
    const postings = packed.postings(t);
    postings.docs.forEach((row, i) => {
      docs.push(n - 1 - row);
      tfs.push(postings.tfs[i]!);
    });
    offsets.push(docs.length);
  });
  const docBytes = version === 1 || n > 0x10000 ? 4 : 2;
  const tfBytes = version === 1 ? 4 : widthOf(Math.max(0, ...tfs));
  const widths = version === 2 ? { docBytes, tfBytes } : {};
  const header = new TextEncoder().encode(JSON.stringify({ ...settings, ids, terms, postings: docs.length, totalLength: packed.totalLength, ...widths }));
  const start = align(12 + header.length);
  const docsAt = start + 4 * (n + terms.length + 1);
  const tfsAt = version === 1 ? docsAt + 4 * docs.length : align(docsAt + docBytes * docs.length);
  const out = new Uint8Array(tfsAt + tfBytes * docs.length);
  const view = new DataView(out.buffer);
  [0x4b575343, version, header.length].forEach((value, i) => view.setUint32(i * 4, value, true));
  out.set(header, 12);
  new Uint32Array(out.buffer, start, n + terms.length + 1).set([...lengths, ...offsets]);
  const write = (width: number, at: number, values: number[]) =>
    (width === 1
      ? new Uint8Array(out.buffer, at, values.length)
      : width === 2
        ? new Uint16Array(out.buffer, at, values.length)
        : new Uint32Array(out.buffer, at, values.length)
    ).set(values);
  write(docBytes, docsAt, docs);
  write(tfBytes, tfsAt, tfs);
  return out;
}
