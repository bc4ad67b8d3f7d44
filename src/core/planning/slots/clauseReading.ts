/**
 * What slot filling reads from a clause whatever the tool: its tokens and the values written in
 * it (quoted text, URLs, clock times, dates, numbers). Several tools of one clause are filled in
 * turn when the planner compares their arguments, so the reading is kept for the last clauses.
 */
import type { Language } from '../ranking/stem.ts';
import { readTokens, type Token } from '../ranking/tokens.ts';
import { clockTimes, dateMentions } from './dates.ts';
import { numericMentions } from './numbers.ts';
import { textMentions } from './strings.ts';
import { overlaps, type Mention } from './types.ts';

/** What slot filling reads from a clause whatever the tool: its tokens and the values written in it. */
export interface ClauseReading {
  tokens: readonly Token[];
  texts: readonly Mention[];
  clocks: readonly Mention[];
  dates: readonly Mention[];
  numbers: readonly Mention[];
}

/** What a clause holds whatever the language, the reference instant or the tool: its tokens, quoted text and clock times. */
interface ClauseBase {
  tokens: readonly Token[];
  texts: readonly Mention[];
  clocks: readonly Mention[];
}

/** The readings of the last clauses (several tools of one clause are filled in turn), frozen. */
const readings = new Map<string, ClauseReading>();
/** The bases of the last clauses, shared by their readings with and without dates. */
const bases = new Map<string, ClauseBase>();
const READINGS = 16;

const freeze = <T extends object>(list: T[]): readonly T[] => Object.freeze(list.map((item) => Object.freeze(item)));

function remember<T>(cache: Map<string, T>, key: string, value: T): T {
  if (cache.size >= READINGS) cache.delete(cache.keys().next().value!);
  cache.set(key, value);
  return value;
}

function baseOf(clause: string): ClauseBase {
  return bases.get(clause) ?? remember(bases, clause, { tokens: readTokens(clause), texts: freeze(textMentions(clause)), clocks: freeze(clockTimes(clause)) });
}

/** The tokens of `clause` (kept with its reading). */
export function clauseTokens(clause: string): readonly Token[] {
  return baseOf(clause).tokens;
}

/** The reading of `clause` (dates only when a parameter wants them), frozen and kept for the last few clauses. */
export function readClause(clause: string, language: Language, now: number | undefined, datesWanted: boolean): ClauseReading {
  const key = `${language}\u0000${now ?? ''}\u0000${datesWanted ? 1 : 0}\u0000${clause}`;
  const known = readings.get(key);
  if (known) return known;
  const { tokens, texts, clocks } = baseOf(clause);
  const dates = datesWanted ? dateMentions(clause, language, now).filter((m) => !overlaps(m.start, m.end, texts)) : [];
  for (const clock of clocks) if (!dates.some((d) => d.kind === 'time' && overlaps(clock.start, clock.end, [d]))) dates.push(clock);
  const numbers = numericMentions(clause, language, [...texts, ...dates.filter((d) => /[^\d\s]/.test(clause.slice(d.start, d.end))), ...clocks]);
  return remember(readings, key, { tokens, texts, clocks, dates: freeze(dates), numbers: freeze(numbers) });
}
