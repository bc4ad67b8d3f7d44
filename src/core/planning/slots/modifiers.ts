/**
 * A value written in front of its parameter's own noun: "the driveway camera", "my chili
 * recipe", "the front porch camera". The words between the last function word and the noun
 * that names the parameter are the value.
 */
import { isStopWord, stem, type Language } from '../ranking/stem.ts';
import type { Token } from '../ranking/tokens.ts';
import type { Param } from './types.ts';

/** At most this many words make such a value. */
const MOST_WORDS = 3;
/** Words that end the look back: verbs and adverbs of requests come before the modifier, never inside it. */
const NOT_A_MODIFIER =
  /^(show|see|check|get|give|find|open|scale|adjust|play|put|set|turn|switch|lock|unlock|start|stop|view|watch|search|look|make|add|book|happening|now|please|how|what|whats|is|are)$/;

/**
 * The phrase right before a word of `param`'s name in `tokens` (`[first, last]` token indices),
 * when it is made of content words that are not taken. The words may be among those that chose
 * the tool: a parameter's description often names the values it takes ("e.g. driveway").
 */
export function modifierBefore(tokens: readonly Token[], param: Param, language: Language, isTaken: (index: number) => boolean): [number, number] | undefined {
  const nouns = new Set(param.nameWords.filter((w) => w.length > 2).map((w) => stem(w)));
  if (nouns.size === 0) return undefined;
  for (let at = 1; at < tokens.length; at++) {
    if (!nouns.has(stem(tokens[at]!.word))) continue;
    let first = at;
    while (first > 0 && at - first < MOST_WORDS) {
      const word = tokens[first - 1]!.word;
      if (isTaken(first - 1) || isStopWord(word, language) || NOT_A_MODIFIER.test(word) || /\d/.test(word)) break;
      first--;
    }
    if (first < at) return [first, at - 1];
  }
  return undefined;
}
