/**
 * Stemming and a cheap language guess. Stems come from the Snowball stemmers of
 * `@orama/stemmers` (pure JS, one small module per language): English for every word, and the
 * request's own language when function words show it is French, Spanish, German, Portuguese or
 * Italian, so "réservations" and "réserver" meet, and "movies" meets "movie".
 */
import { stemmer as english } from '@orama/stemmers/english';
import { stemmer as french } from '@orama/stemmers/french';
import { stemmer as german } from '@orama/stemmers/german';
import { stemmer as italian } from '@orama/stemmers/italian';
import { stemmer as portuguese } from '@orama/stemmers/portuguese';
import { stemmer as spanish } from '@orama/stemmers/spanish';
import { fold, type Token } from './tokens.ts';

/** The languages the planner reads. */
export const LANGUAGES = ['en', 'fr', 'es', 'de', 'pt', 'it'] as const;
export type Language = (typeof LANGUAGES)[number];

const STEMMERS: Readonly<Record<Language, (word: string) => string>> = { en: english, fr: french, es: spanish, de: german, pt: portuguese, it: italian };

/**
 * Function words of each language (folded): they say which language a request is in and carry
 * no intent. Short, hand-picked lists of the most frequent articles, pronouns, prepositions
 * and auxiliaries; words shared between languages count for each.
 */
export const STOP_WORDS: Readonly<Record<Language, ReadonlySet<string>>> = {
  en: new Set(
    (
      'a an the and or but if of to in on at by for with from into onto about as is are was were be been being am do does did done have has had ' +
      'i me my mine we us our you your he him his she her it its they them their this that these those there here what which who whom ' +
      'whose how when where why can could would should will shall may might must please pls plz kindly just also some any all me ' +
      "i'm i'd i'll i've you're it's what's that's let's let up out over so than then too very not no yes ok okay hey hi hello thanks " +
      "thank want wanna need needs would i’d many much how's where's who's there's like"
    ).split(' '),
  ),
  fr: new Set(
    (
      'le la les un une des du de d l au aux et ou mais a à en dans sur pour par avec sans ce cet cette ces mon ma mes ton ta tes son sa ses ' +
      'notre nos votre vos leur leurs je tu il elle nous vous ils elles me moi te toi se qui que quoi quel quelle quels quelles est sont ' +
      'suis es etre être ai as avons avez ont pas ne plus tres très sil s il vous plait plaît svp pouvez peux peut veux voudrais ' +
      "j'ai c'est qu'il d'un d'une l'heure combien"
    )
      .split(' ')
      .map(fold),
  ),
  es: new Set(
    (
      'el la los las un una unos unas del de al y o pero en con sin para por sobre mi mis tu tus su sus nuestro nuestra yo tú él ella ' +
      'nosotros ellos ellas me te se le les lo que qué cual cuál quien quién como cómo cuando cuándo donde dónde es son está están ser ' +
      'estar hay no muy favor puedes puede quiero quisiera necesito cuánto cuánta cuántos cuántas'
    )
      .split(' ')
      .map(fold),
  ),
  de: new Set(
    (
      'der die das den dem des ein eine einen einem einer und oder aber in im an am auf für mit ohne von vom zu zum zur bei nach über ' +
      'ich du er sie es wir ihr mich mir dich dir uns euch mein meine dein deine sein seine ist sind war bin bist nicht kein keine ' +
      'was wer wie wann wo warum bitte kannst können könnte möchte will ich als beim vom ins alle allen hat habe'
    )
      .split(' ')
      .map(fold),
  ),
  pt: new Set(
    (
      'o a os as um uma uns umas do da dos das de no na nos nas em e ou mas com sem para por pelo pela meu minha meus minhas seu sua ' +
      'eu tu ele ela nós vocês eles elas me te se lhe que qual quem como quando onde é são está estão ser estar não muito favor ' +
      'pode podes quero gostaria preciso você ao aos quanto quanta quantos quantas'
    )
      .split(' ')
      .map(fold),
  ),
  it: new Set(
    (
      'il lo la i gli le un uno una di del della dei delle da dal dalla a al alla ai agli in nel nella su sul sulla per con senza e o ma mio mia miei ' +
      'mie tuo tua suo sua io tu lui lei noi voi loro mi ti si ci vi che chi come quando dove perché è sono sta stanno essere non ' +
      'molto favore puoi può voglio vorrei devo quanto quanta quanti quante qual quale ha hanno'
    )
      .split(' ')
      .map(fold),
  ),
};

/** Letters that only some of the languages write, folded away by `fold` but telling before it. */
const LETTER_HINTS: ReadonlyArray<[RegExp, Language]> = [
  [/[ñ¿¡]/, 'es'],
  [/[ßäöü]/, 'de'],
  [/[ãõ]/, 'pt'],
  [/[èìòù]/, 'it'],
  [/[çèêëîïôœûù]/, 'fr'],
];

/** Each function word → the languages it is one of: one look-up per word instead of one per language. */
const STOP_WORD_LANGUAGES: ReadonlyMap<string, readonly Language[]> = (() => {
  const map = new Map<string, Language[]>();
  for (const language of LANGUAGES) for (const word of STOP_WORDS[language]) map.set(word, [...(map.get(word) ?? []), language]);
  return map;
})();

/**
 * The request's language, guessed from its function words (and a few letters only some
 * languages use). English unless another language clearly has more evidence.
 */
export function guessLanguage(text: string, tokens: readonly Token[]): Language {
  const score: Record<Language, number> = { en: 0.5, fr: 0, es: 0, de: 0, pt: 0, it: 0 };
  for (const token of tokens) for (const language of STOP_WORD_LANGUAGES.get(token.word) ?? []) score[language] += 1;
  const lower = text.slice(0, 2048).toLowerCase();
  for (const [pattern, language] of LETTER_HINTS) if (pattern.test(lower)) score[language] += 1.5;
  let best: Language = 'en';
  for (const language of LANGUAGES) if (score[language] > score[best]) best = language;
  return best;
}

/**
 * One bounded memo per language, keyed by the word itself: a lookup builds no `language:word`
 * key (hashing such a fresh string cost more than the lookup it served).
 */
export function memoPerLanguage<T>(): Readonly<Record<Language, Map<string, T>>> {
  return { en: new Map(), fr: new Map(), es: new Map(), de: new Map(), pt: new Map(), it: new Map() };
}

const stems = memoPerLanguage<string>();
/** Words kept per language by the stem memo. */
const CACHE_LIMIT = 20_000;

/**
 * English words the Snowball stemmer folds into a different word ("news" → "new", "glasses" →
 * "glass" is fine, but "news" must not meet "new"): kept as they are.
 */
const KEEP_ENGLISH: ReadonlySet<string> = new Set(['news', 'lyrics', 'politics', 'physics', 'maths', 'analytics', 'series', 'species']);

/** The stem of a folded `word` in `language` (memoised; the memo is bounded). */
export function stem(word: string, language: Language = 'en'): string {
  const cache = stems[language];
  let value = cache.get(word);
  if (value === undefined) {
    if (cache.size >= CACHE_LIMIT) cache.clear();
    // Snowball stemmers expect plain lower-case words; very long "words" are not words.
    value = word.length > 40 || /\p{N}/u.test(word) || (language === 'en' && KEEP_ENGLISH.has(word)) ? word : fold(STEMMERS[language](word));
    cache.set(word, value);
  }
  return value;
}

/** Words a question opens with, in the six languages (folded). */
const QUESTION_START =
  /^(what|what's|whats|which|when|where|who|whom|whose|why|how|how's|is|are|was|were|do|does|did|any|can|could|will|would|should|have|has|que|quel|quelle|quels|quelles|quoi|combien|ou|quand|comment|est-ce|qué|que|cuál|cual|cuándo|cuando|dónde|donde|cómo|como|cuánto|cuanto|cuántos|hay|wie|was|wann|wo|welche|welcher|welches|wer|gibt|ist|sind|hat|habe|qual|quais|quando|onde|quanto|quantos|che|quale|quali|dove|come|quante|quanti|c'è)$/;

/** Whether a clause opening with `word` (folded) asks a question ("what", "do", "combien", "wann"). */
export function opensQuestion(word: string): boolean {
  return QUESTION_START.test(word);
}

/** Whether `word` is a function word of `language` (English function words always count). */
export function isStopWord(word: string, language: Language): boolean {
  return STOP_WORDS.en.has(word) || (language !== 'en' && STOP_WORDS[language].has(word));
}
