/**
 * Whether a tool matched what the request is about or only a word that qualifies it. In "air
 * miles", "travel insurance", "return policy" or "credit limit" the last word says what the thing
 * is; a tool that matched "air" or "travel" and has no place for "miles" or "insurance" serves
 * something else.
 */
import type { Fitted } from './argumentFit.ts';
import type { Query, QueryWord } from './ranking/bm25f.ts';

/** Words that follow a noun without being the head of its phrase: participles, adjectives of size, prepositions. */
const NOT_A_HEAD = /(?:ing|ed)$|^(each|every|without|tall|long|old|ago|away|only|please|now|today|tomorrow|tonight)$/;

/** Why the tool's match is only on a qualifier, or undefined when it is not. */
export interface QualifierOnly {
  matched: string;
  head: string;
}

/**
 * The first matched word that is followed right away (no punctuation between) by a content word
 * that the tool did not match, that is not a value, and that no argument took; undefined when
 * every matched word heads its phrase or the rest of the request went into arguments.
 */
export function qualifierOnly(query: Query, fitted: Fitted, clause: string, offset: number): QualifierOnly | undefined {
  const matched = new Set(fitted.ranked.score.matched);
  const spans = Object.values(fitted.filled.sources).map((s) => ({ start: s.start - offset, end: s.end - offset }));
  const inArgument = (word: QueryWord) => spans.some((s) => word.token.start >= s.start && word.token.end <= s.end);
  const words = query.words.filter((w) => w.token.raw !== '?' && w.token.end > w.token.start).sort((a, b) => a.token.start - b.token.start);
  let unexplained = 0;
  for (const word of words) if (!word.value && !matched.has(word.token.raw) && !inArgument(word)) unexplained++;
  // Only a request that leaves a content word unaccounted for can be about something else.
  if (unexplained === 0) return undefined;
  // Word order tells the head of a phrase in English only.
  if (query.language !== 'en') return undefined;
  for (let i = 0; i + 1 < words.length; i++) {
    const word = words[i]!;
    const next = words[i + 1]!;
    if (!matched.has(word.token.raw) || word.value || inArgument(word)) continue;
    if (matched.has(next.token.raw) || next.value || inArgument(next) || NOT_A_HEAD.test(next.token.word)) continue;
    if (!/^\s+$/.test(clause.slice(word.token.end, next.token.start))) continue;
    // The head ends its phrase: what follows is a function word, punctuation or the end.
    const after = words[i + 2];
    if (after && /^\s+$/.test(clause.slice(next.token.end, after.token.start))) continue;
    return { matched: word.token.raw, head: next.token.raw };
  }
  return undefined;
}
