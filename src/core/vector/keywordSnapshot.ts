import * as z from 'zod';
import { VarintWriter, compareIds, readPostings, rowOfSorted, writePostings, type Postings } from './keywordPostings.ts';
import { Segments, type SnapshotBytes } from './segments.ts';

export type { Postings } from './keywordPostings.ts';

/** What a {@link KeywordIndex} snapshot was built with; a snapshot made with other settings is not used. */
export interface KeywordSettings {
  k1: number;
  b: number;
  /** Lower-cased, sorted. */
  stopWords: string[];
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
  /** The row of document `id`; undefined when the snapshot holds no such document. */
  row(id: string): number | undefined;
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
 * Format version. Version 2 stored rows and frequencies in the fewest bytes that hold them
 * (10k documents: 3 bytes a posting instead of version 1's 8). Version 3 keeps the ids sorted, so
 * a document's row is found by binary search and a load builds no map of them (at 10k documents
 * that map was a third of decoding the snapshot), and writes postings as varints
 * (`keywordPostings.ts`): 3.1 → 2.1 MB. Versions 1 and 2 are still read; any other is ignored
 * (rebuilt), never misread.
 */
const VERSION = 3;
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
  /** Bytes of varint postings (version 3). */
  postingBytes: z.number().int().min(0).optional(),
});

/**
 * The snapshot's bytes: magic, version and header length (three little-endian u32), a JSON
 * header (settings, ids sorted, terms, counts), padding to 4 bytes, then each document's length
 * and each term's byte offset into the postings (one more than terms) as u32, and the postings.
 */
export function encodeKeywordSnapshot(input: KeywordSnapshotInput): Uint8Array {
  // Row r of the snapshot is the r-th id in sorted order.
  const order = Array.from(input.ids, (_, i) => i).sort((a, b) => compareIds(input.ids[a]!, input.ids[b]!));
  const rowOf = new Int32Array(order.length);
  order.forEach((old, row) => (rowOf[old] = row));
  const writer = new VarintWriter();
  const tfByRow = new Uint32Array(order.length);
  const terms: string[] = [];
  const offsets: number[] = [];
  let total = 0;
  for (const term of input.terms) {
    const rows: number[] = [];
    input.postings(term, (row, tf) => {
      rows.push(rowOf[row]!);
      tfByRow[rowOf[row]!] = tf;
    });
    // Terms without postings are left out.
    if (!rows.length) continue;
    terms.push(term);
    offsets.push(writer.length);
    writePostings(writer, Int32Array.from(rows), tfByRow);
    total += rows.length;
  }
  offsets.push(writer.length);
  const postings = writer.bytes();
  const ids = order.map((i) => input.ids[i]!);
  const header = new TextEncoder().encode(
    JSON.stringify({ ...input.settings, ids, terms, postings: total, postingBytes: postings.length, totalLength: input.totalLength }),
  );
  const start = align(FIXED + header.length);
  const postingsAt = start + 4 * (ids.length + terms.length + 1);
  const bytes = new Uint8Array(postingsAt + postings.length);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, MAGIC, true);
  view.setUint32(4, VERSION, true);
  view.setUint32(8, header.length, true);
  bytes.set(header, FIXED);
  const words = new Uint32Array(bytes.buffer, start, ids.length + terms.length + 1);
  words.set(
    order.map((i) => input.lengths[i]!),
    0,
  );
  words.set(offsets, ids.length);
  bytes.set(postings, postingsAt);
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
  if (view.getUint32(0, true) !== MAGIC || version < 1 || version > VERSION) return undefined;
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
  const start = align(FIXED + headerLength);
  const docCount = header.ids.length;
  const termCount = header.terms.length;
  const postingsAt = start + 4 * (docCount + termCount + 1);
  const layout = version === 3 ? varintLayout(bytes, header, postingsAt) : fixedLayout(bytes, header, version, postingsAt);
  if (!layout) return undefined;
  const lengths = bytes.uint32s(start, docCount);
  const offsets = bytes.uint32s(start + 4 * docCount, termCount + 1);
  if (offsets[0] !== 0 || offsets[termCount] !== layout.end) return undefined;
  for (let t = 0; t < termCount; t++) if (offsets[t]! > offsets[t + 1]!) return undefined;
  let sum = 0;
  for (let d = 0; d < docCount; d++) sum += lengths[d]!;
  if (sum !== header.totalLength) return undefined;
  const read: Array<Postings | undefined> = new Array(termCount);
  return {
    ids: header.ids,
    lengths,
    terms: new Map(header.terms.map((term, t) => [term, t])),
    totalLength: header.totalLength,
    postings: (t) => (read[t] ??= layout.postings(offsets[t]!, offsets[t + 1]!)),
    row: layout.row,
  };
}

/** Where a version's postings end (as `offsets` count them), how a term's are read, and how a document's row is found. */
interface Layout {
  end: number;
  postings(from: number, to: number): Postings;
  row(id: string): number | undefined;
}

// Version 3: ids sorted (checked here, which also finds repeated ids), varint postings counted in bytes.
function varintLayout(bytes: Segments, header: z.infer<typeof HeaderSchema>, postingsAt: number): Layout | undefined {
  const { ids, postingBytes } = header;
  if (postingBytes === undefined || bytes.length !== postingsAt + postingBytes) return undefined;
  for (let i = 1; i < ids.length; i++) if (!(ids[i - 1]! < ids[i]!)) return undefined;
  return {
    end: postingBytes,
    postings: (from, to) => readPostings(bytes.range(postingsAt + from, postingsAt + to), ids.length),
    row: (id) => rowOfSorted(ids, id),
  };
}

// Versions 1 and 2: rows and frequencies as fixed-width numbers counted in postings, ids in any order.
function fixedLayout(bytes: Segments, header: z.infer<typeof HeaderSchema>, version: number, docsAt: number): Layout | undefined {
  // Version 1 wrote every number in four bytes, the rows right after the offsets and the frequencies right after them.
  const docBytes = version === 1 ? 4 : header.docBytes;
  const tfBytes = version === 1 ? 4 : header.tfBytes;
  if (docBytes === undefined || tfBytes === undefined) return undefined;
  const tfsAt = version === 1 ? docsAt + 4 * header.postings : align(docsAt + docBytes * header.postings);
  if (bytes.length !== tfsAt + tfBytes * header.postings) return undefined;
  const rows = new Map(header.ids.map((id, row) => [id, row]));
  if (rows.size !== header.ids.length) return undefined;
  const docsOf = (at: number, count: number) => (docBytes === 2 ? bytes.words(Uint16Array, at, count) : bytes.words(Uint32Array, at, count));
  const tfsOf = (at: number, count: number) =>
    tfBytes === 1 ? bytes.words(Uint8Array, at, count) : tfBytes === 2 ? bytes.words(Uint16Array, at, count) : bytes.words(Uint32Array, at, count);
  return {
    end: header.postings,
    postings: (from, to) => inRange({ docs: docsOf(docsAt + docBytes * from, to - from), tfs: tfsOf(tfsAt + tfBytes * from, to - from) }, header.ids.length),
    row: (id) => rows.get(id),
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
