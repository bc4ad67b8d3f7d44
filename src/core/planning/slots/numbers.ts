/**
 * Numbers in a request: digits with thousands separators and decimal marks as each language
 * writes them ("1,000.5", "1.000,5", "1 000"), signs, `k`/`m` suffixes, percentages, money
 * (symbols and currency words), number words in the planner's languages, and the unit word that
 * follows ("3 tickets", "5 km") for matching to parameters.
 */
import type { Language } from '../ranking/stem.ts';
import { fold } from '../ranking/tokens.ts';
import { overlaps, type Mention } from './types.ts';
import { lookupTable } from '../../lookupTable.ts';

const CURRENCY_SYMBOLS: Readonly<Record<string, string>> = lookupTable({
  $: 'USD',
  '€': 'EUR',
  '£': 'GBP',
  '¥': 'JPY',
  '₹': 'INR',
  '₩': 'KRW',
  r$: 'BRL',
  chf: 'CHF',
});
const CURRENCY_WORDS: Readonly<Record<string, string>> = lookupTable({
  dollar: 'USD',
  dollars: 'USD',
  usd: 'USD',
  bucks: 'USD',
  euro: 'EUR',
  euros: 'EUR',
  eur: 'EUR',
  pound: 'GBP',
  pounds: 'GBP',
  gbp: 'GBP',
  yen: 'JPY',
  jpy: 'JPY',
  chf: 'CHF',
  franc: 'CHF',
  francs: 'CHF',
  dolares: 'USD',
  dólares: 'USD',
  dollari: 'USD',
  dollar_us: 'USD',
  sterling: 'GBP',
  sterline: 'GBP',
  libras: 'GBP',
  pfund: 'GBP',
  ienes: 'JPY',
  cad: 'CAD',
  aud: 'AUD',
  inr: 'INR',
  rupees: 'INR',
  brl: 'BRL',
  reais: 'BRL',
  mxn: 'MXN',
  pesos: 'MXN',
  cny: 'CNY',
  yuan: 'CNY',
});

const WORDS: Readonly<Record<string, number>> = lookupTable<number>();
{
  const lists: ReadonlyArray<readonly string[]> = [
    'zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen'.split(' '),
    'zero un deux trois quatre cinq six sept huit neuf dix onze douze'.split(' '),
    'cero uno dos tres cuatro cinco seis siete ocho nueve diez once doce'.split(' '),
    'null eins zwei drei vier fünf sechs sieben acht neun zehn elf zwölf'.split(' '),
    'zero um dois três quatro cinco seis sete oito nove dez onze doze'.split(' '),
    'zero uno due tre quattro cinque sei sette otto nove dieci undici dodici'.split(' '),
  ];
  const table = WORDS as Record<string, number>;
  for (const list of lists) list.forEach((word, value) => (table[fold(word)] ??= value));
  const tens = 'twenty thirty forty fifty sixty seventy eighty ninety'.split(' ');
  tens.forEach((word, i) => (table[word] = (i + 2) * 10));
  // "un", "uno", "ein", "um" are articles far more often than numbers: one is read only as "one".
  for (const article of ['un', 'uno', 'um', 'ein', 'a', 'an']) delete table[article];
  Object.assign(table, { dozen: 12, hundred: 100, thousand: 1000, million: 1_000_000 });
}
/** Words that say "times N" rather than a number; used only when no number is written. */
const MULTIPLIERS: Readonly<Record<string, number>> = lookupTable({ double: 2, twice: 2, triple: 3, thrice: 3, halve: 2, half: 2, quadruple: 4 });

const DIGITS =
  /(?<![\p{L}\p{N}_.,:])([-−+]?)(\d{1,3}(?:(?:,\d{3})+|(?:\.\d{3})+|(?:[  ]\d{3})+)(?:[.,]\d+)?|\d+(?:[.,]\d+)?)(?:\s?([kK]|M(?!\p{L}))(?![\p{L}]))?(?![\p{N}_]|[.,:]\d|(?:st|nd|rd|th|am|pm|h|er)\b|\p{L}+\d)/gu;

/** Parse digits as the language writes them; `undefined` when they are a list ("1,5" in English reads as 1 and 5). */
export function parseDigits(text: string, language: Language): number | undefined {
  const commaDecimal = language !== 'en';
  let normal = text.replace(/[  ]/g, '');
  if (/^\d{1,3}(,\d{3})+(\.\d+)?$/.test(normal)) normal = normal.replace(/,/g, '');
  else if (/^\d{1,3}(\.\d{3})+(,\d+)?$/.test(normal) && (commaDecimal || /\.\d{3}\./.test(normal) || normal.includes(',')))
    normal = normal.replace(/\./g, '').replace(',', '.');
  else if (/^\d+,\d+$/.test(normal)) {
    if (!commaDecimal) return undefined;
    normal = normal.replace(',', '.');
  }
  const value = Number(normal);
  return Number.isFinite(value) ? value : undefined;
}

/** The number words of a clause: "twenty five" → 25, "a dozen" → 12, "three hundred" → 300. */
function wordNumbers(text: string, taken: readonly Mention[]): Mention[] {
  const found: Mention[] = [];
  const words = [...text.matchAll(/[\p{L}]+/gu)];
  for (let i = 0; i < words.length; i++) {
    const word = fold(words[i]![0]);
    if (word === 'a' || word === 'an' || WORDS[word] === undefined) continue;
    if (overlaps(words[i]!.index, words[i]!.index + words[i]![0].length, taken)) continue;
    let value = WORDS[word]!;
    let j = i + 1;
    for (; j < words.length; j++) {
      const next = fold(words[j]![0]);
      const gap = text.slice(words[j - 1]!.index + words[j - 1]![0].length, words[j]!.index);
      if (!/^[\s-]$/.test(gap)) break;
      const n = WORDS[next];
      if (n === undefined || next === 'a' || next === 'an') break;
      if (n >= 100) value = value * n;
      else if (value >= 20 && value % 10 === 0 && n < 10 && value < 100) value += n;
      else break;
    }
    const start = words[i]!.index;
    const end = words[j - 1]!.index + words[j - 1]![0].length;
    found.push({ kind: 'number', value, start, end, ...unitAfter(text, end) });
    i = j - 1;
  }
  return found;
}

function unitAfter(text: string, end: number): { unit?: string } {
  // "4 stars", and "4-star" written with a hyphen.
  const match = /^(?:\s*|-)([\p{L}][\p{L}-]*)/u.exec(text.slice(end, end + 40));
  return match ? { unit: fold(match[1]!) } : {};
}

/**
 * The numbers, money amounts and percentages of `text`, in order, outside the `exclude` spans
 * (dates, quoted text, URLs).
 *
 * @example
 * numericMentions('add 1,000 and 2', 'en').map((m) => m.value); // [1000, 2]
 */
export function numericMentions(text: string, language: Language, exclude: readonly Mention[] = []): Mention[] {
  const found: Mention[] = [];
  for (const match of text.matchAll(DIGITS)) {
    const [all, sign, digits, suffix] = match;
    let start = match.index;
    let end = start + all.length;
    if (overlaps(start, end, exclude)) continue;
    const parts = parseDigits(digits!, language) === undefined ? digits!.split(',') : [digits!];
    if (parts.length > 1) {
      let at = start + sign!.length;
      for (const part of parts) {
        found.push({ kind: 'number', value: Number(part), start: at, end: at + part.length });
        at += part.length + 1;
      }
      continue;
    }
    let value = parseDigits(digits!, language)!;
    if (suffix) value *= /k/i.test(suffix) ? 1000 : 1_000_000;
    // A unit written against the number ("82.5kg", "1.80m") reads like one written apart.
    if (sign === '-' || sign === '−') value = -value;
    const before = text.slice(Math.max(0, start - 3), start).toLowerCase();
    const symbol = /(r\$|[$€£¥₹₩])\s*$/.exec(before);
    const after = text.slice(end, end + 12);
    const percent = /^\s*(%|percent\b|per cent\b|pour ?cent\b|por ?ciento\b|prozent\b|por ?cento\b|per ?cento\b)/i.exec(after);
    if (percent) {
      end += percent[0].length;
      found.push({ kind: 'percent', value, start, end });
      continue;
    }
    const symbolAfter = /^\s*([$€£¥₹])/.exec(after);
    const word = /^\s*([\p{L}]+)/u.exec(after);
    const currencyWord = word ? CURRENCY_WORDS[fold(word[1]!)] : undefined;
    if (symbol || symbolAfter || currencyWord) {
      if (symbol) start -= symbol[0].length;
      if (symbolAfter) end += symbolAfter[0].length;
      else if (currencyWord) end += word![0].length;
      const currency = symbol ? CURRENCY_SYMBOLS[symbol[1]!]! : symbolAfter ? CURRENCY_SYMBOLS[symbolAfter[1]!]! : currencyWord!;
      found.push({ kind: 'money', value, start, end, unit: currency });
      continue;
    }
    found.push({ kind: 'number', value, start, end, ...unitAfter(text, end) });
  }
  const words = wordNumbers(text, [...exclude, ...found]);
  const all = [...found, ...words].sort((a, b) => a.start - b.start);
  if (!all.some((m) => m.kind === 'number')) {
    for (const match of text.matchAll(/[\p{L}]+/gu)) {
      const value = MULTIPLIERS[fold(match[0])];
      if (value !== undefined) all.push({ kind: 'number', value, start: match.index, end: match.index + match[0].length, implicit: true });
    }
  }
  return all;
}

/** The numbers written in `text`, in order (digits and number words; quoted text and URLs left out). */
export function extractNumbers(text: string, language: Language = 'en'): number[] {
  const exclude: Mention[] = [];
  for (const match of text.matchAll(/"[^"]*"|'[^']*'|https?:\/\/\S+/g))
    exclude.push({ kind: 'quoted', value: '', start: match.index, end: match.index + match[0].length });
  return numericMentions(text, language, exclude)
    .filter((m) => !m.implicit)
    .map((m) => m.value as number);
}

/** The ISO code of a currency word, symbol or code ("euros", "€", "usd", "JPY"), if it is one. */
export function currencyCode(word: string): string | undefined {
  const folded = fold(word);
  return CURRENCY_WORDS[folded] ?? CURRENCY_SYMBOLS[folded] ?? (/^[A-Z]{3}$/.test(word) && ISO_CODES.has(word) ? word : undefined);
}

/** ISO 4217 codes: the engine's own list where it has one (every engine CUGAr runs on), else the common ones. */
const ISO_CODES: ReadonlySet<string> = new Set(
  typeof Intl.supportedValuesOf === 'function'
    ? Intl.supportedValuesOf('currency')
    : 'USD EUR GBP JPY CHF CAD AUD NZD INR BRL MXN CNY SEK NOK DKK PLN CZK HUF TRY ZAR KRW SGD HKD'.split(' '),
);

const DURATION_UNITS: ReadonlyArray<[RegExp, number]> = [
  [/^(h|hr|hrs|hours?|heures?|horas?|ore|ora|stunden?|std)$/, 3600],
  [/^(m|min|mins|minutes?|minutos?|minuti|minuto|minuten|minute)$/, 60],
  [/^(s|sec|secs|seconds?|secondes?|segundos?|secondi|sekunden?)$/, 1],
  [/^(days?|jours?|d[ií]as?|giorni|tage?n?)$/, 86400],
];

/** A length of time written in the clause ("1 hour 30 minutes", "5 minutos", "90s"), in seconds. */
export interface Duration {
  seconds: number;
  start: number;
  end: number;
}

/** The durations of `text`: runs of number + time unit, added up ("1 hour 30 minutes" is 5400 s). */
export function durations(text: string, numbers: readonly Mention[]): Duration[] {
  const found: Duration[] = [];
  let current: Duration | undefined;
  for (const mention of numbers) {
    if (mention.kind !== 'number' || mention.implicit) continue;
    const unit = /^[\s-]*([\p{L}]+)/u.exec(text.slice(mention.end, mention.end + 16));
    const factor = unit ? DURATION_UNITS.find(([pattern]) => pattern.test(fold(unit[1]!)))?.[1] : undefined;
    if (factor === undefined) {
      current = undefined;
      continue;
    }
    const end = mention.end + unit![0].length;
    const joined = current && /^[\s,]*(?:and|et|y|und|e)?\s*$/i.test(text.slice(current.end, mention.start));
    if (current && joined) {
      current.seconds += (mention.value as number) * factor;
      current.end = end;
    } else {
      current = { seconds: (mention.value as number) * factor, start: mention.start, end };
      found.push(current);
    }
  }
  return found;
}

/** Units of measure by dimension, as a factor of the dimension's base unit (ml, g, m). */
const MEASURES: ReadonlyArray<[string, Readonly<Record<string, number>>]> = (
  [
    [
      'volume',
      {
        ml: 1,
        milliliter: 1,
        milliliters: 1,
        cl: 10,
        dl: 100,
        l: 1000,
        liter: 1000,
        liters: 1000,
        litre: 1000,
        litres: 1000,
        litros: 1000,
        liter_: 1000,
        gallon: 3785.41,
        gallons: 3785.41,
        cup: 240,
        cups: 240,
      },
    ],
    [
      'mass',
      {
        mg: 0.001,
        g: 1,
        gram: 1,
        grams: 1,
        gramos: 1,
        kg: 1000,
        kilo: 1000,
        kilos: 1000,
        kilogram: 1000,
        kilograms: 1000,
        lb: 453.592,
        lbs: 453.592,
        pound: 453.592,
        pounds: 453.592,
        oz: 28.3495,
        ounce: 28.3495,
        ounces: 28.3495,
      },
    ],
    [
      'length',
      {
        mm: 0.001,
        cm: 0.01,
        centimeter: 0.01,
        centimeters: 0.01,
        m: 1,
        meter: 1,
        meters: 1,
        metre: 1,
        metres: 1,
        metros: 1,
        km: 1000,
        kilometer: 1000,
        kilometers: 1000,
        kilometres: 1000,
        mi: 1609.34,
        mile: 1609.34,
        miles: 1609.34,
        ft: 0.3048,
        feet: 0.3048,
        foot: 0.3048,
        in: 0.0254,
        inch: 0.0254,
        inches: 0.0254,
      },
    ],
  ] as Array<[string, Record<string, number>]>
).map(([dimension, units]) => [dimension, lookupTable(units)]);

/**
 * `value` written in `unit`, converted to `target` when both are units of one dimension
 * ("1.5 liters" for a parameter in ml is 1500); undefined when they are not.
 */
export function convertMeasure(value: number, unit: string, target: string): number | undefined {
  for (const [, units] of MEASURES) {
    const from = units[unit];
    const to = units[target];
    if (from !== undefined && to !== undefined) return Math.round(((value * from) / to) * 1e9) / 1e9;
  }
  return undefined;
}
