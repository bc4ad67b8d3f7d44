/**
 * BM25F scoring of a request clause against a {@link ToolIndex}: each content word of the
 * clause adds, for each tool, its background weight times the saturated field-weighted
 * frequency of its best matching term — an exact stem, or (at a discount) a synonym group.
 */
import { guessLanguage, type Language } from './stem.ts';
import { termsOf, type WordTerms } from './terms.ts';
import { tokenize, type Token } from './tokens.ts';
import type { ToolIndex } from './toolIndex.ts';

/** BM25 saturation. */
const K1 = 1.2;
/** The most one word can add, per unit of weight: a perfect match saturates here. */
export const SATURATION = K1 + 1;
/** How much a synonym-group match counts against an exact stem match. */
const GROUP_DISCOUNT = 0.6;

/** A content word of the clause. */
export interface QueryWord {
  token: Token;
  terms: WordTerms;
  /** Whether the word is probably a value (a name, a quoted or date word) rather than intent. */
  value: boolean;
}

/** A clause read for ranking. */
export interface Query {
  language: Language;
  words: QueryWord[];
  /** Folded words of the clause, in order (function words included). */
  folded: string[];
}

/** How one tool scored against a clause. */
export interface ToolScore {
  /** Position of the tool in the index. */
  position: number;
  score: number;
  /** Sum of the weights of the clause's words this tool matched. */
  matchedWeight: number;
  /** The clause's words this tool matched (as written). */
  matched: string[];
  /** Whether the clause names the tool outright (`send_message`, "text stats"). */
  named: boolean;
}

const VALUE_WORDS = new Set(
  (
    'today tomorrow tonight yesterday morning afternoon evening night noon midnight week weekend month year monday tuesday wednesday ' +
    'thursday friday saturday sunday january february march april may june july august september october november december jan feb mar ' +
    'apr jun jul aug sep sept oct nov dec am pm next last'
  ).split(' '),
);

/** Spans of quoted text, URLs, e-mail addresses and paths: their words are values, not intent. */
function valueSpans(text: string): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  const pattern =
    /(?<![\p{L}\p{N}])(["“«„'‘])(.+?)(["”»“'’])(?![\p{L}\p{N}])|https?:\/\/\S+|[\w.+-]+@[\w-]+(?:\.[\w-]+)+|(?:\.{0,2}\/)?[\w-]+(?:\/[\w.-]+)+|\b[\w-]+\.(?:txt|md|json|csv|pdf|docx?|xlsx?|png|jpe?g|zip|html?)\b/gu;
  for (const match of text.matchAll(pattern)) spans.push([match.index, match.index + match[0].length]);
  return spans;
}

/** Read a clause: its language, content words and which of them look like values. */
export function readQuery(text: string): Query {
  const tokens = tokenize(text);
  const language = guessLanguage(text, tokens);
  const spans = valueSpans(text);
  const words: QueryWord[] = [];
  tokens.forEach((token, i) => {
    const terms = termsOf(token.word, language);
    if (!terms) return;
    const first = text.charAt(token.start);
    const capitalised = i > 0 && first !== first.toLowerCase() && !/[.!?]\s*$/.test(text.slice(0, token.start));
    const inSpan = spans.some(([s, e]) => token.start >= s && token.end <= e);
    words.push({ token, terms, value: inSpan || capitalised || VALUE_WORDS.has(token.word) });
  });
  return { language, words, folded: tokens.map((t) => t.word) };
}

function saturate(x: number): number {
  return (x * SATURATION) / (x + K1);
}

/**
 * Score every tool of `index` against `query`. Tools that match nothing score 0. A word that
 * occurs twice in the clause counts once.
 */
export function scoreTools(index: ToolIndex, query: Query): ToolScore[] {
  const scores: ToolScore[] = index.tools.map((_, position) => ({ position, score: 0, matchedWeight: 0, matched: [], named: false }));
  const seen = new Set<string>();
  const best = new Float64Array(index.tools.length);
  for (const word of query.words) {
    if (seen.has(word.token.word)) continue;
    seen.add(word.token.word);
    best.fill(0);
    for (const term of word.terms.stems) {
      for (const [position, x] of index.postings.get(term) ?? []) best[position] = Math.max(best[position]!, saturate(x));
    }
    for (const term of word.terms.groups) {
      for (const [position, x] of index.postings.get(term) ?? []) best[position] = Math.max(best[position]!, GROUP_DISCOUNT * saturate(x));
    }
    for (let position = 0; position < best.length; position++) {
      const value = best[position]!;
      if (value <= 0) continue;
      const entry = scores[position]!;
      entry.score += word.terms.weight * value;
      entry.matchedWeight += word.terms.weight;
      entry.matched.push(word.token.raw);
    }
  }
  const text = ` ${query.folded.join(' ')} `;
  index.tools.forEach((tool, position) => {
    if (tool.nameWords.length >= 2 && text.includes(` ${tool.nameWords.join(' ')} `)) scores[position]!.named = true;
  });
  return scores;
}

/** The language of a text and its words, for callers that need both. */
export function languageOf(text: string): Language {
  return guessLanguage(text, tokenize(text));
}
