import { z } from 'zod';
import { parseOrThrow } from '../schema/validate.ts';
import { FNV_OFFSET, FNV_PRIME, fmix32, hashPair, hashString } from './hash32.ts';
import { wordCharLength } from './tokenize.ts';

/** Options of {@link HashingEmbedder}. */
export const HashingEmbedderOptionsSchema = z.object({
  /** Length of every vector. Default 256. */
  dimension: z.number().int().min(1).max(1 << 20).default(256),
  /** Add ordered word pairs as features. Default `true`. */
  bigrams: z.boolean().default(true),
  /** Seed mixed into every hash: different seeds give independent feature spaces. Default 0. */
  seed: z.number().int().min(0).max(0xffffffff).default(0),
  /** Words left out entirely (compared after lower-casing). Default none. */
  stopWords: z.array(z.string()).default([]),
});
export type HashingEmbedderOptions = z.input<typeof HashingEmbedderOptionsSchema>;

const LOG_TABLE_SIZE = 256;
/** 1 + ln(n) for small n, so the hot loop does not call Math.log. */
const SUBLINEAR_TF = Float64Array.from({ length: LOG_TABLE_SIZE }, (_, n) => (n === 0 ? 0 : 1 + Math.log(n)));

/**
 * A deterministic, offline text embedder: signed feature hashing of lower-cased Unicode words
 * (and optionally word bigrams), sublinear term frequency (1 + ln tf), L2-normalised.
 *
 * The same text gives bit-identical vectors in every engine: hashing uses 32-bit integer
 * arithmetic only, and features are summed in first-occurrence order. Hand-written because
 * it is the product's own hot path; no library offers a portable, allocation-free version.
 *
 * @example
 * const embedder = new HashingEmbedder({ dimension: 256 });
 * const v = embedder.embed('add two numbers'); // Float32Array(256), ‖v‖ = 1
 */
export class HashingEmbedder {
  readonly dimension: number;
  readonly bigrams: boolean;
  readonly seed: number;
  readonly #stopHashes: Set<number>;
  // Scratch space reused across calls: an open-addressing table of term hash → count,
  // cleared in O(1) by bumping a generation stamp.
  #keys = new Uint32Array(1024);
  #counts = new Uint32Array(1024);
  #stamps = new Uint32Array(1024);
  #order = new Uint32Array(512);
  #generation = 0;
  #unique = 0;
  #accumulator: Float64Array;

  constructor(options: HashingEmbedderOptions = {}) {
    const parsed = parseOrThrow(HashingEmbedderOptionsSchema, options, 'embedder options', 'invalid_embedder_options');
    this.dimension = parsed.dimension;
    this.bigrams = parsed.bigrams;
    this.seed = parsed.seed;
    this.#stopHashes = new Set(parsed.stopWords.map((word) => hashString(word.toLowerCase(), this.seed)));
    this.#accumulator = new Float64Array(this.dimension);
  }

  /** Embed `text` into a new unit-length vector (all zeros when the text has no words). */
  embed(text: string): Float32Array {
    const out = new Float32Array(this.dimension);
    this.embedInto(text, out, 0);
    return out;
  }

  /** Embed several texts; same as mapping {@link embed}. */
  embedMany(texts: readonly string[]): Float32Array[] {
    return texts.map((text) => this.embed(text));
  }

  /**
   * Embed `text` straight into `target[offset … offset + dimension)`, without allocating.
   * Returns the number of distinct features written (0 for a text without words).
   */
  embedInto(text: string, target: Float32Array, offset: number): number {
    if (typeof text !== 'string') throw new TypeError('text must be a string');
    if (offset < 0 || offset + this.dimension > target.length) throw new RangeError('target is too small for one vector at offset');
    this.#collectFeatures(text);
    const acc = this.#accumulator;
    acc.fill(0);
    const dim = this.dimension;
    for (let k = 0; k < this.#unique; k++) {
      const slot = this.#order[k]!;
      const hash = this.#keys[slot]!;
      const count = this.#counts[slot]!;
      const weight = count < LOG_TABLE_SIZE ? SUBLINEAR_TF[count]! : 1 + Math.log(count);
      // The index comes from the low bits and the sign from the top bit, so they are independent.
      acc[hash % dim]! += hash & 0x80000000 ? -weight : weight;
    }
    let norm = 0;
    for (let i = 0; i < dim; i++) norm += acc[i]! * acc[i]!;
    if (norm === 0) {
      target.fill(0, offset, offset + dim);
      return 0;
    }
    const scale = 1 / Math.sqrt(norm);
    for (let i = 0; i < dim; i++) target[offset + i] = acc[i]! * scale;
    return this.#unique;
  }

  #collectFeatures(text: string): void {
    this.#generation = (this.#generation + 1) >>> 0;
    if (this.#generation === 0) {
      this.#stamps.fill(0);
      this.#generation = 1;
    }
    this.#unique = 0;
    const lower = text.toLowerCase();
    const seeded = (FNV_OFFSET ^ this.seed) >>> 0;
    let hash = seeded;
    let inWord = false;
    let previous = -1;
    const length = lower.length;
    for (let i = 0; i <= length; ) {
      let span = 0;
      if (i < length) {
        const c = lower.charCodeAt(i);
        // ASCII fast path; everything else asks the Unicode-aware tokenizer.
        span = c < 0x80 ? ((c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) ? 1 : 0) : wordCharLength(lower, i);
      }
      if (span > 0) {
        for (let j = 0; j < span; j++) {
          hash ^= lower.charCodeAt(i + j);
          hash = Math.imul(hash, FNV_PRIME);
        }
        inWord = true;
        i += span;
        continue;
      }
      if (inWord) {
        const word = fmix32(hash);
        if (!this.#stopHashes.has(word)) {
          this.#count(word);
          if (this.bigrams && previous >= 0) this.#count(hashPair(previous, word));
          previous = word;
        }
        hash = seeded;
        inWord = false;
      }
      i += 1;
    }
  }

  #count(hash: number): void {
    if ((this.#unique + 1) * 2 > this.#keys.length) this.#grow();
    const mask = this.#keys.length - 1;
    let slot = hash & mask;
    for (;;) {
      if (this.#stamps[slot] !== this.#generation) {
        this.#stamps[slot] = this.#generation;
        this.#keys[slot] = hash;
        this.#counts[slot] = 1;
        this.#order[this.#unique++] = slot;
        return;
      }
      if (this.#keys[slot] === hash) {
        this.#counts[slot]!++;
        return;
      }
      slot = (slot + 1) & mask;
    }
  }

  #grow(): void {
    const oldKeys = this.#keys;
    const oldCounts = this.#counts;
    const oldOrder = this.#order.subarray(0, this.#unique);
    const size = oldKeys.length * 2;
    this.#keys = new Uint32Array(size);
    this.#counts = new Uint32Array(size);
    this.#stamps = new Uint32Array(size);
    const order = new Uint32Array(size / 2);
    const mask = size - 1;
    // Re-insert in first-occurrence order so the summation order (and so the bits) never depends on table size.
    for (let k = 0; k < oldOrder.length; k++) {
      const oldSlot = oldOrder[k]!;
      const hash = oldKeys[oldSlot]!;
      let slot = hash & mask;
      while (this.#stamps[slot] === this.#generation) slot = (slot + 1) & mask;
      this.#stamps[slot] = this.#generation;
      this.#keys[slot] = hash;
      this.#counts[slot] = oldCounts[oldSlot]!;
      order[k] = slot;
    }
    this.#order = order;
  }
}

/** Cosine similarity of two vectors of equal length; 0 when either is all zeros. */
export function cosineSimilarity(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) throw new RangeError(`vectors differ in length: ${a.length} vs ${b.length}`);
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}
