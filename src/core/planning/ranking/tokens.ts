/**
 * Words of requests and tool texts for the lexical planner, with where each came from.
 * Matching folds case and accents ("Météo" and "meteo" are one word) and splits identifiers
 * the way people read them: `getWeatherForecast`, `get_weather`, `weather.get` → get, weather, ….
 */
import { keepRecent } from '../recent.ts';

/** One word of a text: its folded form and its offsets in the text it came from. */
export interface Token {
  /** Lower-cased, accents removed. */
  word: string;
  /** As written (lower-cased), accents kept: what a stemmer of the word's language expects. */
  raw: string;
  start: number;
  end: number;
}

const ELISION = /^(?:l|d|j|c|n|m|s|t|qu|dell|all|nell|sull|un)['’](?=\p{L}{2})/u;
const WORD = /[\p{L}\p{M}\p{N}]+(?:['’][\p{L}]+)?/gu;
const MARKS = /\p{M}+/gu;

const folded = new Map<string, string>();

/** Lower-case and strip accents: the form words are compared in (memoised for short texts, bounded). */
export function fold(text: string): string {
  if (text.length > 40) return text.toLowerCase().normalize('NFD').replace(MARKS, '').normalize('NFC');
  let value = folded.get(text);
  if (value === undefined) {
    // Plain ASCII has no accents to strip.
    value = !/[^\p{ASCII}]/u.test(text) ? text.toLowerCase() : text.toLowerCase().normalize('NFD').replace(MARKS, '').normalize('NFC');
    if (folded.size >= 20_000) folded.clear();
    folded.set(text, value);
  }
  return value;
}

/** Most characters of a text that tokenisation reads; a longer request is cut here (its words past this carry no intent a plan could serve). */
export const MAX_TOKENIZED_CHARS = 8192;

/**
 * The words of `text`, in order, with offsets into `text`. Contractions stay one word
 * ("don't", "I'd"); digits form words of their own.
 *
 * @example
 * tokenize('Météo à Paris?'); // [{ word: 'meteo', … }, { word: 'a', … }, { word: 'paris', … }]
 */
export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  const source = text.length > MAX_TOKENIZED_CHARS ? text.slice(0, MAX_TOKENIZED_CHARS) : text;
  for (const match of source.matchAll(WORD)) {
    let raw = match[0].toLowerCase();
    let start = match.index;
    const apostrophe = raw.includes("'") || raw.includes('’');
    // French and Italian elide articles and pronouns into the next word: "l'air", "d'un", "dell'anno".
    const elided = apostrophe ? ELISION.exec(raw) : null;
    if (elided) {
      start += elided[0].length;
      raw = raw.slice(elided[0].length);
    }
    const word = fold(raw);
    tokens.push({ word: apostrophe ? word.replace(/’/g, "'") : word, raw, start, end: match.index + match[0].length });
  }
  return tokens;
}

/** The tokens of the last texts read, frozen: a clause is read for ranking and for slot filling. */
const recentTokens = new Map<string, readonly Token[]>();
const RECENT_TOKENS = 8;

/** {@link tokenize}'s tokens of `text`, frozen and kept for the last few texts. */
export function readTokens(text: string): readonly Token[] {
  let tokens = recentTokens.get(text);
  if (tokens === undefined) {
    tokens = keepRecent(recentTokens, RECENT_TOKENS, text, Object.freeze(tokenize(text).map((token) => Object.freeze(token))));
  }
  return tokens;
}

/**
 * Split an identifier into its words: camelCase, PascalCase, snake_case, kebab-case, dots and
 * digits. Returned lower-cased and folded.
 *
 * @example
 * identifierWords('getHTTPStatus_v2.check'); // ['get', 'http', 'status', 'v', '2', 'check']
 */
export function identifierWords(name: string): string[] {
  const spaced = name
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2')
    .replace(/(\p{L})(\p{N})/gu, '$1 $2')
    .replace(/(\p{N})(\p{L})/gu, '$1 $2')
    .replace(/[^\p{L}\p{M}\p{N}]+/gu, ' ');
  return spaced
    .split(' ')
    .filter((w) => w.length > 0)
    .map(fold);
}

/** Whether a token is a number written in digits. */
export function isNumeric(word: string): boolean {
  return /^\p{N}+$/u.test(word);
}
