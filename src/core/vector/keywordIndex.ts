import * as z from 'zod';
import { tokenize } from '../embed/tokenize.ts';
import { parseOrThrow } from '../schema/validate.ts';
import { decodeKeywordSnapshot, encodeKeywordSnapshot, type PackedKeywords, type Postings } from './keywordSnapshot.ts';
import type { SnapshotBytes } from './segments.ts';
import { TopK } from './topK.ts';
import { RecordIdSchema, type VectorHit } from './vectorBackend.ts';

/** Options of {@link KeywordIndex}. */
export const KeywordIndexOptionsSchema = z.object({
  /** BM25 term-frequency saturation. Default 1.2. */
  k1: z.number().min(0).max(10).default(1.2),
  /** BM25 length normalisation, 0..1. Default 0.75. */
  b: z.number().min(0).max(1).default(0.75),
  /** Words ignored in documents and queries. Default none. */
  stopWords: z.array(z.string()).default([]),
});
export type KeywordIndexOptions = z.input<typeof KeywordIndexOptionsSchema>;

/** A keyword hit: the BM25 score plus the query words the document contains. */
export interface KeywordHit extends VectorHit {
  matched: string[];
}

const NO_POSTINGS: Postings = { docs: new Uint16Array(0), tfs: new Uint8Array(0) };

/** Where the metadata of documents loaded from a snapshot comes from (snapshots hold postings, not metadata). */
export type KeywordMetadataSource = (id: string) => Record<string, unknown> | undefined;

/**
 * Whole-word keyword search ranked by BM25: the local fallback when vectors are not enough.
 * Words are the same Unicode-aware, lower-cased tokens the embedder uses, so "cat" never
 * matches "category". Ranking is deterministic: score descending, then id ascending.
 *
 * An index can be saved as a compact snapshot ({@link toSnapshot}) and loaded back without
 * tokenising anything ({@link KeywordIndex.fromSnapshot}): the loaded documents stay in packed
 * postings, later changes go to maps beside them (a replaced or deleted packed document is
 * marked dead), and searches read both, so they rank exactly as an index built afresh would.
 */
export class KeywordIndex {
  readonly #k1: number;
  readonly #b: number;
  readonly #stop: Set<string>;
  /** term → (doc id → term frequency), for documents added since the snapshot (or all, without one). */
  #postings = new Map<string, Map<string, number>>();
  #lengths = new Map<string, number>();
  #terms = new Map<string, string[]>();
  #metadata = new Map<string, Record<string, unknown>>();
  #totalLength = 0;
  /** Documents loaded from a snapshot (their rows found through it), and which of them were deleted or replaced since. */
  #packed: PackedKeywords | undefined;
  #dead = new Uint8Array(0);
  #deadCount = 0;
  #packedMetadata: KeywordMetadataSource = () => undefined;

  constructor(options: KeywordIndexOptions = {}) {
    const parsed = parseOrThrow(KeywordIndexOptionsSchema, options, 'keyword index options');
    this.#k1 = parsed.k1;
    this.#b = parsed.b;
    this.#stop = new Set(parsed.stopWords.map((w) => w.toLowerCase()));
  }

  /**
   * An index loaded from {@link toSnapshot}'s bytes, its documents' metadata read through
   * `metadata` (without it, hits of loaded documents carry `{}` and {@link metadata} knows none:
   * for callers that keep the metadata themselves); undefined when the bytes are not a snapshot
   * of this version made with the same options (the caller then builds the index from the
   * documents again).
   */
  static fromSnapshot(bytes: SnapshotBytes, options: KeywordIndexOptions, metadata: KeywordMetadataSource = () => undefined): KeywordIndex | undefined {
    const index = new KeywordIndex(options);
    const packed = decodeKeywordSnapshot(bytes, index.#settings());
    if (!packed) return undefined;
    index.#packed = packed;
    index.#dead = new Uint8Array(packed.ids.length);
    index.#totalLength = packed.totalLength;
    index.#packedMetadata = metadata;
    return index;
  }

  /** The index as snapshot bytes: its options, documents, lengths and postings (no metadata). */
  toSnapshot(): Uint8Array {
    const ids: string[] = [];
    const lengths: number[] = [];
    const packed = this.#packed;
    // Live packed documents keep their order; each gets its new row (or -1 when dead).
    const rows = new Int32Array(packed?.ids.length ?? 0).fill(-1);
    packed?.ids.forEach((id, row) => {
      if (this.#dead[row]) return;
      rows[row] = ids.length;
      ids.push(id);
      lengths.push(packed.lengths[row]!);
    });
    const rowOf = new Map<string, number>();
    for (const [id, length] of this.#lengths) {
      rowOf.set(id, ids.length);
      ids.push(id);
      lengths.push(length);
    }
    const terms = new Set([...(packed?.terms.keys() ?? []), ...this.#postings.keys()]);
    return encodeKeywordSnapshot({
      settings: this.#settings(),
      ids,
      lengths,
      totalLength: this.#totalLength,
      terms: [...terms],
      postings: (term, emit) => {
        const t = packed?.terms.get(term);
        const { docs, tfs } = t === undefined ? NO_POSTINGS : packed!.postings(t);
        for (let p = 0; p < docs.length; p++) if (rows[docs[p]!]! >= 0) emit(rows[docs[p]!]!, tfs[p]!);
        const posting = this.#postings.get(term);
        if (posting) for (const [id, tf] of posting) emit(rowOf.get(id)!, tf);
      },
    });
  }

  get size(): number {
    return this.#lengths.size + (this.#packed ? this.#packed.ids.length - this.#deadCount : 0);
  }

  /** Whether the index holds document `id`. */
  has(id: string): boolean {
    if (this.#lengths.has(id)) return true;
    const row = this.#packed?.row(id);
    return row !== undefined && !this.#dead[row];
  }

  /** A copy of document `id`'s metadata; undefined when the index holds no such document or (loaded from a snapshot without a source) does not know it. */
  metadata(id: string): Record<string, unknown> | undefined {
    const known = this.#metadataOf(id);
    return known && { ...known };
  }

  /** The words of `text` as this index sees them (lower-cased, stop words removed). */
  words(text: string): string[] {
    return tokenize(text).filter((w) => !this.#stop.has(w));
  }

  /** Add or replace a document. */
  upsert(id: string, text: string, metadata: Record<string, unknown> = {}): void {
    parseOrThrow(RecordIdSchema, id, 'document id', 'invalid_record_id');
    if (typeof text !== 'string') throw new TypeError('text must be a string');
    this.delete([id]);
    const words = this.words(text);
    const counts = new Map<string, number>();
    for (const word of words) counts.set(word, (counts.get(word) ?? 0) + 1);
    for (const [word, count] of counts) {
      let posting = this.#postings.get(word);
      if (!posting) this.#postings.set(word, (posting = new Map()));
      posting.set(id, count);
    }
    this.#terms.set(id, [...counts.keys()]);
    this.#lengths.set(id, words.length);
    this.#metadata.set(id, { ...metadata });
    this.#totalLength += words.length;
  }

  /** Remove documents; returns how many existed. */
  delete(ids: readonly string[]): number {
    let removed = 0;
    for (const id of ids) {
      const row = this.#packed?.row(id);
      if (row !== undefined && !this.#dead[row]) {
        this.#dead[row] = 1;
        this.#deadCount++;
        this.#totalLength -= this.#packed!.lengths[row]!;
        removed++;
        continue;
      }
      const terms = this.#terms.get(id);
      if (!terms) continue;
      for (const term of terms) {
        const posting = this.#postings.get(term);
        posting?.delete(id);
        if (posting?.size === 0) this.#postings.delete(term);
      }
      this.#totalLength -= this.#lengths.get(id) ?? 0;
      this.#terms.delete(id);
      this.#lengths.delete(id);
      this.#metadata.delete(id);
      removed++;
    }
    return removed;
  }

  /** The `k` best documents for `query` by BM25; documents sharing no whole word are never returned. */
  search(query: string, k = 10): KeywordHit[] {
    if (!Number.isInteger(k) || k < 1) throw new RangeError('k must be a positive integer');
    const terms = [...new Set(this.words(query))];
    const n = this.size;
    if (n === 0 || terms.length === 0) return [];
    const averageLength = this.#totalLength / n || 1;
    const k1 = this.#k1;
    const b = this.#b;
    const weight = (idf: number, tf: number, length: number) => (idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * length) / averageLength));
    // Documents added since the snapshot (or all, without one) score into maps; packed documents
    // into arrays by row, their matched terms as bits (terms past the 32nd in a map).
    const scores = new Map<string, number>();
    const matched = new Map<string, string[]>();
    const packed = this.#packed;
    const dead = this.#dead;
    const rows = packed?.ids.length ?? 0;
    const packedScores = new Float64Array(rows);
    const packedBits = new Uint32Array(rows);
    const packedExtra = new Map<number, string[]>();
    const seen = new Uint8Array(rows);
    const touched: number[] = [];
    terms.forEach((term, index) => {
      const posting = this.#postings.get(term);
      const t = packed?.terms.get(term);
      const { docs, tfs } = t === undefined ? NO_POSTINGS : packed!.postings(t);
      let df = posting?.size ?? 0;
      for (let p = 0; p < docs.length; p++) if (!dead[docs[p]!]) df++;
      if (df === 0) return;
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      for (let p = 0; p < docs.length; p++) {
        const row = docs[p]!;
        if (dead[row]) continue;
        if (!seen[row]) {
          seen[row] = 1;
          touched.push(row);
        }
        packedScores[row]! += weight(idf, tfs[p]!, packed!.lengths[row]!);
        if (index < 32) packedBits[row]! |= 1 << index;
        else packedExtra.set(row, [...(packedExtra.get(row) ?? []), term]);
      }
      if (!posting) return;
      for (const [id, tf] of posting) {
        scores.set(id, (scores.get(id) ?? 0) + weight(idf, tf, this.#lengths.get(id) ?? 0));
        const list = matched.get(id);
        if (list) list.push(term);
        else matched.set(id, [term]);
      }
    });
    const top = new TopK(Math.min(k, scores.size + touched.length || 1));
    for (const row of touched) top.push(packedScores[row]!, packed!.ids[row]!, row);
    for (const [id, s] of scores) top.push(s, id, -1);
    return top.sorted().map(({ id, score, payload }) => ({
      id,
      score,
      metadata: { ...(this.#metadataOf(id) ?? {}) },
      matched:
        payload < 0 ? (matched.get(id) ?? []) : [...terms.filter((_, i) => i < 32 && packedBits[payload]! & (1 << i)), ...(packedExtra.get(payload) ?? [])],
    }));
  }

  // A document's metadata as held (its own, or its source's for a document loaded from a snapshot); undefined when unknown.
  #metadataOf(id: string): Record<string, unknown> | undefined {
    return this.#metadata.get(id) ?? (this.has(id) ? this.#packedMetadata(id) : undefined);
  }

  #settings(): { k1: number; b: number; stopWords: string[] } {
    return { k1: this.#k1, b: this.#b, stopWords: [...this.#stop].sort() };
  }
}
