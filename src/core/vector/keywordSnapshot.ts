import * as z from 'zod';
import { Segments, type SnapshotBytes } from './segments.ts';

/** What a {@link KeywordIndex} snapshot was built with; a snapshot made with other settings is not used. */
export interface KeywordSettings {
  k1: number;
  b: number;
  /** Lower-cased, sorted. */
  stopWords: string[];
}

/** One term's postings: the rows of the documents holding it and how often each does. */
export interface Postings {
  /** Rows, as narrow as the number of documents allows. */
  docs: Uint16Array | Uint32Array;
  /** Term frequencies, as narrow as the largest allows. */
  tfs: Uint8Array | Uint16Array | Uint32Array;
}

/** Documents and postings as a loaded snapshot holds them: row numbers into `ids`, term numbers into {@link postings}. */
export interface PackedKeywords {
  ids: string[];
  lengths: Uint32Array;
  /** term → its number. */
  terms: Map<string, number>;
  /**
   * Term `t`'s postings, read from the snapshot's bytes the first time they are asked for and
   * kept: a load reads no posting, a query those of its words. Rows past the documents (a
   * damaged snapshot) are left out.
   */
  postings(t: number): Postings;
  totalLength: number;
}

/** What {@link encodeKeywordSnapshot} writes; `postings` emits a term's (row, term frequency) pairs, the same each time it is called. */
export interface KeywordSnapshotInput {
  settings: KeywordSettings;
  ids: readonly string[];
  lengths: readonly number[];
  terms: readonly string[];
  postings: (term: string, emit: (row: number, tf: number) => void) => void;
  totalLength: number;
}

/**
 * Format version. Version 2 stores rows and frequencies in the fewest bytes that hold them
 * (10k documents: 3 bytes a posting instead of 8, an 8 MB snapshot becomes 3 MB, and a restart
 * reads that much less); version 1 (four bytes each) is still read. Any other is ignored
 * (rebuilt), never misread.
 */
const VERSION = 2;
const MAGIC = 0x4b575343; // "CSWK" little-endian: CUGAr keyword snapshot
const FIXED = 12;

// The ids and terms are checked in one plain pass: an array schema of strings cost about 10 ms of
// the first query after a restart at 10k documents (code that runs once, so never optimised).
const strings = z.custom<string[]>((value) => Array.isArray(value) && value.every((item) => typeof item === 'string'), 'an array of strings');
const HeaderSchema = z.object({
  k1: z.number(),
  b: z.number(),
  stopWords: z.array(z.string()),
  ids: strings,
  terms: strings,
  postings: z.number().int().min(0),
  totalLength: z.number().int().min(0),
  /** Bytes per row and per frequency (version 2). */
  docBytes: z.union([z.literal(2), z.literal(4)]).optional(),
  tfBytes: z.union([z.literal(1), z.literal(2), z.literal(4)]).optional(),
});

type Width = 1 | 2 | 4;
const arrayOf = (width: Width, buffer: ArrayBufferLike, at: number, length: number) =>
  width === 1 ? new Uint8Array(buffer, at, length) : width === 2 ? new Uint16Array(buffer, at, length) : new Uint32Array(buffer, at, length);
const widthOf = (largest: number): Width => (largest <= 0xff ? 1 : largest <= 0xffff ? 2 : 4);

/**
 * The snapshot's bytes: magic, version and header length (three little-endian u32), a JSON
 * header (settings, ids, terms, counts, widths), padding to 4 bytes, then each document's length
 * and each term's postings offset (one more than terms) as u32, the postings' rows (u16 or u32)
 * and, after padding to 4 bytes, their frequencies (u8, u16 or u32).
 */
export function encodeKeywordSnapshot(input: KeywordSnapshotInput): Uint8Array {
  // Count first, so the postings are written straight into their place; terms without postings are left out.
  let largestTf = 0;
  const counts = input.terms.map((term) => {
    let n = 0;
    input.postings(term, (_, tf) => {
      n++;
      if (tf > largestTf) largestTf = tf;
    });
    return n;
  });
  const terms = input.terms.filter((_, t) => counts[t]! > 0);
  const total = counts.reduce((sum, n) => sum + n, 0);
  const docBytes = input.ids.length <= 0x10000 ? 2 : 4;
  const tfBytes = widthOf(largestTf);
  const header = new TextEncoder().encode(
    JSON.stringify({ ...input.settings, ids: input.ids, terms, postings: total, totalLength: input.totalLength, docBytes, tfBytes }),
  );
  const start = align(FIXED + header.length);
  const docsAt = start + 4 * (input.ids.length + terms.length + 1);
  const tfsAt = align(docsAt + docBytes * total);
  const bytes = new Uint8Array(tfsAt + tfBytes * total);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, MAGIC, true);
  view.setUint32(4, VERSION, true);
  view.setUint32(8, header.length, true);
  bytes.set(header, FIXED);
  const words = new Uint32Array(bytes.buffer, start, input.ids.length + terms.length + 1);
  words.set(input.lengths, 0);
  const offsets = input.ids.length;
  const docs = arrayOf(docBytes, bytes.buffer, docsAt, total);
  const tfs = arrayOf(tfBytes, bytes.buffer, tfsAt, total);
  let at = 0;
  terms.forEach((term, t) => {
    words[offsets + t] = at;
    input.postings(term, (row, tf) => {
      docs[at] = row;
      tfs[at] = tf;
      at++;
    });
  });
  words[offsets + terms.length] = at;
  return bytes;
}

/**
 * Read snapshot bytes (in one buffer or in the parts storage read them in) made with `settings`;
 * undefined for anything else: another version or settings, a truncated or inconsistent
 * snapshot (an offset out of range, lengths that do not add up), or not a snapshot. Postings are
 * read term by term when a search asks for them ({@link PackedKeywords.postings}).
 */
export function decodeKeywordSnapshot(input: SnapshotBytes, settings: KeywordSettings): PackedKeywords | undefined {
  const bytes = new Segments(input);
  if (bytes.length < FIXED) return undefined;
  const view = bytes.view(0, FIXED);
  const version = view.getUint32(4, true);
  if (view.getUint32(0, true) !== MAGIC || (version !== 1 && version !== VERSION)) return undefined;
  const headerLength = view.getUint32(8, true);
  if (FIXED + headerLength > bytes.length) return undefined;
  let header: z.infer<typeof HeaderSchema>;
  try {
    const parsed = HeaderSchema.safeParse(JSON.parse(new TextDecoder().decode(bytes.range(FIXED, FIXED + headerLength))));
    if (!parsed.success) return undefined;
    header = parsed.data;
  } catch {
    return undefined;
  }
  if (header.k1 !== settings.k1 || header.b !== settings.b || header.stopWords.join('\n') !== settings.stopWords.join('\n')) return undefined;
  // Version 1 wrote every number in four bytes, the rows right after the offsets and the frequencies right after them.
  const docBytes = version === 1 ? 4 : header.docBytes;
  const tfBytes = version === 1 ? 4 : header.tfBytes;
  if (docBytes === undefined || tfBytes === undefined) return undefined;
  const start = align(FIXED + headerLength);
  const docCount = header.ids.length;
  const termCount = header.terms.length;
  const docsAt = start + 4 * (docCount + termCount + 1);
  const tfsAt = version === 1 ? docsAt + 4 * header.postings : align(docsAt + docBytes * header.postings);
  if (bytes.length !== tfsAt + tfBytes * header.postings) return undefined;
  const lengths = bytes.uint32s(start, docCount);
  const offsets = bytes.uint32s(start + 4 * docCount, termCount + 1);
  if (offsets[0] !== 0 || offsets[termCount] !== header.postings) return undefined;
  for (let t = 0; t < termCount; t++) if (offsets[t]! > offsets[t + 1]!) return undefined;
  let sum = 0;
  for (let d = 0; d < docCount; d++) sum += lengths[d]!;
  if (sum !== header.totalLength) return undefined;
  const docsOf = (at: number, count: number) => (docBytes === 2 ? bytes.words(Uint16Array, at, count) : bytes.words(Uint32Array, at, count));
  const tfsOf = (at: number, count: number) =>
    tfBytes === 1 ? bytes.words(Uint8Array, at, count) : tfBytes === 2 ? bytes.words(Uint16Array, at, count) : bytes.words(Uint32Array, at, count);
  const read: Array<Postings | undefined> = new Array(termCount);
  return {
    ids: header.ids,
    lengths,
    terms: new Map(header.terms.map((term, t) => [term, t])),
    totalLength: header.totalLength,
    postings(t) {
      let postings = read[t];
      if (!postings) {
        const from = offsets[t]!;
        const count = offsets[t + 1]! - from;
        postings = inRange({ docs: docsOf(docsAt + docBytes * from, count), tfs: tfsOf(tfsAt + tfBytes * from, count) }, docCount);
        read[t] = postings;
      }
      return postings;
    },
  };
}

// `postings` without the rows past `docCount`, which only a damaged snapshot holds.
function inRange(postings: Postings, docCount: number): Postings {
  const { docs, tfs } = postings;
  let kept = 0;
  for (let p = 0; p < docs.length; p++) if (docs[p]! < docCount) kept++;
  if (kept === docs.length) return postings;
  const keep = (_: number, p: number) => docs[p]! < docCount;
  return { docs: docs.filter(keep), tfs: tfs.filter(keep) };
}

function align(n: number): number {
  return (n + 3) & ~3;
}
