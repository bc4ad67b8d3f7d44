/** One letter or number (a whole code point), tried at `lastIndex` only. */
const WORD_CHAR = /[\p{L}\p{N}]/uy;

/** Whether the code point that starts at `index` of `text` is a letter or number. */
function wordCharAt(text: string, index: number): boolean {
  if (index >= text.length) return false;
  WORD_CHAR.lastIndex = index;
  return WORD_CHAR.test(text);
}

/**
 * Whether the code point that ends just before `index` of `text` is a letter or number. A pair's
 * start is found here rather than left to the engine: V8 steps a Unicode pattern's `lastIndex`
 * back out of a pair, which the language does not promise.
 */
function wordCharBefore(text: string, index: number): boolean {
  if (index <= 0) return false;
  const low = text.charCodeAt(index - 1);
  const pair = index >= 2 && low >= 0xdc00 && low <= 0xdfff && (text.charCodeAt(index - 2) & 0xfc00) === 0xd800;
  return wordCharAt(text, index - (pair ? 2 : 1));
}

/**
 * Where `word` first occurs in `text` as a whole word: neither the code point before it nor the one
 * after it is a letter or number. The same as a search for
 * `(?<![\p{L}\p{N}])word(?![\p{L}\p{N}])` with the `u` flag, without compiling a Unicode-property
 * pattern for every word (on a fresh start, a query's snippets spent milliseconds doing that).
 * `word` is a query word, whole code points. Returns -1 when there is none.
 */
export function wholeWordIndex(text: string, word: string): number {
  for (let from = 0; from <= text.length;) {
    const at = text.indexOf(word, from);
    if (at < 0) return -1;
    if (!wordCharBefore(text, at) && !wordCharAt(text, at + word.length)) return at;
    from = at + 1;
  }
  return -1;
}

/**
 * About 240 characters of `text` around the first whole-word occurrence of any of `words`
 * (compared lower-cased), with white space collapsed and an ellipsis where it was cut; the start
 * of the text when none occurs.
 */
export function snippet(text: string, words: readonly string[]): string {
  const lower = text.toLowerCase();
  let at = -1;
  for (const word of words) {
    const index = wholeWordIndex(lower, word);
    if (index >= 0 && (at < 0 || index < at)) at = index;
  }
  const start = Math.max(0, at < 0 ? 0 : at - 80);
  const end = Math.min(text.length, start + 240);
  return `${start > 0 ? '…' : ''}${text.slice(start, end).replace(/\s+/g, ' ').trim()}${end < text.length ? '…' : ''}`;
}
