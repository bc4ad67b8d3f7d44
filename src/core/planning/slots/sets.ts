/**
 * Arrays whose items are chosen, not written: an enum list ("on Saturday and Sunday" → the
 * options `sat`, `sun`; "on weekdays" → Monday to Friday), and what a request leaves out
 * ("without onions", "ohne Speck", "sans lardons") for a parameter that excludes.
 */
import { isStopWord, type Language } from '../ranking/stem.ts';
import { fold, type Token } from '../ranking/tokens.ts';
import type { Filled, Param } from './types.ts';

type Span = { start: number; end: number };

/** The weekdays in six languages (folded), Monday first; an option matches the day whose name it begins. */
const DAYS: readonly (readonly string[])[] = [
  ['monday', 'lundi', 'lunes', 'montag', 'segunda', 'lunedi'],
  ['tuesday', 'mardi', 'martes', 'dienstag', 'terca', 'martedi'],
  ['wednesday', 'mercredi', 'miercoles', 'mittwoch', 'quarta', 'mercoledi'],
  ['thursday', 'jeudi', 'jueves', 'donnerstag', 'quinta', 'giovedi'],
  ['friday', 'vendredi', 'viernes', 'freitag', 'sexta', 'venerdi'],
  ['saturday', 'samedi', 'sabado', 'samstag', 'sabato'],
  ['sunday', 'dimanche', 'domingo', 'sonntag', 'domenica'],
];
const WEEKDAYS = /^(weekdays|workdays|semaine|laborables|werktags|werktage|feriali)$/;
const WEEKEND = /^(weekends?|week-end|wochenende|fin de semana|fim de semana)$/;

/** The day (0 = Monday) an option stands for, when the options are days ("mon", "Monday", "MO"). */
function dayOf(option: string): number | undefined {
  const word = fold(option);
  if (word.length < 2) return undefined;
  const day = DAYS.findIndex((names) => names[0]!.startsWith(word));
  return day < 0 ? undefined : day;
}

/** An array of enum strings filled with the options the clause names, in the options' order. */
export function enumList(param: Param, tokens: readonly Token[], offset: number, taken: readonly Span[]): Filled | undefined {
  const items = param.schema['items'] as Record<string, unknown> | undefined;
  const options = Array.isArray(items?.['enum']) ? items['enum'].filter((v): v is string => typeof v === 'string') : [];
  if (options.length === 0) return undefined;
  const free = (t: Token) => !taken.some((s) => t.start < s.end && t.end > s.start);
  const days = options.map(dayOf);
  const chosen = new Set<number>();
  const spans: Span[] = [];
  for (const token of tokens) {
    // A day's name may sit inside a date already read ("at 9am on Saturday"): it still names a day.
    let hit: number[] = free(token) ? options.flatMap((option, i) => (fold(option) === token.word ? [i] : [])) : [];
    if (hit.length === 0 && days.every((d) => d !== undefined)) {
      const day = DAYS.findIndex((names) => names.some((name) => name === token.word || name === token.word.replace(/s$/, '')));
      if (day >= 0) hit = days.flatMap((d, i) => (d === day ? [i] : []));
      else if (WEEKDAYS.test(token.word)) hit = days.flatMap((d, i) => (d! <= 4 ? [i] : []));
      else if (WEEKEND.test(token.word)) hit = days.flatMap((d, i) => (d! >= 5 ? [i] : []));
    }
    if (hit.length === 0) continue;
    for (const i of hit) chosen.add(i);
    spans.push(token);
  }
  if (chosen.size === 0) return undefined;
  const value = options.filter((_, i) => chosen.has(i));
  return {
    value,
    start: offset + spans[0]!.start,
    end: offset + spans.at(-1)!.end,
    reason: `the ${value.length === 1 ? 'option' : 'options'} named in the request`,
  };
}

/** Words after which a request lists what to leave out. */
const WITHOUT = /^(without|except|excluding|minus|no|ohne|sans|sin|senza|sem|außer|sauf)$/;
/** Parameters that hold what to leave out. */
const EXCLUDING = /^(exclude|excluded|excluding|exclusions?|without|except|avoid|omit|skip|allergens?|not)$/;

/** What follows "without" for a parameter that excludes: the words up to the next punctuation, split into a list. */
export function exclusions(
  param: Param,
  clause: string,
  tokens: readonly Token[],
  language: Language,
  offset: number,
  taken: readonly Span[],
): Filled | undefined {
  if (!param.nameWords.some((w) => EXCLUDING.test(w))) return undefined;
  const at = tokens.findIndex((t) => WITHOUT.test(t.word));
  if (at < 0) return undefined;
  const words: Token[] = [];
  for (let i = at + 1; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (taken.some((s) => token.start < s.end && token.end > s.start)) break;
    if (i > at + 1 && /[;:.!?()]/.test(clause.slice(tokens[i - 1]!.end, token.start))) break;
    words.push(token);
  }
  if (words.length === 0) return undefined;
  const text = clause.slice(words[0]!.start, words.at(-1)!.end);
  const items = text
    .split(/\s*(?:,|\band\b|\bor\b|\bnor\b|&|\bet\b|\bni\b|\by\b|\bo\b|\bund\b|\boder\b|\be\b|\bou\b)\s*/)
    .map((item) => item.replace(/^(?:any|the|a|an)\s+/i, '').trim())
    .filter((item) => item && !isStopWord(fold(item), language));
  if (items.length === 0) return undefined;
  const value = param.type === 'array' ? items : items.join(', ');
  return { value, start: offset + words[0]!.start, end: offset + words.at(-1)!.end, reason: `what follows "${tokens[at]!.raw}"` };
}
