/**
 * What a word means to ranking: its stems (English, its own language's, the English word the
 * lexicon translates it to), the synonym groups those belong to, and how informative it is.
 * Requests and tool texts go through the same function, so both sides meet on the same terms.
 */
import { BACKGROUND_CAP, backgroundWeight } from './backgroundIdf.ts';
import { LANGUAGES, isStopWord, memoPerLanguage, stem, type Language } from './stem.ts';
import { groups, kindGroups, translate } from './synonyms.ts';
import { isNumeric } from './tokens.ts';

/** The terms of one content word. */
export interface WordTerms {
  /** Exact terms: English stem, translated English stem, `lang:stem` for other languages. */
  stems: readonly string[];
  /** Synonym groups, as `g:name`. */
  groups: readonly string[];
  /** Background informativeness, 0.2…{@link BACKGROUND_CAP}. */
  weight: number;
}

/** Least weight of a content word: the commonest words still break ties. */
const WEIGHT_FLOOR = 0.2;
/**
 * English stems of the verbs any request may start with ("set a reminder", "get me", "show me"):
 * rarer in film dialogue than in requests, so the background table overrates them.
 */
const GENERIC_VERBS: ReadonlySet<string> = new Set(['set', 'get', 'show', 'give', 'put', 'make', 'take', 'tell', 'let', 'like']);
const GENERIC_WEIGHT = 2;

const memo = memoPerLanguage<WordTerms | null>();
/** Words kept per language by the memo. */
const MEMO_LIMIT = 20_000;

/**
 * The terms of a folded word in `language`, or `null` for function words, numbers and
 * one-letter words (memoised, bounded).
 */
export function termsOf(word: string, language: Language): WordTerms | null {
  const known = memo[language].get(word);
  if (known !== undefined) return known;
  if (memo[language].size >= MEMO_LIMIT) memo[language].clear();
  const value = computeTerms(word, language);
  memo[language].set(word, value);
  return value;
}

function computeTerms(word: string, language: Language): WordTerms | null {
  if (word.length < 2 || isNumeric(word) || word.length > 40 || isStopWord(word, language)) return null;
  const english = stem(word);
  let translated = translate(word, language);
  // A word the English table does not know may be of another language than the guess (short requests show little).
  if (translated === undefined && backgroundWeight(english) === BACKGROUND_CAP) {
    for (const other of LANGUAGES) {
      if (other === 'en' || other === language) continue;
      translated = translate(word, other);
      if (translated !== undefined) break;
    }
  }
  const stems = new Set<string>();
  // A German compound the lexicon does not hold means what its parts mean ("Haustür" → door, house; "Sparkonto" → account).
  if (translated === undefined && language === 'de') for (const part of compoundParts(word)) stems.add(part);
  if (translated !== undefined) stems.add(translated);
  stems.add(english);
  if (language !== 'en') stems.add(`${language}:${stem(word, language)}`);
  const groupSet = new Set<string>();
  for (const s of stems) for (const g of [...groups(s), ...kindGroups(s)]) groupSet.add(`g:${g}`);
  const background = Math.max(WEIGHT_FLOOR, backgroundWeight(translated ?? english));
  const weight = GENERIC_VERBS.has(english) ? Math.min(GENERIC_WEIGHT, background) : background;
  return { stems: [...stems], groups: [...groupSet], weight };
}

/** Shortest part of a German compound that is looked up. */
const MIN_PART = 3;

/**
 * The English stems of a German compound's parts: the longest known last part (the head, what the
 * word names) and, when known, the part before it (a linking "s" or "n" dropped). Empty when no
 * last part is known.
 */
function compoundParts(word: string): string[] {
  for (let k = MIN_PART; k <= word.length - MIN_PART; k++) {
    const head = translate(word.slice(k), 'de');
    if (head === undefined) continue;
    const before = word.slice(0, k);
    const modifier = translate(before, 'de') ?? (/[sn]$/.test(before) ? translate(before.slice(0, -1), 'de') : undefined);
    return modifier === undefined ? [head] : [head, modifier];
  }
  return [];
}
