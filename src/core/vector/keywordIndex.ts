import * as z from 'zod';
import { tokenize } from '../embed/tokenize.ts';
import { parseOrThrow } from '../schema/validate.ts';
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

/**
 * Whole-word keyword search ranked by BM25: the local fallback when vectors are not enough.
 * Words are the same Unicode-aware, lower-cased tokens the embedder uses, so "cat" never
 * matches "category". Ranking is deterministic: score descending, then id ascending.
 */
export class KeywordIndex {
  readonly #k1: number;
  readonly #b: number;
  readonly #stop: Set<string>;
  /** term → (doc id → term frequency) */
  #postings = new Map<string, Map<string, number>>();
  #lengths = new Map<string, number>();
  #terms = new Map<string, string[]>();
  #metadata = new Map<string, Record<string, unknown>>();
  #totalLength = 0;

  constructor(options: KeywordIndexOptions = {}) {
    const parsed = parseOrThrow(KeywordIndexOptionsSchema, options, 'keyword index options');
    this.#k1 = parsed.k1;
    this.#b = parsed.b;
    this.#stop = new Set(parsed.stopWords.map((w) => w.toLowerCase()));
  }

  get size(): number {
    return this.#lengths.size;
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
    const scores = new Map<string, number>();
    const matched = new Map<string, string[]>();
    for (const term of terms) {
      const posting = this.#postings.get(term);
      if (!posting) continue;
      const df = posting.size;
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      for (const [id, tf] of posting) {
        const length = this.#lengths.get(id) ?? 0;
        const norm = tf + this.#k1 * (1 - this.#b + (this.#b * length) / averageLength);
        scores.set(id, (scores.get(id) ?? 0) + (idf * tf * (this.#k1 + 1)) / norm);
        const list = matched.get(id);
        if (list) list.push(term);
        else matched.set(id, [term]);
      }
    }
    const top = new TopK(Math.min(k, scores.size || 1));
    for (const [id, score] of scores) top.push(score, id, 0);
    return top.sorted().map(({ id, score }) => ({ id, score, metadata: { ...this.#metadata.get(id)! }, matched: matched.get(id) ?? [] }));
  }
}
