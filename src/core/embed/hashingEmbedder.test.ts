import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { referenceEmbed, type ReferenceOptions } from '../../../tests/support/referenceEmbedder.ts';
import { HashingEmbedder } from './hashingEmbedder.ts';

/** Whether two vectors hold the same bits (so -0 and 0 differ, as they would in a digest). */
function sameBits(a: Float32Array, b: Float32Array): boolean {
  return a.length === b.length && a.every((x, i) => Object.is(x, b[i]));
}

// Texts that exercise both paths: ASCII (the byte path), and Unicode with case mappings that
// change length ('İ'), map outside ASCII onto ASCII (the Kelvin sign), surrogate pairs and lone surrogates.
const asciiText = fc.string({ unit: fc.constantFrom(...'abcXYZ019 .,-_\n\t!AEIOUaeiou'.split('')), maxLength: 400 });
const unicodeText = fc.string({ unit: 'grapheme', maxLength: 200 });
const mixedText = fc.string({
  unit: fc.oneof(fc.constantFrom('İ', 'K', 'ß', 'Σ', 'é', 'É', '日本', '🚀', '𝔘', '\ud800', '\udc00', ' ', 'a', 'Z', '9'), fc.string({ maxLength: 3 })),
  maxLength: 120,
});
const options = fc.record(
  {
    dimension: fc.oneof(fc.constantFrom(1, 7, 64, 256, 1000), fc.integer({ min: 1, max: 600 })),
    bigrams: fc.boolean(),
    seed: fc.integer({ min: 0, max: 0xffffffff }),
    stopWords: fc.array(fc.constantFrom('the', 'a', 'İ', 'café', 'x'), { maxLength: 3 }),
  },
  { requiredKeys: [] },
);

describe('HashingEmbedder against the reference algorithm', () => {
  it('gives bit-identical vectors on ASCII, Unicode and mixed texts, whatever the options', () => {
    fc.assert(
      fc.property(
        options,
        fc.array(fc.oneof(asciiText, unicodeText, mixedText, fc.string({ maxLength: 300 })), { minLength: 1, maxLength: 6 }),
        (opts, texts) => {
          // One embedder for several texts, so scratch space reused across calls is covered too.
          const embedder = new HashingEmbedder(opts as ReferenceOptions & { stopWords?: string[] });
          for (const text of texts) expect(sameBits(embedder.embed(text), referenceEmbed(text, opts))).toBe(true);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('stays identical on long texts that grow its scratch buffers', () => {
    const embedder = new HashingEmbedder({ dimension: 128 });
    const texts = ['short', 'word '.repeat(5000), 'İstanbul '.repeat(3000), 'a'.repeat(9000), 'x y', ''];
    for (const text of texts) expect(sameBits(embedder.embed(text), referenceEmbed(text, { dimension: 128 }))).toBe(true);
  });

  it('treats texts whose lower-casing leaves ASCII the way the Unicode tokenizer does', () => {
    const embedder = new HashingEmbedder({ dimension: 64 });
    // The Kelvin sign lower-cases to ASCII 'k'; dotted capital I to 'i' and a combining dot.
    expect(sameBits(embedder.embed('\u212Aelvin'), embedder.embed('kelvin'))).toBe(true);
    expect(sameBits(embedder.embed('İ'), referenceEmbed('İ', { dimension: 64 }))).toBe(true);
    expect(sameBits(embedder.embed('İ'), embedder.embed('i'))).toBe(false);
  });
});
