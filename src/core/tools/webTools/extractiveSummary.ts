import { ENGLISH_STOP_WORDS, tokenize } from '../../embed/tokenize.ts';

/** Words that say nothing about a page's subject: the keyword index's list and a few more. */
const STOPWORDS = new Set([
  ...ENGLISH_STOP_WORDS,
  ...'about above after again against all am any because been before being below between both can could did do does doing down during each few from further had has having her here hers him his how i me more most my myself nor now off once only other our ours out over own same she should so some such than them then there these those through too under until up very we what when where which while who whom why would you your also may might must one two new us'.split(
    ' ',
  ),
]);

/** An extractive summary: sentences of the text itself, in their original order. */
export interface ExtractiveSummary {
  summary: string;
  sentences: string[];
}

/** Split `text` into sentences: at `.`, `!`, `?` or `…` followed by white space, and at blank lines. */
export function splitSentences(text: string): string[] {
  return text
    .split(/\n\s*\n/)
    .flatMap((block) => block.replace(/^- /, '').split(/(?<=[.!?…])\s+(?=[^\s])/u))
    .map((sentence) => sentence.replace(/\s+/g, ' ').trim())
    .filter((sentence) => sentence !== '');
}

/**
 * Summarise `text` without a model: each complete sentence (ending in `.`, `!`, `?` or `…`,
 * unless the text has none) of 4 to 80 words scores the summed frequency
 * (over the whole text, stopwords left out) of its distinct words, divided by the square root
 * of its length so long sentences do not win by size, with a bonus for words of `title` and
 * for sentences near the start. The best `count` are returned in text order. Deterministic:
 * ties go to the earlier sentence.
 *
 * @example
 * summarizeExtractive(page.text, { count: 3, title: page.title }).summary;
 */
export function summarizeExtractive(text: string, options: { count?: number; title?: string; maxChars?: number } = {}): ExtractiveSummary {
  const count = options.count ?? 3;
  const maxChars = options.maxChars ?? 1200;
  const sentences = splitSentences(text);
  const words = sentences.map((sentence) => tokenize(sentence).filter((word) => !STOPWORDS.has(word) && !/^\d+$/.test(word)));
  const frequency = new Map<string, number>();
  for (const list of words) for (const word of list) frequency.set(word, (frequency.get(word) ?? 0) + 1);
  const highest = Math.max(1, ...frequency.values());
  const titleWords = new Set(tokenize(options.title ?? '').filter((word) => !STOPWORDS.has(word)));
  // Headings and list fragments end without punctuation; they are left out unless nothing else is a sentence.
  const complete = sentences.map((sentence) => /[.!?…]["'”’)]?$/u.test(sentence));
  const requireComplete = complete.some(Boolean);
  const scored = sentences.map((sentence, index) => {
    const length = sentence.split(/\s+/).length;
    const distinct = new Set(words[index]);
    if (length < 4 || length > 80 || distinct.size === 0 || (requireComplete && !complete[index])) return { index, score: -1 };
    let sum = 0;
    for (const word of distinct) sum += (frequency.get(word)! / highest) * (titleWords.has(word) ? 2 : 1);
    const position = 1 + 0.5 * Math.max(0, 1 - index / Math.max(1, sentences.length / 3));
    return { index, score: (sum / Math.sqrt(distinct.size)) * position };
  });
  const chosen = scored
    .filter((entry) => entry.score > 0)
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, count)
    .sort((a, b) => a.index - b.index)
    .map((entry) => sentences[entry.index]!);
  const kept: string[] = [];
  let length = 0;
  for (const sentence of chosen) {
    if (kept.length > 0 && length + sentence.length + 1 > maxChars) break;
    kept.push(sentence.length > maxChars ? `${sentence.slice(0, maxChars - 1)}…` : sentence);
    length += sentence.length + 1;
  }
  return { summary: kept.join(' '), sentences: kept };
}
