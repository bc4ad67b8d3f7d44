/**
 * Language codes by the names people write: "into Spanish", "ins Italienische", "en anglais" for
 * an enum of ISO 639 codes ("es", "it", "en"). The names come from the engine's own CLDR data
 * through `Intl.DisplayNames` (in the request languages the planner reads, and each language's
 * own name for itself) rather than a hand-kept table: every engine CUGAr runs on (Node, browsers,
 * workerd) carries it, and an engine without it simply matches no names.
 */
import { stem, type Language } from '../ranking/stem.ts';
import { fold } from '../ranking/tokens.ts';

/** The locales whose names for languages a request may use: the languages the planner reads. */
const LOCALES: readonly Language[] = ['en', 'fr', 'es', 'de', 'it', 'pt'];
/** Enums up to this many options are checked for being language codes (longer lists are something else, or every language). */
const MOST_OPTIONS = 300;
const CODE = /^[a-z]{2,3}(?:-[A-Za-z]{2,4})?$/;

type Names = ReadonlyMap<string, string>;
let displayNames: Intl.DisplayNames[] | null | undefined;

function namers(): Intl.DisplayNames[] | null {
  if (displayNames !== undefined) return displayNames;
  try {
    displayNames = LOCALES.map((language) => new Intl.DisplayNames([language], { type: 'language', fallback: 'none' }));
  } catch {
    displayNames = null;
  }
  return displayNames;
}

/** One language's names, folded: in each request language, and its own. */
function namesOf(code: string): string[] {
  const all = namers();
  if (!all) return [];
  const names: string[] = [];
  const add = (name: string | undefined) => {
    if (name && fold(name) !== fold(code)) names.push(fold(name));
  };
  try {
    for (const namer of all) add(namer.of(code));
    add(new Intl.DisplayNames([code], { type: 'language', fallback: 'none' }).of(code));
  } catch {
    return [];
  }
  return names;
}

/**
 * When every option of an enum is a language code the engine can name, a map from the stems of
 * the one-word names of those languages to their code; null otherwise (judged once per list:
 * a schema's enum keeps its list).
 */
export function languageOptions(options: readonly string[]): Names | null {
  let known = byList.get(options);
  if (known === undefined) byList.set(options, (known = namesFor(options)));
  return known;
}

/** The same list of options is met plan after plan (a schema's enum): judged once per list. */
const byList = new WeakMap<readonly string[], Names | null>();

function namesFor(options: readonly string[]): Names | null {
  if (options.length < 2 || options.length > MOST_OPTIONS || !options.every((o) => CODE.test(o))) return null;
  const stems = new Map<string, string>();
  for (const code of options) {
    const names = namesOf(code);
    if (names.length === 0) {
      stems.clear();
      break;
    }
    for (const name of names) {
      if (/\s/.test(name)) continue;
      for (const language of LOCALES) {
        const form = stem(name, language);
        // Two codes with one name ("Chinese" for zh and zh-Hant) name neither for certain.
        if (stems.has(form) && stems.get(form) !== code) stems.set(form, '');
        else stems.set(form, code);
      }
    }
  }
  return stems.size > 0 ? stems : null;
}

/** The code a request word names among `names` (by its stem in the request's language, or in English), if any. */
export function namedLanguage(names: Names, word: string, language: Language): string | undefined {
  if (word.length < 4) return undefined;
  const code = names.get(stem(word, language)) || names.get(stem(word, 'en'));
  return code || undefined;
}
