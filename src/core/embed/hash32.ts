/**
 * 32-bit hashing used by the embedder and the keyword index. Hand-written because it is the
 * product's hot path and must give the same bits in every engine: only `Math.imul` and
 * 32-bit integer operations, no platform hashing.
 */

/** FNV-1a offset basis. */
export const FNV_OFFSET = 0x811c9dc5;
/** FNV-1a prime. */
export const FNV_PRIME = 0x01000193;

/** MurmurHash3's 32-bit finaliser: spreads every input bit over every output bit. */
export function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** FNV-1a over the UTF-16 code units of `text`, finalised with {@link fmix32}; unsigned 32-bit. */
export function hashString(text: string, seed = 0): number {
  let h = (FNV_OFFSET ^ seed) >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, FNV_PRIME);
  }
  return fmix32(h);
}

/** Combine two token hashes into the hash of the ordered pair (a word bigram). */
export function hashPair(first: number, second: number): number {
  return fmix32((Math.imul(first, 0x9e3779b1) ^ second ^ 0x5bd1e995) >>> 0);
}
