import * as z from 'zod';
import { parseOrThrow } from '../schema/validate.ts';
import { FNV_OFFSET, FNV_PRIME, fmix32, hashPair, hashString } from './hash32.ts';
import { wordCharLength } from './tokenize.ts';

/** Options of {@link HashingEmbedder}. */
export const HashingEmbedderOptionsSchema = z.object({
  /** Length of every vector. Default 256. */
  dimension: z
    .number()
    .int()
    .min(1)
    .max(1 << 20)
    .default(256),
  /** Add ordered word pairs as features. Default `true`. */
  bigrams: z.boolean().default(true),
  /** Seed mixed into every hash: different seeds give independent feature spaces. Default 0. */
  seed: z.number().int().min(0).max(0xffffffff).default(0),
  /** Words left out entirely (compared after lower-casing). Default none. */
  stopWords: z.array(z.string()).default([]),
});
export type HashingEmbedderOptions = z.input<typeof HashingEmbedderOptionsSchema>;

const LOG_TABLE_SIZE = 256;
/** Int32 cells per slot of the feature table. */
const SLOT = 4;
/** ln n − ln(n − 1): what the nth occurrence of a term adds to its weight 1 + ln n, precomputed for small n. */
const TF_STEP = Float64Array.from({ length: LOG_TABLE_SIZE }, (_, n) => (n < 2 ? 1 : Math.log(n) - Math.log(n - 1)));
/** Each ASCII byte as the lower-case character it contributes to a word, or 0 for a separator. */
const ASCII_WORD = Uint8Array.from({ length: 256 }, (_, c) =>
  (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) ? c : c >= 0x41 && c <= 0x5a ? c | 0x20 : 0,
);
const ENCODER = new TextEncoder();

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
  // Scratch space reused across calls: an open-addressing table of term hash → count, cleared in
  // O(1) by bumping a generation stamp, and the accumulator (see `Counting`). Interleaved slots
  // [key, generation stamp, count, unused]: one probe touches one cache line.
  readonly #counting: Counting;
  /** The text's UTF-8 bytes, reused across calls; one byte longer than the longest text seen. */
  #bytes = new Uint8Array(4096);
  /** The text's word hashes, reused across calls. */
  #words = new Int32Array(2048);

  constructor(options: HashingEmbedderOptions = {}) {
    const parsed = parseOrThrow(HashingEmbedderOptionsSchema, options, 'embedder options', 'invalid_embedder_options');
    this.dimension = parsed.dimension;
    this.bigrams = parsed.bigrams;
    this.seed = parsed.seed;
    this.#stopHashes = new Set(parsed.stopWords.map((word) => hashString(word.toLowerCase(), this.seed) | 0));
    const dimMask = (this.dimension & (this.dimension - 1)) === 0 ? this.dimension - 1 : -1;
    this.#counting = {
      table: new Int32Array(1024 * SLOT),
      tableMask: 1023,
      generation: 0,
      acc: new Float64Array(this.dimension),
      dimMask,
      dim: this.dimension,
    };
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
    // The accumulator is all zeros between calls: the pass that reads it out clears it.
    const acc = this.#counting.acc;
    const unique = this.#collectFeatures(text);
    const dim = this.dimension;
    let norm = 0;
    for (let i = 0; i < dim; i++) norm += acc[i]! * acc[i]!;
    if (norm === 0) {
      acc.fill(0);
      target.fill(0, offset, offset + dim);
      return 0;
    }
    const scale = 1 / Math.sqrt(norm);
    for (let i = 0; i < dim; i++) {
      target[offset + i] = acc[i]! * scale;
      acc[i] = 0;
    }
    return unique;
  }

  // Count the text's unigram and bigram features in the scratch table and add each one's sublinear
  // weight to `acc` as it is counted (the nth occurrence adds ln n − ln(n − 1), so a term seen n
  // times totals 1 + ln n). No token strings are built: an ASCII text is hashed and counted in one
  // pass over its UTF-8 bytes; any other is lower-cased and hashed into `#words` first. Weights are
  // added in the order terms occur, so every bucket sums the same doubles in the same order on both
  // paths: that is what keeps the vectors bit-identical. Returns the number of distinct features.
  // Hashes stay int32 so they are never boxed.
  #collectFeatures(text: string): number {
    const length = text.length;
    if (this.#bytes.length <= length) this.#bytes = new Uint8Array(Math.max(length + 1, this.#bytes.length * 2));
    // Every UTF-8 sequence outside ASCII is longer than its UTF-16 form, so the whole text fits
    // in `length` bytes exactly when it is ASCII.
    const { read, written } = ENCODER.encodeInto(text, this.#bytes);
    const lower = read === length && written === length ? undefined : text.toLowerCase();
    // A text of n code units has at most (n + 1) / 2 words and so at most n + 1 features.
    // (Lower-casing may lengthen a text: 'İ' becomes two code units.)
    const units = lower === undefined ? length : lower.length;
    // Size the table once per call, keeping its load at most two thirds, and never check again.
    if ((units + 1) * 3 > (this.#counting.tableMask + 1) * 2) this.#resize(units + 1);
    const counting = this.#counting;
    counting.generation = (counting.generation + 1) | 0;
    if (counting.generation <= 0) {
      counting.table.fill(0);
      counting.generation = 1;
    }
    const stop = this.#stopHashes.size > 0 ? this.#stopHashes : undefined;
    const seeded = (FNV_OFFSET ^ this.seed) | 0;
    if (lower === undefined) return countAsciiFeatures(this.#bytes, length, seeded, stop, this.bigrams, counting);
    if (this.#words.length < (units >> 1) + 1) this.#words = new Int32Array(Math.max((units >> 1) + 1, this.#words.length * 2));
    let count = this.#unicodeWords(lower, seeded);
    if (stop !== undefined) {
      let kept = 0;
      for (let w = 0; w < count; w++) if (!stop.has(this.#words[w]!)) this.#words[kept++] = this.#words[w]!;
      count = kept;
    }
    return countFeatures(this.#words, count, this.bigrams, counting);
  }

  // Any text's lower-cased UTF-16 code units into word hashes, the Unicode-aware tokenizer
  // deciding outside ASCII. Returns how many.
  #unicodeWords(lower: string, seeded: number): number {
    const words = this.#words;
    const length = lower.length;
    let count = 0;
    let hash = seeded;
    let inWord = false;
    for (let i = 0; i <= length; i++) {
      // The position past the end acts as a separator that closes the last word.
      const c = i < length ? lower.charCodeAt(i) : 0x20;
      if ((c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39)) {
        hash = Math.imul(hash ^ c, FNV_PRIME);
        inWord = true;
        continue;
      }
      if (c >= 0x80) {
        // Outside ASCII the Unicode-aware tokenizer decides; it may span a surrogate pair.
        const span = wordCharLength(lower, i);
        if (span > 0) {
          hash = Math.imul(hash ^ c, FNV_PRIME);
          if (span === 2) hash = Math.imul(hash ^ lower.charCodeAt(++i), FNV_PRIME);
          inWord = true;
          continue;
        }
      }
      if (!inWord) continue;
      inWord = false;
      words[count++] = fmix32(hash) | 0;
      hash = seeded;
    }
    return count;
  }

  #resize(features: number): void {
    let slots = this.#counting.tableMask + 1;
    while (slots * 2 < features * 3) slots *= 2;
    this.#counting.table = new Int32Array(slots * SLOT);
    this.#counting.tableMask = slots - 1;
    this.#counting.generation = 0;
  }
}

/** An open-addressing table of interleaved [key, stamp, count, unused] slots, cleared between texts by bumping `generation`, and the accumulator its counts weigh into. */
interface Counting {
  table: Int32Array;
  tableMask: number;
  generation: number;
  readonly acc: Float64Array;
  /** `dim - 1` when the dimension is a power of two (index by mask), else -1 (index by modulo). */
  readonly dimMask: number;
  readonly dim: number;
}

/**
 * Hash the words of an ASCII text's bytes and count them (less stop words) and, with `bigrams`,
 * each word's pair with the kept word before it, in text order, as {@link countFeatures} counts
 * hashed words. Each byte is lower-cased and classified by one table lookup; the byte at `length`
 * is overwritten with a separator that closes the last word. One pass, so no word hash is stored
 * and read back. Returns the number of distinct features.
 */
function countAsciiFeatures(
  bytes: Uint8Array,
  length: number,
  seeded: number,
  stop: ReadonlySet<number> | undefined,
  bigrams: boolean,
  counting: Counting,
): number {
  bytes[length] = 0;
  const chars = ASCII_WORD;
  let unique = 0;
  let previous = 0;
  let first = true;
  let i = 0;
  while (i < length) {
    let c = chars[bytes[i++]!]!;
    if (c === 0) continue;
    let hash = seeded;
    do {
      hash = Math.imul(hash ^ c, FNV_PRIME);
      c = chars[bytes[i++]!]!;
    } while (c !== 0);
    const word = fmix32(hash) | 0;
    if (stop !== undefined && stop.has(word)) continue;
    unique += countFeature(word, counting);
    if (bigrams && !first) unique += countFeature(hashPair(previous, word) | 0, counting);
    previous = word;
    first = false;
  }
  return unique;
}

/**
 * Count `words[0 … count)` and, with `bigrams`, each word's pair with the word before it, in text
 * order (see {@link countFeature}). Returns the number of distinct features.
 */
function countFeatures(words: Int32Array, count: number, bigrams: boolean, counting: Counting): number {
  let unique = 0;
  for (let w = 0; w < count; w++) {
    const word = words[w]!;
    unique += countFeature(word, counting);
    if (bigrams && w > 0) unique += countFeature(hashPair(words[w - 1]!, word) | 0, counting);
  }
  return unique;
}

/**
 * Count one feature in an open-addressing table of interleaved [key, stamp, count, unused] slots
 * cleared between texts by the generation stamp, and add this occurrence's weight increment to the
 * feature's signed bucket of `acc`. Returns 1 when the feature is new to the text, else 0.
 */
function countFeature(feature: number, counting: Counting): number {
  const { table, tableMask, generation, acc, dimMask, dim } = counting;
  // The bucket comes from the low bits and the sign from the top bit, so they are independent;
  // the sign is branch-free because the top bit is random and a branch on it would mispredict.
  const bucket = dimMask >= 0 ? feature & dimMask : (feature >>> 0) % dim;
  const sign = 1 - ((feature >>> 31) << 1);
  let slot = feature & tableMask;
  for (;;) {
    const base = slot << 2; // SLOT cells per slot
    if (table[base + 1] !== generation) {
      table[base] = feature;
      table[base + 1] = generation;
      table[base + 2] = 1;
      acc[bucket]! += sign;
      return 1;
    }
    if (table[base] === feature) {
      const seen = ++table[base + 2]!;
      acc[bucket]! += (seen < LOG_TABLE_SIZE ? TF_STEP[seen]! : Math.log(seen) - Math.log(seen - 1)) * sign;
      return 0;
    }
    slot = (slot + 1) & tableMask;
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
