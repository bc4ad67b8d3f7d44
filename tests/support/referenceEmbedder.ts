// The embedder's algorithm as it stood before its ASCII fast path, kept verbatim in its plain
// form (lower-case the text, scan UTF-16 code units, count and weight features as they pass) so
// property tests can check the optimised HashingEmbedder gives the very same bits.
import { FNV_OFFSET, FNV_PRIME, fmix32, hashPair, hashString } from '../../src/core/embed/hash32.ts';
import { wordCharLength } from '../../src/core/embed/tokenize.ts';

export interface ReferenceOptions {
  dimension?: number;
  bigrams?: boolean;
  seed?: number;
  stopWords?: readonly string[];
}

/** Embed `text` the reference way: a new unit-length Float32Array (all zeros without words). */
export function referenceEmbed(text: string, options: ReferenceOptions = {}): Float32Array {
  const dim = options.dimension ?? 256;
  const bigrams = options.bigrams ?? true;
  const seed = options.seed ?? 0;
  const stop = new Set((options.stopWords ?? []).map((word) => hashString(word.toLowerCase(), seed) | 0));
  const acc = new Float64Array(dim);
  const counts = new Map<number, number>();
  const add = (feature: number) => {
    const bucket = (dim & (dim - 1)) === 0 ? feature & (dim - 1) : (feature >>> 0) % dim;
    const count = (counts.get(feature) ?? 0) + 1;
    counts.set(feature, count);
    const sign = 1 - ((feature >>> 31) << 1);
    acc[bucket]! += count === 1 ? sign : (Math.log(count) - Math.log(count - 1)) * sign;
  };
  const lower = text.toLowerCase();
  const seeded = (FNV_OFFSET ^ seed) | 0;
  let hash = seeded;
  let inWord = false;
  let previous: number | undefined;
  for (let i = 0; i <= lower.length; i++) {
    const c = i < lower.length ? lower.charCodeAt(i) : 0x20;
    const span = i < lower.length ? wordCharLength(lower, i) : 0;
    if (span > 0) {
      hash = Math.imul(hash ^ c, FNV_PRIME);
      if (span === 2) hash = Math.imul(hash ^ lower.charCodeAt(++i), FNV_PRIME);
      inWord = true;
      continue;
    }
    if (!inWord) continue;
    inWord = false;
    const word = fmix32(hash) | 0;
    hash = seeded;
    if (stop.has(word)) continue;
    add(word);
    if (bigrams && previous !== undefined) add(hashPair(previous, word) | 0);
    previous = word;
  }
  let norm = 0;
  for (let i = 0; i < dim; i++) norm += acc[i]! * acc[i]!;
  const out = new Float32Array(dim);
  if (norm === 0) return out;
  const scale = 1 / Math.sqrt(norm);
  for (let i = 0; i < dim; i++) out[i] = acc[i]! * scale;
  return out;
}
