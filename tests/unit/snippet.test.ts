import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { snippet, wholeWordIndex } from '../../src/core/rag/snippet.ts';

// The reference: what the retriever searched with before, one Unicode-property pattern per word.
function byPattern(text: string, word: string): number {
  const escaped = word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![\\p{L}\\p{N}])${escaped}(?![\\p{L}\\p{N}])`, 'u').exec(text)?.index ?? -1;
}

// Letters and numbers of several scripts (astral ones among them), separators, and lone surrogates.
const wordChars = ['a', 'b', 'é', 'ß', '9', '٣', 'ж', '中', '𝒜', '𐐷', '𝟙'];
const otherChars = [' ', '-', '.', '_', '\n', '😀', '\ud835', '\udc9c', '’', '+'];
const word = fc.array(fc.constantFrom(...wordChars), { minLength: 1, maxLength: 3 }).map((parts) => parts.join(''));
const text = fc.array(fc.oneof(fc.constantFrom(...wordChars), fc.constantFrom(...otherChars), word), { maxLength: 40 }).map((parts) => parts.join(''));

describe('whole-word search for snippets', () => {
  it('finds the first whole-word occurrence exactly where the Unicode pattern does', () => {
    fc.assert(
      fc.property(text, word, (t, w) => {
        expect(wholeWordIndex(t, w)).toBe(byPattern(t, w));
      }),
      { numRuns: 5_000 },
    );
  });

  it('needs letters and numbers on neither side, and takes pattern characters literally', () => {
    expect(wholeWordIndex('planner plan', 'plan')).toBe(8);
    expect(wholeWordIndex('plan2 plan', 'plan')).toBe(6);
    expect(wholeWordIndex('𝒜plan plan', 'plan')).toBe(7);
    expect(wholeWordIndex('(a+b) a.b', 'a.b')).toBe(6);
    expect(wholeWordIndex('nothing here', 'plan')).toBe(-1);
  });

  it('cuts about 240 characters around the first matched word', () => {
    const text = `${'lorem ipsum '.repeat(30)}the budget   is\tspent ${'dolor sit '.repeat(30)}`;
    const cut = snippet(text, ['spent', 'budget']);
    expect(cut.startsWith('…') && cut.endsWith('…')).toBe(true);
    expect(cut).toContain('the budget is spent');
    expect(snippet('Short text.', ['none'])).toBe('Short text.');
  });
});
