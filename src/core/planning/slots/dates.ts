/**
 * Dates and times in words and numerals, read by chrono-node in the request's language
 * (English, French, Spanish, German, Portuguese, Italian, Dutch), relative to a reference
 * instant the caller passes (the orchestrator's clock), in UTC, so a plan is the same wherever
 * it is made. Values come out in ISO form: `YYYY-MM-DD`, `HH:MM`, `YYYY-MM-DDTHH:MM:SS`.
 */
import * as de from 'chrono-node/de';
import * as en from 'chrono-node/en';
import * as es from 'chrono-node/es';
import * as fr from 'chrono-node/fr';
import * as it from 'chrono-node/it';
import * as nl from 'chrono-node/nl';
import * as pt from 'chrono-node/pt';
import type { Language } from '../ranking/stem.ts';
import { fold } from '../ranking/tokens.ts';
import type { Mention } from './types.ts';
import { keepLast, keepRecent } from '../recent.ts';

type Parser = typeof en.casual;
const PARSERS: Readonly<Record<Language | 'nl', Parser>> = {
  en: en.casual,
  fr: fr.casual,
  es: es.casual,
  de: de.casual,
  pt: pt.casual,
  it: it.casual,
  nl: nl.casual,
};

type Components = ReturnType<Parser['parse']>[number]['start'];

const pad = (n: number) => String(n).padStart(2, '0');

function isoDate(c: Components): string {
  return `${c.get('year')}-${pad(c.get('month') ?? 1)}-${pad(c.get('day') ?? 1)}`;
}

function isoTime(c: Components): string {
  return `${pad(c.get('hour') ?? 0)}:${pad(c.get('minute') ?? 0)}`;
}

/**
 * Words without which a text holds no date or time chrono could read (digits aside): a cheap
 * test that spares parsing the many requests that name none.
 */
const DATE_WORDS = [
  'today tonight tomorrow tmrw yesterday noon midnight morning afternoon evening night weekend week weeks month months year years ago next last',
  'monday tuesday wednesday thursday friday saturday sunday mon tue tues wed thu thur thurs fri sat sun',
  'january february march april may june july august september october november december jan feb mar apr jun jul aug sep sept oct nov dec',
  "hour hours minute minutes aujourd'hui aujourd demain hier soir matin midi semaine mois lundi mardi mercredi jeudi vendredi samedi dimanche",
  'janvier février mars avril mai juin juillet août septembre octobre novembre décembre',
  'hoy mañana ayer noche tarde semana mes lunes martes miércoles jueves viernes sábado domingo enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre diciembre',
  'heute morgen gestern abend nacht woche monat montag dienstag mittwoch donnerstag freitag samstag sonntag januar februar märz juni juli oktober dezember uhr',
  'hoje amanhã ontem noite segunda terça quarta quinta sexta sábado domingo janeiro fevereiro março maio junho julho setembro outubro dezembro',
  'oggi domani ieri sera notte settimana mese lunedì martedì mercoledì giovedì venerdì sabato domenica gennaio febbraio aprile maggio giugno luglio settembre ottobre dicembre',
  'vandaag gisteren maandag dinsdag woensdag donderdag vrijdag zaterdag zondag',
]
  .join(' ')
  .split(' ');
const DATE_HINT = new RegExp(
  `\\d{1,2}\\s*[/.:-]\\s*\\d{1,2}|\\d{4}-\\d{2}|\\d{1,2}\\s*(?:st|nd|rd|th|er|º|ª|am|pm|a\\.m|p\\.m|h\\b|uhr|hrs)|(?<!\\p{L})(?:${DATE_WORDS.join('|')})(?!\\p{L})`,
  'iu',
);

/** Whether `text` may name a date or a time at all (a word or numeral chrono could read, or a clock time). */
export function mayNameDate(text: string): boolean {
  return DATE_HINT.test(text.slice(0, MAX_TEXT)) || clockTimes(text).length > 0;
}

/** Longest text chrono reads; dates are near the words that ask for them. */
const MAX_TEXT = 2000;

/**
 * The dates, times and date-times of `text`. A part that names a day (or a relative day:
 * "tomorrow", "next Friday") gives a date; one that names an hour gives a time; both give a
 * date-time as well. "from May 3 to May 7" gives two dates. Without a reference instant,
 * relative expressions are left out (they would depend on when the plan is made).
 */
export function dateMentions(text: string, language: Language, now: number | undefined): readonly Mention[] {
  const source = text.slice(0, MAX_TEXT);
  if (!DATE_HINT.test(source)) return [];
  // Several tools of one clause are filled in turn: the date parser reads the clause once.
  let readings = recentDates.get(source);
  for (const known of readings ?? []) if (known.language === language && known.now === now) return known.found;
  const found = Object.freeze(parseDates(source, language, now).map((m) => Object.freeze(m)));
  readings ??= keepRecent(recentDates, RECENT_DATES, source, []);
  keepLast(readings, READINGS_PER_TEXT, { language, now, found });
  return found;
}

/** The dates of the last texts read (oldest first), by text, then language and reference instant, with their mentions frozen. */
const recentDates = new Map<string, Array<{ language: Language; now: number | undefined; found: readonly Mention[] }>>();
const RECENT_DATES = 32;
const READINGS_PER_TEXT = 4;

/** Characters read before the first date word: enough for "from the", "starting next", "in 2". */
const LEAD = 24;

function parseDates(source: string, language: Language, now: number | undefined): Mention[] {
  const instant = new Date(now ?? Date.UTC(2000, 0, 1));
  // Chrono's cost grows with the text: it reads from a few words before the first date word on.
  const first = DATE_HINT.exec(source)?.index ?? 0;
  const from = first <= LEAD ? 0 : source.lastIndexOf(' ', first - LEAD) + 1;
  const text = from === 0 ? source : source.slice(from);
  let results: ReturnType<Parser['parse']>;
  try {
    results = PARSERS[language].parse(text, { instant, timezone: 0 }, { forwardDate: true });
    if (results.length === 0 && language !== 'en') results = PARSERS.en.parse(text, { instant, timezone: 0 }, { forwardDate: true });
  } catch {
    return [];
  }
  const found: Mention[] = [];
  for (const read of results) {
    // A number after a comma is the next thing, not a year or an hour ("10 de marzo, 3 noches", "10 mars, 2 nuits").
    const stray = /,\s*\d{1,2}$/.exec(read.text);
    const again = stray ? PARSERS[language].parse(read.text.slice(0, stray.index), { instant, timezone: 0 }, { forwardDate: true })[0] : undefined;
    const result = again && again.index === 0 ? again : read;
    const start = from + read.index;
    const end = start + result.text.length;
    // An amount of money ("$150 a night") is not a time.
    if (/[$€£¥₹]\s*$/.test(source.slice(Math.max(0, start - 3), start)) || /^[\s\d]*[$€£¥₹]/.test(result.text)) continue;
    // "the week" of "what day of the week" names no week: a period needs "this", "next" or "last".
    if (/^\s*the\s+(?:day|week|month|year)\s*$/i.test(result.text)) continue;
    // A bare number ("4") is not a date; chrono reads some as days or hours.
    if (/^\s*\d{1,4}\s*$/.test(result.text)) continue;
    // "the next 5 days", "a 30 minute run", "1 hour of yoga" are lengths of time, not dates ("in 2 hours" is one).
    if (/\d+\s*(?:days?|weeks?|jours?|semaines?|d[ií]as?|semanas?|tage?n?|wochen?|giorni|settimane)\b/i.test(result.text)) continue;
    if (
      /^\s*\d+(?:[.,]\d+)?[\s-]*(?:minutes?|mins?|hours?|hrs?|seconds?|secs?|minutos?|minuti|minuten|heures?|horas?|ore|stunden?)\s*$/i.test(result.text) &&
      !/\b(?:in|dans|en|em|tra|fra)\s*$/i.test(source.slice(Math.max(0, start - 6), start))
    )
      continue;
    const parts: Array<[Components, number, number]> = [[result.start, start, end]];
    if (result.end) {
      // "from May 3 to May 7": split the span at the connecting word so each end has its own span.
      const joint = /\s(?:to|until|till|through|-|–|au|al|bis|até|a)\s/i.exec(result.text);
      const cut = joint ? start + joint.index : end;
      parts[0] = [result.start, start, cut];
      parts.push([result.end, joint ? cut + joint[0].length : start, end]);
    }
    for (const [components, from, to] of parts) {
      // A month and day without a year mean the nearest such day, before or after the reference (forward for weekdays only).
      if (now !== undefined && components.isCertain('month') && components.isCertain('day') && !components.isCertain('year')) nearestYear(components, instant);
      const relative = !components.isCertain('day') && !components.isCertain('weekday') && !components.isCertain('month');
      // Without a reference instant only a date that writes its year out means one day.
      if (now === undefined && (relative || !/\d{4}/.test(source.slice(from, to)))) continue;
      const hasDay = components.isCertain('day') || components.isCertain('weekday') || components.tags().has('result/relativeDate') || !relative;
      const hasTime = components.isCertain('hour');
      const dayKnown = hasDay && !(hasTime && relative && !components.isCertain('day'));
      if (dayKnown) found.push({ kind: 'date', value: isoDate(components), start: from, end: to });
      if (hasTime) found.push({ kind: 'time', value: isoTime(components), start: from, end: to });
      if (hasTime) found.push({ kind: 'datetime', value: `${isoDate(components)}T${isoTime(components)}:00`, start: from, end: to });
    }
  }
  return found;
}

function nearestYear(components: Components, instant: Date): void {
  const month = components.get('month')!;
  const day = components.get('day')!;
  const reference = instant.getTime();
  let best = components.get('year')!;
  let distance = Infinity;
  for (const year of [instant.getUTCFullYear() - 1, instant.getUTCFullYear(), instant.getUTCFullYear() + 1]) {
    const gap = Math.abs(Date.UTC(year, month - 1, day) - reference);
    if (gap < distance) [best, distance] = [year, gap];
  }
  (components as unknown as { assign(c: 'year', v: number): void }).assign('year', best);
}

/** Written times chrono may not see on their own ("19:00", "7.30pm"): kept whole so no colon rule splits them. */
export function clockTimes(text: string): Mention[] {
  const found: Mention[] = [];
  for (const match of text.matchAll(/(?<![\d:])([01]?\d|2[0-3])(?:[:h.]([0-5]\d)|h(?![\p{L}])|\s?uhr\b)(?:\s*([ap])\.?m\.?)?(?![\d:])/giu)) {
    let hour = Number(match[1]);
    if (match[3]?.toLowerCase() === 'p' && hour < 12) hour += 12;
    if (match[3]?.toLowerCase() === 'a' && hour === 12) hour = 0;
    if (match[0].includes('.') && !match[3]) continue;
    found.push({ kind: 'time', value: `${pad(hour)}:${match[2] ?? '00'}`, start: match.index, end: match.index + match[0].length });
  }
  // Halves and quarters in words after an hour: "a las 7 y media", "às 8 e meia", "alle 9 e mezza", "à 7 heures et quart", "a las 8 menos cuarto".
  for (const match of text.matchAll(HOUR_AND_PART)) {
    const hour = Number(match[1]);
    const part = fold(match[2]!);
    const minutes = /^(media|meia|mezza|demie)$/.test(part)
      ? 30
      : /^(cuarto|quarto|quart|un quarto)$/.test(part)
        ? match[0].match(/menos|meno|moins/i)
          ? -15
          : 15
        : 0;
    if (minutes === 0 || hour > 23) continue;
    const total = (hour * 60 + minutes + 24 * 60) % (24 * 60);
    // "7h et quart" is one time, not 7:00 and then 7:15.
    const end = match.index + match[0].length;
    for (let i = found.length - 1; i >= 0; i--) if (found[i]!.start < end && found[i]!.end > match.index) found.splice(i, 1);
    found.push({ kind: 'time', value: `${pad(Math.floor(total / 60))}:${pad(total % 60)}`, start: match.index, end: match.index + match[0].length });
  }
  return found;
}

const HOUR_AND_PART =
  /(?<=(?<![\p{L}])(?:a las|a la|las|à|às|as|alle|all'|verso|vers|hacia|sobre|por volta das)\s+)([01]?\d|2[0-3])(?:\s*(?:h|heures?|horas?|ore))?\s+(?:y|e|et|menos|meno|moins(?: le)?)\s+(media|meia|mezza|demie|cuarto|quarto|quart|un quarto)\b/giu;
