/**
 * Whether a word is a verb a request starts with ("put the blue hoodie in my basket", "set a
 * reminder…", "prends-moi un rendez-vous…"): such a word asks for the action and is never the
 * value a parameter takes. English verbs by stem; the other languages' words through the
 * planner's lexicon, by the English word they translate to.
 */
import { stem, type Language } from '../ranking/stem.ts';
import { translate } from '../ranking/synonyms.ts';

const VERBS: ReadonlySet<string> = new Set(
  (
    'put get see dim find show give take make set turn switch book buy order send text email call play search look check tell let help bring ' +
    'keep add create delete remove cancel pay transfer move rename start stop open close lock unlock record log schedule remind share compare ' +
    'convert calculate compute translate track scale solve estimate define summarize compress zip unzip reserve rent hire post write save store ' +
    'upload download print list display fetch grab pull adjust adapt change update edit modify increase decrease raise lower mute unmute dial ' +
    'ring navigate go drive walk ride fly wire pick choose select run launch vacuum clean note mark invite apply submit request return refund'
  )
    .split(' ')
    .map((word) => stem(word)),
);

/** Whether `word` (folded) is a verb of an action, in `language` or in English. */
export function isRequestVerb(word: string, language: Language): boolean {
  if (VERBS.has(stem(word))) return true;
  const english = language === 'en' ? undefined : translate(word, language);
  return english !== undefined && VERBS.has(english);
}
