/**
 * Text values of a request: quoted strings (an apostrophe inside a word, as in "I'd" or
 * "don't", opens nothing), URLs, e-mail addresses and paths, and the phrase a parameter's
 * introducing words point at: "to bob", "saying hi", "in New York", "directed by Greta Gerwig",
 * "called Road trip".
 */
import { isStopWord, type Language } from '../ranking/stem.ts';
import { fold, type Token } from '../ranking/tokens.ts';
import type { Mention, Param } from './types.ts';

const QUOTED = /(?<![\p{L}\p{N}])(?:"([^"]+)"|“([^”]+)”|«\s?([^»]+?)\s?»|„([^“”]+)[“”]|'(.+?)'|‘(.+?)’)(?![\p{L}\p{N}])/gu;
const URL = /\bhttps?:\/\/[^\s"'<>]+[^\s"'<>.,;:!?)]/gi;
const EMAIL = /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g;
const PATH =
  /(?<![\w@])(?:~|\.{1,2})?\/[\w.\-/]+|(?<![\w@/])[\w-]+(?:\/[\w.-]+)+|(?<![\w@/.])[\w-]+\.(?:txt|md|markdown|json|html?|csv|tsv|ts|js|py|ya?ml|pdf|docx?|xlsx?|pptx?|png|jpe?g|gif|zip|log|mp3|mp4)\b/gi;

/** Quoted strings, URLs, e-mail addresses and paths of `text`, in order. */
export function textMentions(text: string): Mention[] {
  const found: Mention[] = [];
  for (const match of text.matchAll(QUOTED)) {
    const value = match.slice(1).find((g) => g !== undefined) ?? '';
    if (value.trim()) found.push({ kind: 'quoted', value, start: match.index, end: match.index + match[0].length });
  }
  const inQuote = (at: number) => found.some((m) => m.kind === 'quoted' && at >= m.start && at < m.end);
  for (const match of text.matchAll(URL))
    if (!inQuote(match.index)) found.push({ kind: 'url', value: match[0], start: match.index, end: match.index + match[0].length });
  for (const match of text.matchAll(EMAIL))
    if (!inQuote(match.index)) found.push({ kind: 'email', value: match[0], start: match.index, end: match.index + match[0].length });
  for (const match of text.matchAll(PATH)) {
    const start = match.index;
    if (inQuote(start) || found.some((m) => start < m.end && start + match[0].length > m.start)) continue;
    found.push({ kind: 'path', value: match[0], start, end: start + match[0].length });
  }
  return found.sort((a, b) => a.start - b.start);
}

/** What a string parameter holds, from its name and description: it decides which words introduce its value. */
export type Role =
  'text' | 'query' | 'person' | 'place' | 'origin' | 'destination' | 'title' | 'creator' | 'language' | 'sourceLanguage' | 'identifier' | 'currency' | 'other';

const ROLE_WORDS: ReadonlyArray<[Role, RegExp]> = [
  ['currency', /^(currency|from_currency|to_currency|base_currency|target_currency|currency_code)$/],
  ['identifier', /^(id|code|symbol|ticker|sku|flight_?number|order_?id|tracking_?number|confirmation|booking_?id|reference|iata|isbn|plate)$/],
  ['origin', /^(from|origin|source|departure|depart|start|pickup|pick)$/],
  ['destination', /^(to|destination|arrival|dest|dropoff|target)$/],
  ['sourceLanguage', /^(source_language|from_language|source_lang)$/],
  ['language', /^(language|lang|locale|target_language|to_language)$/],
  ['text', /^(text|message|body|content|note|comment|description|prompt|reason|caption|msg|sms|reply|memo|details)$/],
  ['query', /^(query|q|search|keywords?|terms?|topic|subject|question|about)$/],
  ['person', /^(recipients?|contacts?|person|attendees?|user|username|who|sender|friend|people|invitees?|assignee|to|cc|bcc|with|participants?|guests?)$/],
  ['place', /^(location|city|place|region|address|country|where|venue|area|town|near|cinema|restaurant|airport|station|zone|timezone|state|room|rooms)$/],
  [
    'title',
    /^(title|name|playlist|song|movie|film|book|album|track|show|event|folder|archive|filename|channel|list|item|product|task|label|tag|hotel|restaurant)$/,
  ],
  ['creator', /^(director|author|artist|actor|composer|writer|band|singer|brand|by)$/],
];

const roles = new WeakMap<Param, Role>();

/** The role of a string parameter (read once per parameter: parameters are kept per schema). */
export function roleOf(param: Param): Role {
  let role = roles.get(param);
  if (role === undefined) roles.set(param, (role = readRole(param)));
  return role;
}

function readRole(param: Param): Role {
  const name = param.name.toLowerCase();
  const named = ROLE_WORDS.find(([, pattern]) => pattern.test(name))?.[0];
  // "to" is a recipient when the parameter lists people or its description says so, not a destination.
  if (named === 'destination' && (param.type === 'array' || /recipient|person|contact|e-?mail|phone|who/i.test(param.description))) return 'person';
  if (named) return named;
  if (/(^|_)(id|number|code)$/.test(name) && param.type === 'string') return 'identifier';
  for (const word of [...param.nameWords].reverse()) for (const [role, pattern] of ROLE_WORDS) if (pattern.test(word)) return role;
  const description = fold(param.description);
  if (/\b(city|place|location|country|region)\b/.test(description)) return 'place';
  if (/\b(recipient|phone number|contact|person|e-?mail address)\b/.test(description)) return 'person';
  if (/\b(text|message|body|content)\b/.test(description)) return 'text';
  return 'other';
}

/** Words (folded) after which a value of each role starts. */
const INTRODUCERS: Readonly<Record<Role, readonly string[]>> = {
  text: ['saying', 'says', 'say', 'that', 'text', 'message', 'reading', 'with', 'disant', 'diciendo', 'dizendo', 'dicendo', 'sagt', 'mit'],
  query: ['for', 'about', 'on', 'regarding', 'mentioning', 'containing', 'sur', 'sobre', 'uber', 'su', 'de', 'pour', 'para', 'nach'],
  person: ['to', 'for', 'with', 'a', 'à', 'an', 'para', 'per', 'pour', 'con', 'mit', 'avec', 'com'],
  place: ['in', 'at', 'near', 'for', 'around', 'à', 'en', 'a', 'em', 'no', 'na', 'in', 'im', 'bei', 'nach', 'dans', 'para', 'per'],
  origin: ['from', 'de', 'desde', 'von', 'da', 'dal', 'ab', 'depuis'],
  destination: ['to', 'into', 'a', 'à', 'para', 'nach', 'pour', 'per', 'al', 'au', 'towards'],
  title: [
    'called',
    'named',
    'titled',
    'entitled',
    'appelee',
    'appele',
    'llamada',
    'llamado',
    'chamada',
    'chamado',
    'chiamata',
    'chiamato',
    'namens',
    'namen',
    'heißt',
    'see',
    'watch',
    'for',
    'para',
    'pour',
    'per',
    'fur',
  ],
  creator: ['by', 'from', 'de', 'von', 'di', 'por', 'starring', 'featuring', 'with', 'avec', 'con', 'mit', 'com'],
  language: ['into', 'to', 'in', 'en', 'al', 'auf', 'para', 'in'],
  identifier: [],
  currency: ['to', 'into', 'in', 'en', 'a', 'nach', 'para', 'in'],
  sourceLanguage: ['from', 'de', 'desde', 'aus', 'da'],
  other: [],
};

/** Words at which a phrase value stops: they introduce something else. */
const BOUNDARIES = new Set(
  (
    "to from in at on for by with about saying says and then but or into near via around before after until when while because so which who that that's which's who's " +
    'under over below above than less more cheaper within without except unter uber ohne sous sans moins sin bajo menos sotto senza sem abaixo ' +
    'please tomorrow tmrw tmr today tonight tonite yesterday pour avec dans sur et de à para con en y sobre mit für nach und von bei com e em per su ' +
    'le la les du des au aux el los las del al il lo gli della dal am im um der die das dem den zum zur ao do da no na a o'
  ).split(' '),
);

/** Whether a word ends a phrase value (it introduces something else). */
export function isBoundary(word: string): boolean {
  return BOUNDARIES.has(word);
}

/** Role-specific phrase length: text runs to the end of the clause; names are short. */
const MAX_WORDS: Readonly<Record<Role, number>> = {
  identifier: 2,
  currency: 1,
  text: 200,
  query: 12,
  person: 4,
  place: 5,
  origin: 5,
  destination: 5,
  title: 8,
  creator: 4,
  language: 2,
  sourceLanguage: 2,
  other: 8,
};

/**
 * The phrase after token `from` (exclusive), for a value of `role`: the words up to the next
 * boundary word, punctuation, a taken span, or the role's length. Text values run on past
 * boundary words. Returns token indices `[first, last]` or undefined.
 */
export function phraseAfter(
  text: string,
  tokens: readonly Token[],
  from: number,
  role: Role,
  taken: ReadonlyArray<{ start: number; end: number }>,
  language: Language = 'en',
): [number, number] | undefined {
  let first = from + 1;
  // Skip determiners, possessives and other function words right after the introducer ("to my mom", "in the Alps", "nach einem Staubsauger").
  while (
    role !== 'text' &&
    first < tokens.length &&
    (/^(the|a|an|my|our|your|his|her|their|le|la|les|el|los|las|der|die|das|o|os|il|mon|ma|mes|mi|mis|meu|minha|mein|meine)$/.test(tokens[first]!.word) ||
      (isStopWord(tokens[first]!.word, language) &&
        !BOUNDARIES.has(tokens[first]!.word) &&
        tokens[first]!.word !== 'of' &&
        !/^\p{Lu}/u.test(text.slice(tokens[first]!.start))))
  )
    first++;
  if (first >= tokens.length) return undefined;
  const isTaken = (i: number) => taken.some((t) => tokens[i]!.start < t.end && tokens[i]!.end > t.start);
  if (isTaken(first)) return undefined;
  let last = first;
  const limit = MAX_WORDS[role];
  // A name written with capitals ends where the capitals end ("Hamburg jetzt", "Paris tomorrow").
  const capitalised =
    (role === 'person' || role === 'place' || role === 'creator' || role === 'origin' || role === 'destination') &&
    /^\p{Lu}/u.test(text.slice(tokens[first]!.start));
  const connector = /^(de|del|da|di|do|dos|van|von|der|of|la|le|el|du|des|y|e|and|&)$/;
  for (let i = first + 1; i < tokens.length && i - first < limit; i++) {
    const gap = text.slice(tokens[i - 1]!.end, tokens[i]!.start);
    if (isTaken(i)) break;
    if (role !== 'text' && /[,;:.!?()\n]/.test(gap)) break;
    if (capitalised && !/^[\p{Lu}\p{N}]/u.test(text.slice(tokens[i]!.start))) {
      if (!(connector.test(tokens[i]!.word) && i + 1 < tokens.length && /^\p{Lu}/u.test(text.slice(tokens[i + 1]!.start)))) break;
      last = i;
      continue;
    }
    if (role !== 'text' && BOUNDARIES.has(tokens[i]!.word) && !capitalised) break;
    if (role === 'text' && /[;\n]/.test(gap)) break;
    last = i;
  }
  return [first, last];
}

/** Indices of tokens in `tokens` that introduce a value of `role` for `param` (its own name words count too). */
/** Who a creator is: a cast member is "with" or "starring" in a film, its maker is "by". */
const CAST = /^(actor|actress|cast|star|starring)$/;
const CAST_INTRODUCERS = new Set(['starring', 'featuring', 'with', 'avec', 'con', 'mit', 'com']);

export function introducerIndices(tokens: readonly Token[], param: Param, role: Role, language: Language): number[] {
  // "a"/"an" introduce a person or place in Spanish, Italian, Portuguese and German ("a Paul", "an Anna"), never in English.
  let own = language === 'en' ? INTRODUCERS[role].filter((w) => w !== 'a' && w !== 'an') : INTRODUCERS[role];
  if (role === 'creator') {
    const cast = param.nameWords.some((w) => CAST.test(w));
    own = own.filter((w) => CAST_INTRODUCERS.has(w) === cast);
  }
  // The parameter's own name words first, then the role's introducers in the order listed (the most telling first: "in Chicago" before "for Oppenheimer" for a city).
  const words = [...param.nameWords.filter((w) => w.length > 2 && !BOUNDARIES.has(w)), ...own];
  const rank = (word: string) => words.indexOf(word);
  const found: number[] = [];
  tokens.forEach((token, i) => {
    if (rank(token.word) >= 0) found.push(i);
  });
  return found.sort((a, b) => rank(tokens[a]!.word) - rank(tokens[b]!.word) || a - b);
}

/**
 * An identifier written in the clause: a code of capitals and digits ("BA 117", "LH 2034",
 * "88-1042", "#4471"), a ticker in capitals ("NVDA"), or a long number, outside `taken`.
 */
export function identifierIn(text: string, taken: ReadonlyArray<{ start: number; end: number }>): Mention | undefined {
  const patterns = [
    /(?<![\p{L}\p{N}])(?:[A-Z]{1,3}\s?\d{2,6}|\d+(?:-\d+)+|#?[A-Z0-9]*\d[A-Z0-9-]{2,}|[A-Z]{2,6}\d{1,2})(?![\p{L}\p{N}])/gu,
    /(?<![\p{L}\p{N}])[A-Z]{2,5}(?![\p{L}\p{N}])/gu,
    /(?<![\p{L}\p{N}.,])#?\d{3,}(?![\p{L}\p{N}])/gu,
  ];
  for (const pattern of patterns) {
    for (const match of text.matchAll(pattern)) {
      const start = match.index;
      const end = start + match[0].length;
      if (taken.some((t) => start < t.end && end > t.start)) continue;
      return { kind: 'quoted', value: match[0].replace(/^#/, ''), start, end };
    }
  }
  return undefined;
}

/**
 * A code with a shape no number has — letters then digits ("UA 88", "AF 22", "BA117"), or
 * digits joined by hyphens ("88-1042") — outside `taken`. Read before numbers, so "book UA 88"
 * does not give 88 to a count.
 */
export function codeIn(text: string, taken: ReadonlyArray<{ start: number; end: number }>): Mention | undefined {
  for (const match of text.matchAll(/(?<![\p{L}\p{N}])(?:[A-Z]{1,3}\s?\d{1,6}|\d+(?:-\d+)+)(?![\p{L}\p{N}])/gu)) {
    const start = match.index;
    const end = start + match[0].length;
    if (!taken.some((t) => start < t.end && end > t.start)) return { kind: 'quoted', value: match[0], start, end };
  }
  return undefined;
}

/**
 * A phone number written in the clause: an optional "+country", then groups of digits joined by
 * spaces, dots or hyphens, seven digits or more in all ("555-0142", "+44 7700 900123",
 * "612 345 678"), outside `taken`; not a date ("2026-03-11") nor the digits of an account number
 * that starts with letters ("DE89 3704 …").
 */
export function phoneIn(text: string, taken: ReadonlyArray<{ start: number; end: number }>): Mention | undefined {
  for (const match of text.matchAll(/(?<![\p{L}\p{N}+.,])(?:\+\d{1,3}[\s.-]?)?(?:\(\d{2,4}\)[\s.-]?)?\d{2,4}(?:[\s.-]\d{2,6}){1,4}(?![\p{L}\p{N}]|[.,]\d)/gu)) {
    const start = match.index;
    const end = start + match[0].length;
    const digits = match[0].replace(/\D/g, '').length;
    if (digits < 7 || digits > 15 || /^\d{4}-\d{2}-\d{2}$/.test(match[0]) || /[\p{L}]{2}\d{2}\s$/u.test(text.slice(Math.max(0, start - 5), start))) continue;
    if (taken.some((t) => start < t.end && end > t.start)) continue;
    return { kind: 'quoted', value: match[0], start, end };
  }
  return undefined;
}
