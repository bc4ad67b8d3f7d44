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
import { keepLast, keepRecent } from '../recent.ts';

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
  /** Its readings so far, by language, reference instant and whether dates were read (the newest last). */
  readings: Array<{ language: Language; now: number | undefined; datesWanted: boolean; reading: ClauseReading }>;
}

/** The bases of the last clauses (several tools of one clause are filled in turn), by the clause itself. */
const bases = new Map<string, ClauseBase>();
const CLAUSES = 16;
/** Readings kept per clause: one or two in a plan, more only when one clause is planned at many instants. */
const READINGS = 8;

const freeze = <T extends object>(list: T[]): readonly T[] => Object.freeze(list.map((item) => Object.freeze(item)));

function baseOf(clause: string): ClauseBase {
  return (
    bases.get(clause) ??
    keepRecent(bases, CLAUSES, clause, { tokens: readTokens(clause), texts: freeze(textMentions(clause)), clocks: freeze(clockTimes(clause)), readings: [] })
  );
}

/** The reading of `clause` (dates only when a parameter wants them), frozen and kept for the last few clauses. */
export function readClause(clause: string, language: Language, now: number | undefined, datesWanted: boolean): ClauseReading {
  const base = baseOf(clause);
  for (const known of base.readings) if (known.language === language && known.now === now && known.datesWanted === datesWanted) return known.reading;
  const { tokens, texts, clocks } = base;
  const dates = datesWanted ? dateMentions(clause, language, now).filter((m) => !overlaps(m.start, m.end, texts)) : [];
  for (const clock of clocks) if (!dates.some((d) => d.kind === 'time' && overlaps(clock.start, clock.end, [d]))) dates.push(clock);
  const numbers = numericMentions(clause, language, [...texts, ...dates.filter((d) => /[^\d\s]/.test(clause.slice(d.start, d.end))), ...clocks]);
  const reading: ClauseReading = { tokens, texts, clocks, dates: freeze(dates), numbers: freeze(numbers) };
  keepLast(base.readings, READINGS, { language, now, datesWanted, reading });
  return reading;
}
