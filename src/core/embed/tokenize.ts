/**
 * Unicode-aware word tokenisation shared by the embedder and keyword search, so both see the
 * same words. A word is a maximal run of letters, marks and digits after lower-casing.
 */

const WORD_CHAR = /[\p{L}\p{M}\p{N}]/u;

/** Whether the code unit at `i` of an already lower-cased text continues a word; returns how many code units it spans (0 when it does not). */
export function wordCharLength(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c < 0x80) return (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) ? 1 : 0;
  if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
    const pair = text.slice(i, i + 2);
    return WORD_CHAR.test(pair) ? 2 : 0;
  }
  return WORD_CHAR.test(text[i] ?? '') ? 1 : 0;
}

/**
 * Split `text` into lower-cased words, in order.
 *
 * @example
 * tokenize("Café au lait, 2 tasses!"); // ['café', 'au', 'lait', '2', 'tasses']
 */
export function tokenize(text: string): string[] {
  const lower = text.toLowerCase();
  const words: string[] = [];
  let start = -1;
  for (let i = 0; i < lower.length;) {
    const span = wordCharLength(lower, i);
    if (span > 0) {
      if (start < 0) start = i;
      i += span;
    } else {
      if (start >= 0) words.push(lower.slice(start, i));
      start = -1;
      i += 1;
    }
  }
  if (start >= 0) words.push(lower.slice(start));
  return words;
}

/** Common English words that carry little meaning for ranking. */
export const ENGLISH_STOP_WORDS: readonly string[] = [
  'a',
  'an',
  'and',
  'are',
  'as',
  'at',
  'be',
  'but',
  'by',
  'can',
  'could',
  'do',
  'does',
  'for',
  'from',
  'have',
  'has',
  'how',
  'i',
  'if',
  'in',
  'into',
  'is',
  'it',
  'its',
  'me',
  'my',
  'of',
  'on',
  'or',
  'please',
  'so',
  'that',
  'the',
  'their',
  'then',
  'there',
  'these',
  'this',
  'to',
  'us',
  'was',
  'we',
  'what',
  'when',
  'which',
  'who',
  'will',
  'with',
  'would',
  'you',
  'your',
];
