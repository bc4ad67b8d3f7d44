/**
 * Enum values by closeness to the request's words: the same word, the same stem, the same
 * synonym group, one edit apart (typos) for words of five letters or more, or a clipped form
 * of four letters or more ("tech" for technology).
 */
import { editDistance } from '../ranking/editDistance.ts';
import { isStopWord, stem, type Language } from '../ranking/stem.ts';
import { groups } from '../ranking/synonyms.ts';
import { fold, tokenize, type Token } from '../ranking/tokens.ts';
import type { Filled } from './types.ts';
import { languageOptions, namedLanguage } from './languageNames.ts';
import { lookupTable } from '../../lookupTable.ts';

/** Units as people write them → the short forms enums use. */
const UNITS: Readonly<Record<string, string>> = lookupTable<string>();
for (const line of [
  'ft feet foot pieds pies fuss',
  'in inch inches pouces pulgadas zoll',
  'cm centimeter centimeters centimetre centimetres centimetres centimetros zentimeter',
  'm meter meters metre metres metros',
  'km kilometer kilometers kilometre kilometres kilometros kilometer',
  'mi mile miles milles millas meilen',
  'kg kilogram kilograms kilo kilos',
  'g gram grams gramme grammes gramos',
  'lb lbs pound pounds livres libras',
  'oz ounce ounces onces onzas',
  'l liter liters litre litres litros',
  'ml milliliter milliliters millilitre millilitres',
  'gal gallon gallons',
  'c celsius centigrade',
  'f fahrenheit',
]) {
  const [short, ...long] = line.split(' ');
  for (const word of long) (UNITS as Record<string, string>)[word] = short!;
}

// Request words meet the same enum words plan after plan: each pair is judged once (bounded).
const judged = new Map<string, Map<string, number>>();
let judgedCount = 0;
const MAX_JUDGED = 20_000;

/** How close a request word is to an option word: 3 same, 2 same stem, 1.5 typo, 1.25 clipped, 1 same group, 0 none. */
function closeness(word: string, option: string): number {
  let byOption = judged.get(word);
  if (!byOption) judged.set(word, (byOption = new Map()));
  let score = byOption.get(option);
  if (score === undefined) {
    score = judge(word, option);
    if (++judgedCount > MAX_JUDGED) {
      judged.clear();
      judgedCount = 0;
    }
    byOption.set(option, score);
  }
  return score;
}

function judge(word: string, option: string): number {
  if (word === option) return option.length <= 2 && isStopWord(word, 'en') ? 0 : 3;
  if (UNITS[word] !== undefined && UNITS[word] === (UNITS[option] ?? option)) return 2.5;
  const a = stem(word);
  const b = stem(option);
  if (a === b) return 2;
  if (option.length >= 5 && word.length >= 5 && editDistance(word, option, 1) <= 1) return 1.5;
  // A clipped form ("tech" for technology, "info" for information).
  if (word.length >= 4 && option.length >= word.length + 2 && option.startsWith(word)) return 1.25;
  const ga = groups(a);
  if (ga.length && groups(b).some((g) => ga.includes(g))) return 1;
  return 0;
}

const wordsOfOption = new Map<string, readonly string[]>();

/** An option's words, tokenized once (bounded). */
function optionWords(option: string): readonly string[] {
  let words = wordsOfOption.get(option);
  if (!words) {
    words = tokenize(option).map((t) => t.word);
    if (wordsOfOption.size >= MAX_JUDGED) wordsOfOption.clear();
    wordsOfOption.set(option, words);
  }
  return words;
}

/** The option of an enum the clause speaks to, if any, with the span that chose it. */
export function chooseOption(
  options: readonly string[],
  tokens: readonly Token[],
  offset: number,
  taken: ReadonlyArray<{ start: number; end: number }>,
  language: Language = 'en',
): Filled | undefined {
  let best: { option: string; score: number; start: number; end: number; named?: boolean } | undefined;
  // Whether each token is inside a value another parameter took: read once, not per option.
  const free = tokens.map((token) => !taken.some((t) => token.start < t.end && token.end > t.start));
  for (const option of options) {
    const words = optionWords(option);
    if (words.length === 0) continue;
    for (let i = 0; i + words.length <= tokens.length; i++) {
      let open = true;
      for (let k = 0; k < words.length && open; k++) open = free[i + k]!;
      // A short code written as a function word of the request's language is that word ("en" of "en anglais").
      if (!open || (words.length === 1 && words[0]!.length <= 2 && language !== 'en' && isStopWord(tokens[i]!.word, language))) continue;
      const span = words.length === 1 ? [tokens[i]!] : tokens.slice(i, i + words.length);
      let score = 0;
      for (let k = 0; k < words.length; k++) {
        const c = closeness(span[k]!.word, words[k]!);
        if (c === 0) {
          score = 0;
          break;
        }
        score += c;
      }
      // "sci fi" for "sci-fi", "scifi" for "sci-fi".
      if (score === 0 && words.length > 1 && tokens[i]!.word === words.join('')) score = 2.5 * words.length;
      const end = score > 0 && tokens[i]!.word === words.join('') ? tokens[i]!.end : span.at(-1)!.end;
      if (score > 0 && (!best || score / words.length > best.score)) best = { option, score: score / words.length, start: span[0]!.start, end };
    }
  }
  // Language codes by the language's name ("into Spanish" for es), as good as the same stem.
  const languages = (!best || best.score < 2) && languageOptions(options);
  if (languages) {
    for (const [i, token] of tokens.entries()) {
      const code = free[i] ? namedLanguage(languages, token.word, language) : undefined;
      if (code === undefined) continue;
      best = { option: code, score: 2, start: token.start, end: token.end, named: true };
      break;
    }
  }
  if (!best) return undefined;
  const how = best.named
    ? 'the language named'
    : best.score >= 3
      ? 'written as is'
      : best.score >= 2.5
        ? 'the unit written'
        : best.score >= 2
          ? 'same word stem'
          : best.score >= 1.5
            ? 'one letter off'
            : best.score >= 1.25
              ? 'a shortened form'
              : 'a synonym';
  return { value: best.option, start: offset + best.start, end: offset + best.end, reason: `enum value ${JSON.stringify(best.option)}: ${how}` };
}

/** Fold an option for comparisons elsewhere. */
export function foldOption(option: string): string {
  return fold(option);
}
