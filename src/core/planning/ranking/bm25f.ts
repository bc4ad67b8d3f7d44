/**
 * BM25F scoring of a request clause against a {@link ToolIndex}: each content word of the
 * clause adds, for each tool, its background weight times the saturated field-weighted
 * frequency of its best matching term — an exact stem, or (at a discount) a synonym group.
 */
import { guessLanguage, opensQuestion, stem, type Language } from './stem.ts';
import { termsOf, type WordTerms } from './terms.ts';
import { readTokens, tokenize, type Token } from './tokens.ts';
import { editDistance } from './editDistance.ts';
import { currencyCode } from '../slots/numbers.ts';
import { deletions, MIN_PREFIX, type Posting, type ToolIndex } from './toolIndex.ts';

export { SATURATION } from './toolIndex.ts';
/** How much a synonym-group match counts against an exact stem match. */
const GROUP_DISCOUNT = 0.6;
/** How much a word one letter away from a tool's word counts. */
const TYPO_DISCOUNT = 0.8;
/** How much a word of the same family with another stem counts ("percent" for "percentage"). */
const FAMILY_DISCOUNT = 0.8;
/** How much a value word (a name, a date word, quoted text) counts: it says what with, not what to do. */
const VALUE_DISCOUNT = 0.3;

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
  /** Whether the clause asks a question (it wants to know, rather than to change something). */
  question: boolean;
}

const CEILING =
  /\b(?:under|below|less than|cheaper than|at most|up to|max(?:imum)?|unter|moins de|menos de|sotto)\s+(?:[$€£¥₹]\s*\d|\d[\d.,]*\s*(?:[$€£¥₹]|dollars?|euros?|pounds?))/i;

/** Symbols and stock phrases that carry intent, each with the word it stands for: "15%" asks about a percentage, "£1,200" about money. */
const SYMBOLS: ReadonlyArray<readonly [RegExp, string]> = [
  [/\d\s*%|%\s*\d/, 'percent'],
  // An amount as a ceiling is a price ("under $100", "less than 50 €"), not money to send or convert.
  [CEILING, 'price'],
  [/[$€£¥₹]\s*\d|\d\s*[$€£¥₹]/, 'currency'],
  // A temperature written with its degree sign ("68°F", "21 °C").
  [/\d\s*°\s*[CF](?![\p{L}])/u, 'temperature'],
  // What one earns ("how much does a nurse make", "quanto ganha um engenheiro") asks for a salary.
  [
    /\bhow much (?:does|do|would|will|can) (?:an? |the )?[\p{L}-]+(?: [\p{L}-]+)? (?:make|earn)\b|\b(?:quanto ganha|cu[áa]nto gana|combien gagne|quanto guadagna)\b/iu,
    'salary',
  ],
  // The stock question for the way somewhere asks for directions ("how do I get to", "wie komme ich zum Bahnhof").
  [
    /\bhow (?:do|can|would) (?:i|we) get to\b|\bwie komme?n? (?:ich|wir) (?:zu|zum|zur|nach|ins?)\b|\bcomment (?:aller|je vais|on va|puis-je aller)\b|\bc[oó]mo (?:llego|voy|se llega)\b|\bcomo (?:chego|vou|se chega)\b|\bcome (?:arrivo|vado|si arriva)\b/i,
    'directions',
  ],
  // What one has on a day asks for one's calendar ("do I have anything on March 12?", "what do I have on Wednesday").
  [/\b(?:what do i have|do i have (?:anything|something|plans|meetings?)|am i (?:free|busy)) (?:on|for|at|this|next|tomorrow|today|tonight)\b/i, 'calendar'],
  // Arithmetic written out asks for a calculation; a day written as 3/18 and a code as 555-0142 do not.
  [/\d\s*(?:[+*×÷^]|\*\*|\s[-/]\s)\s*\(?\s*\d|(?<![\d/])(?!(?:0?[1-9]|1[0-2])\/(?:0?[1-9]|[12]\d|3[01])(?![\d/]))\d+\/\d/, 'calculate'],
  // The stock question for the time of day asks for a clock, in any language ("what time is it in Tokyo?").
  [
    /\b(?:what|waht|wat) time is it\b|\b(?:what|waht|wat)(?:'s| is) the time\b|\bque horas s[aã]o\b|\bche ore sono\b|\bwie sp[aä]t ist es\b|\bquelle heure est[- ]il\b|\bqu[eé] hora es\b/i,
    'clock',
  ],
  // "What does X mean?" asks for a definition, and "how do you say X in Y?" for a translation, in any language read.
  [
    /\bwhat does\b.{1,60}\bmean\b|\bmeaning of\b|\bque veut dire\b|\bqu[ée] significa\b|\bwas bedeutet\b|\bo que significa\b|\bcosa significa\b|\bche cosa vuol dire\b|\bcosa vuol dire\b/i,
    'define',
  ],
  [/\bhow do (?:you|i) say\b|\bcomment (?:dit-on|on dit|dire)\b|\bc[oó]mo se dice\b|\bwie sagt man\b|\bcome si dice\b|\bcomo se diz\b/i, 'translate'],
];

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

/** The English stems of the value words, which other languages' date words translate to. */
const VALUE_STEMS: ReadonlySet<string> = new Set([...VALUE_WORDS].map((word) => stem(word)));

/** "Remind me to …" in the six languages: what follows is what to be reminded of. */
const REMINDED_OF =
  /\bremind me\b.{0,40}?\b(?:to|about|that|of)\b|\brappelle[- ]moi\b.{0,40}?(?:\bde |\bd'|\bd’|\bque )|\berinnere mich\b.{0,40}?\b(?:an|daran)\b|\brecu[ée]rdame\b.{0,40}?\b(?:que|de)\b|\bricordami\b.{0,40}?(?:\bdi |\bche |\bd')|\blembre-me\b.{0,40}?\b(?:de|que)\b/i;

/**
 * Words that frame a request rather than say what it is about, in the six languages: "what day
 * of the week …" and "how many days …" (date arithmetic, not a calendar's entries), and "tell me
 * …" ("me conta uma piada" is no account).
 */
const FRAMES =
  /\b(?:tell me|me conta|conta-me|cu[ée]ntame|raconte-moi|erz[äa]hle? mir|raccontami)\b|\b(?:what|which) day of the week\b|\bhow many days\b|\bquel jour de la semaine\b|\bcombien de jours\b|\bqu[ée] d[ií]a de la semana\b|\bcu[áa]ntos d[ií]as\b|\bwelcher wochentag\b|\bwie viele tage\b|\bche giorno della settimana\b|\bquanti giorni\b|\bque dia da semana\b|\bquantos dias\b/gi;

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
  const tokens = readTokens(text);
  const language = guessLanguage(text, tokens);
  const spans = valueSpans(text);
  // What follows "saying …" or a colon (not a clock time's) is the content to send or store, not intent.
  const content = /\b(?:saying|says|that says|disant|diciendo|dizendo|dicendo)\b|(?<!\d):(?!\d)|^\s*[\p{L}]+(?:\s+[\p{L}]+)?\s+that\b/iu.exec(text);
  if (content) spans.push([/^\s*[\p{L}]/u.test(content[0]) && /that$/i.test(content[0]) ? content.index + content[0].length : content.index, text.length]);
  // What one asks to be reminded of is content too ("remind me to send the quote" asks for a reminder, not a sending).
  const reminder = REMINDED_OF.exec(text);
  if (reminder) spans.push([reminder.index + reminder[0].length, text.length]);
  // The words of a request's frame are not words to match.
  const frames = [...text.matchAll(FRAMES)].map((m) => [m.index, m.index + m[0].length] as const);
  const words: QueryWord[] = [];
  tokens.forEach((token, i) => {
    if (frames.some(([start, end]) => token.start >= start && token.end <= end)) return;
    const terms = termsOf(token.word, language);
    if (!terms) return;
    const first = text.charAt(token.start);
    // German writes every noun with a capital: there a capital says nothing of a name.
    const capitalised = language !== 'de' && i > 0 && first !== first.toLowerCase() && !/[.!?]\s*$/.test(text.slice(0, token.start));
    const inSpan = spans.some(([s, e]) => token.start >= s && token.end <= e);
    // A date word of any language is a value too ("morgen", "mañana" translate to "tomorrow").
    const dateWord = VALUE_WORDS.has(token.word) || (language !== 'en' && terms.stems.some((term) => VALUE_STEMS.has(term)));
    words.push({ token, terms, value: inSpan || capitalised || dateWord });
  });
  for (const [pattern, word] of SYMBOLS) {
    // An amount read as a price (listed before money) is not money as well.
    if (word === 'currency' && words.at(-1)?.token.word === 'price') continue;
    const match = pattern.exec(text);
    const terms = match ? termsOf(word, 'en') : null;
    if (match && terms) words.push({ token: { word, raw: match[0], start: match.index, end: match.index + match[0].length }, terms, value: false });
  }
  // ISO 4217 codes next to an amount, or two of them, speak of money as a symbol does ("100 CHF to EUR").
  if (!words.some((w) => w.token.word === 'currency')) {
    const codes = [...text.matchAll(/\b[A-Z]{3}\b/g)].filter((m) => currencyCode(m[0]) !== undefined);
    const amount = codes.find((m) => /\d\s*$/.test(text.slice(0, m.index)) || /^\s*\d/.test(text.slice(m.index + 3)));
    const first = amount ?? (codes.length >= 2 ? codes[0] : undefined);
    const terms = first ? termsOf('currency', 'en') : null;
    if (first && terms) words.push({ token: { word: 'currency', raw: first[0], start: first.index, end: first.index + 3 }, terms, value: false });
  }
  const folded = tokens.map((t) => t.word);
  const question = /\?\s*$/.test(text) || /^\s*¿/.test(text) || opensQuestion(folded[0] ?? '') || /^\s*(?:tell me about|explain|describe)\b/i.test(text);
  // A question asks for an answer: tools that answer questions match it, weakly (as a value would).
  if (question) {
    for (const word of ['question', 'answer']) {
      const terms = termsOf(word, 'en');
      if (terms) words.push({ token: { word, raw: '?', start: text.length, end: text.length }, terms, value: true });
    }
  }
  return { language, words, folded, question };
}

/**
 * Score the tools of `index` against `query`: the tools that match at least one word (or that
 * the clause names), each once. A word that occurs twice in the clause counts once.
 */
export function scoreTools(index: ToolIndex, query: Query): ToolScore[] {
  const scratch = scratchOf(index);
  const { scores, best, touched } = scratch;
  const entry = (position: number): ToolScore => (scores[position] ??= { position, score: 0, matchedWeight: 0, matched: [], named: false });
  try {
    const seen = new Set<string>();
    for (const word of query.words) {
      if (seen.has(word.token.word)) continue;
      seen.add(word.token.word);
      let exact = false;
      for (const term of word.terms.stems) {
        const list = index.postings.get(term);
        if (list) {
          raiseAll(list, 1, scratch);
          exact = true;
        }
      }
      // A synonym of a word that says little adds less than it costs to look up.
      if (word.terms.weight >= 1) for (const term of word.terms.groups) raiseAll(index.postings.get(term), GROUP_DISCOUNT, scratch);
      matchFamily(index, word, scratch);
      // A name, a date word or quoted text is not a misspelt tool word.
      if (!exact && !word.value) matchNearWords(index, word, query.language, scratch);
      const weight = word.value ? VALUE_DISCOUNT * word.terms.weight : word.terms.weight;
      for (let t = 0; t < scratch.touchedCount; t++) {
        const position = touched[t]!;
        const scored = scores[position];
        // A tool's first match makes its score with a list of one (most tools match one word; an empty list would grow by many).
        if (scored === undefined)
          scores[position] = { position, score: weight * best[position]!, matchedWeight: weight, matched: [word.token.raw], named: false };
        else {
          scored.score += weight * best[position]!;
          scored.matchedWeight += weight;
          scored.matched.push(word.token.raw);
        }
        best[position] = 0;
      }
      scratch.touchedCount = 0;
    }
    // A tool named outright: its name's letters are the letters of consecutive words of the clause ("send message", "greatest common divisor").
    const starts = index.joinedNameStarts;
    for (let i = 0; i < query.folded.length; i++) {
      let joined = query.folded[i]!;
      if (!starts.has(joined)) continue;
      for (let j = i + 1; j < Math.min(query.folded.length, i + 5); j++) {
        joined += query.folded[j]!;
        if (!starts.has(joined)) break;
        for (const position of index.byJoinedName.get(joined) ?? []) entry(position).named = true;
      }
    }
  } catch (error) {
    // Left clean for the next clause whatever happened.
    scores.fill(undefined);
    best.fill(0);
    scratch.touchedCount = 0;
    throw error;
  }
  // Read out in the tools' order, clearing the scratch space for the next clause.
  const scored: ToolScore[] = [];
  for (let position = 0; position < scores.length; position++) {
    const score = scores[position];
    if (score === undefined) continue;
    scored.push(score);
    scores[position] = undefined;
  }
  return scored;
}

/** What {@link scoreTools} keeps per tool while it scores a clause: cleared again before it returns (planning is synchronous). */
interface Scratch {
  scores: Array<ToolScore | undefined>;
  /** Each tool's best match for the word being scored, 0 when none. */
  best: Float64Array;
  /** The tools the word being scored has raised (the first {@link touchedCount}; the array is kept, not shrunk). */
  touched: number[];
  touchedCount: number;
}

/** The scratch space of each index: a clause allocates no per-tool arrays. */
const scratches = new WeakMap<ToolIndex, Scratch>();

function scratchOf(index: ToolIndex): Scratch {
  let scratch = scratches.get(index);
  if (!scratch) {
    scratch = {
      scores: new Array<ToolScore | undefined>(index.tools.length).fill(undefined),
      best: new Float64Array(index.tools.length),
      touched: [],
      touchedCount: 0,
    };
    scratches.set(index, scratch);
  }
  return scratch;
}

/** Raise each tool of a posting list to its saturated match, discounted. */
function raiseAll(list: Posting | undefined, discount: number, scratch: Scratch): void {
  if (!list) return;
  // Written out rather than through a callback: a fraction passed to a function that is not inlined is boxed on every call.
  const { best, touched } = scratch;
  for (let i = 0; i < list.positions.length; i++) {
    const position = list.positions[i]!;
    const value = discount * list.saturated[i]!;
    const current = best[position]!;
    if (current === 0) touched[scratch.touchedCount++] = position;
    if (value > current) best[position] = value;
  }
}

/**
 * Words of one family whose stems differ ("percent" / "percentage", "calendar" / "calendars'"):
 * a stem of {@link MIN_PREFIX} letters or more meets the tools' stems it begins, and those it
 * begins with, at a discount.
 */
function matchFamily(index: ToolIndex, word: QueryWord, scratch: Scratch): void {
  for (const term of word.terms.stems) {
    if (term.length < MIN_PREFIX || term.includes(':')) continue;
    for (const longer of index.extensions.get(term) ?? []) raiseAll(index.postings.get(longer), FAMILY_DISCOUNT, scratch);
    for (let k = MIN_PREFIX; k < term.length; k++) raiseAll(index.postings.get(term.slice(0, k)), FAMILY_DISCOUNT, scratch);
  }
}

/** A word that matched nothing may be a typo of a tool's word ("wheather"): one edit away, five letters or more. */
function matchNearWords(index: ToolIndex, word: QueryWord, language: Language, scratch: Scratch): void {
  if (word.token.word.length < 5) return;
  const near = new Set<string>();
  for (const key of deletions(word.token.word)) for (const candidate of index.nearWords.get(key) ?? []) near.add(candidate);
  for (const candidate of near) {
    if (candidate === word.token.word || editDistance(candidate, word.token.word, 1) > 1) continue;
    const terms = termsOf(candidate, language) ?? termsOf(candidate, 'en');
    if (!terms) continue;
    // A misspelling is rarer than any word, so it weighs what the word it stands for weighs ("lease" read as "leave" says little).
    const discount = TYPO_DISCOUNT * Math.min(1, terms.weight / word.terms.weight);
    for (const term of terms.stems) raiseAll(index.postings.get(term), discount, scratch);
  }
}

/** The language of a text and its words, for callers that need both. */
export function languageOf(text: string): Language {
  return guessLanguage(text, tokenize(text));
}
