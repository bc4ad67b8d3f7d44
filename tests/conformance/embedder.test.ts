import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HashingEmbedder, ValidationError, cosineSimilarity, tokenize } from '../../src/core/index.ts';
import golden from '../fixtures/embedding-golden.json';
import { EMBEDDING_TEXTS, vectorDigest } from '../fixtures/embeddingTexts.ts';

function norm(v: Float32Array): number {
  let s = 0;
  for (const x of v) s += x * x;
  return Math.sqrt(s);
}

describe('HashingEmbedder', () => {
  it('gives bit-identical vectors to the committed golden digests (same bits in Node and Chromium)', async () => {
    expect(golden.length).toBe(EMBEDDING_TEXTS.length * 2);
    for (const entry of golden) {
      const embedder = new HashingEmbedder(entry.options);
      expect(await vectorDigest(embedder.embed(entry.text)), `${JSON.stringify(entry.options)} ${entry.text.slice(0, 40)}`).toBe(entry.digest);
    }
  });

  it('is L2-normalised, or all zeros for text without words', () => {
    const embedder = new HashingEmbedder({ dimension: 64 });
    expect(norm(embedder.embed('hello world'))).toBeCloseTo(1, 5);
    expect(norm(embedder.embed('  ... !!! '))).toBe(0);
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        const n = norm(embedder.embed(text));
        return tokenize(text).length === 0 ? n === 0 : Math.abs(n - 1) < 1e-5;
      }),
      { numRuns: 300 },
    );
  });

  it('is deterministic across instances and call order (scratch state never leaks)', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 300 }), { minLength: 1, maxLength: 8 }), (texts) => {
        const a = new HashingEmbedder({ dimension: 32 });
        const b = new HashingEmbedder({ dimension: 32 });
        const forward = texts.map((t) => a.embed(t));
        const backward = [...texts]
          .reverse()
          .map((t) => b.embed(t))
          .reverse();
        return forward.every((v, i) => v.every((x, j) => Object.is(x, backward[i]![j])));
      }),
      { numRuns: 100 },
    );
  });

  it('is case-insensitive and Unicode-aware', () => {
    const embedder = new HashingEmbedder();
    expect(embedder.embed('CAFÉ Über')).toEqual(embedder.embed('café über'));
    expect(tokenize('Café au lait, 2 tasses! 日本語')).toEqual(['café', 'au', 'lait', '2', 'tasses', '日本語']);
    expect(tokenize('𝔘𝔫𝔦 rock🚀et')).toEqual(['𝔘𝔫𝔦'.toLowerCase(), 'rock', 'et']);
  });

  it('ranks related texts above unrelated ones', () => {
    const embedder = new HashingEmbedder({ dimension: 512 });
    const query = embedder.embed('add two numbers together');
    const related = cosineSimilarity(query, embedder.embed('a tool that can add numbers'));
    const unrelated = cosineSimilarity(query, embedder.embed('translate french poetry'));
    expect(related).toBeGreaterThan(0.15);
    expect(related).toBeGreaterThan(unrelated);
  });

  it('uses sublinear term frequency and bigrams when asked', () => {
    const uni = new HashingEmbedder({ dimension: 1024, bigrams: false });
    const bi = new HashingEmbedder({ dimension: 1024, bigrams: true });
    expect(uni.embed('new york')).toEqual(uni.embed('york new'));
    expect(bi.embed('new york')).not.toEqual(bi.embed('york new'));
    // tf 1 vs 10: weight 1 vs 1 + ln 10, so "a" dominates but not linearly.
    const v = uni.embed(`${'a '.repeat(10)} b`);
    const ratio = Math.abs(Math.max(...v.map(Math.abs)) / Math.min(...[...v].filter((x) => x !== 0).map(Math.abs)));
    expect(ratio).toBeCloseTo(1 + Math.log(10), 4);
  });

  it('writes into a shared buffer without allocating a new vector', () => {
    const embedder = new HashingEmbedder({ dimension: 16 });
    const buffer = new Float32Array(48);
    expect(embedder.embedInto('one two', buffer, 16)).toBeGreaterThan(0);
    expect(buffer.subarray(16, 32)).toEqual(embedder.embed('one two'));
    expect(buffer.subarray(0, 16).every((x) => x === 0)).toBe(true);
    expect(() => embedder.embedInto('x', buffer, 40)).toThrow(RangeError);
  });

  it('rejects a dimension of 0 and other bad options with a typed error', () => {
    for (const options of [{ dimension: 0 }, { dimension: -3 }, { dimension: 1.5 }, { dimension: Number.NaN }, { seed: -1 }]) {
      const attempt = () => new HashingEmbedder(options);
      expect(attempt).toThrow(ValidationError);
      try {
        attempt();
      } catch (error) {
        expect((error as ValidationError).code).toBe('invalid_embedder_options');
      }
    }
  });
});
