/**
 * Numbers to numeric parameters by what points at them, not by position: the unit after the
 * number ("3 tickets"), the parameter's words before it ("limit 5"), the preposition the tool's
 * description puts before the parameter ("Subtract b from a": the number after "from" is `a`),
 * percent and money for parameters that speak of them, and years kept away from counts.
 */
import { isStopWord, stem } from '../ranking/stem.ts';
import { translateAny } from '../ranking/synonyms.ts';
import { fold, type Token } from '../ranking/tokens.ts';
import { convertMeasure, durations } from './numbers.ts';
import { higherFirst, type Filled, type Mention, type Param } from './types.ts';
import { lookupTable } from '../../lookupTable.ts';

const REFERENCE =
  /\b(?:result|it|that|this|previous|answer|output|sum|product|total|difference|quotient|le résultat|el resultado|das ergebnis|o resultado|il risultato)\b/i;
const COUNTS =
  /^(count|number|num|tickets?|guests?|people|persons?|passengers?|adults?|children|days|nights|limit|quantity|qty|rooms?|seats?|servings?|k|n|top|max|results?)$/;
const PERCENT = /^(percent|percentag|rate|tip|discount|pct|vat|tax)/;
const MONEY = /^(amount|price|budget|cost|total|bill|max_price|fare|sum|salary|value|balance|payment)/;

/** Words right before a number that make it an upper or a lower bound, in the six languages. */
const UPPER_BOUND =
  /(?:^|\s)(?:under|below|less than|at most|up to|within|max|maximum|cheaper than|unter|bis|sous|moins de|jusqu'a|menos de|hasta|bajo|sotto|fino a|meno di|ate|abaixo de)$/;
const LOWER_BOUND =
  /(?:^|\s)(?:over|above|more than|at least|min|minimum|from|uber|mindestens|plus de|au moins|mas de|al menos|oltre|almeno|mais de|pelo menos)$/;
const MAX_WORDS = /^(max|maximum|most|limit|budget|upto|cap|ceiling|highest)$/;
const MIN_WORDS = /^(min|minimum|least|lowest|floor)$/;

const TIME_UNITS: Readonly<Record<string, number>> = lookupTable({
  seconds: 1,
  secs: 1,
  sec: 1,
  s: 1,
  minutes: 60,
  mins: 60,
  min: 60,
  hours: 3600,
  hrs: 3600,
  ms: 0.001,
  milliseconds: 0.001,
  days: 86400,
});

const described = new WeakMap<Param, Map<string, ReadonlySet<string>>>();

/**
 * Prepositions the tool's description and the parameter's put right before the parameter's name:
 * "from a", "by b" (read once per parameter and tool description).
 */
export function describedPrepositions(param: Param, toolDescription: string): ReadonlySet<string> {
  let byDescription = described.get(param);
  if (!byDescription) described.set(param, (byDescription = new Map()));
  let found = byDescription.get(toolDescription);
  if (!found) {
    if (byDescription.size >= 64) byDescription.clear();
    byDescription.set(toolDescription, (found = readPrepositions(param, `${fold(toolDescription)} ${fold(param.description)}`)));
  }
  return found;
}

function readPrepositions(param: Param, description: string): Set<string> {
  const found = new Set<string>();
  const pattern = new RegExp(`\\b(from|by|into|of|to|per|over|times|divided by|minus|plus|and)\\s+${param.name.replace(/[^\w]/g, '')}\\b`, 'gi');
  for (const match of description.matchAll(pattern)) found.add(match[1]!.toLowerCase().split(/\s+/).at(-1)!);
  return found;
}

function tokenIndexAt(tokens: readonly Token[], offset: number): number {
  const i = tokens.findIndex((t) => t.start >= offset);
  return i < 0 ? tokens.length : i;
}

const PERCENT_CUE = stem('percent');

function cueScore(param: Param, mention: Mention, tokens: readonly Token[], prepositions: ReadonlySet<string>): [number, string] {
  let score = 0;
  const reasons: string[] = [];
  const at = tokenIndexAt(tokens, mention.start);
  const before = tokens.slice(Math.max(0, at - 3), at).map((t) => t.word);
  const unit = mention.unit && !isStopWord(mention.unit, 'en') ? (translateAny(mention.unit) ?? stem(mention.unit)) : undefined;
  if (unit && (param.cues.has(unit) || param.nameWords.some((w) => stem(w) === unit))) {
    score += 3;
    reasons.push(`followed by "${mention.unit}"`);
  }
  if (before.some((w) => param.nameCues.has(stem(w)))) {
    score += 2;
    reasons.push(`after the word "${before.find((w) => param.nameCues.has(stem(w)))}"`);
  }
  const previous = before.at(-1);
  if (previous && prepositions.has(previous)) {
    score += 3;
    reasons.push(`after "${previous}", as the description puts it`);
  }
  const words = param.nameWords;
  // "under 200", "at least 3": a bound goes to the parameter that is one.
  const bound = UPPER_BOUND.test(before.slice(-2).join(' ')) ? 'max' : LOWER_BOUND.test(before.slice(-2).join(' ')) ? 'min' : undefined;
  if (bound && words.some((w) => (bound === 'max' ? MAX_WORDS : MIN_WORDS).test(w))) {
    score += 3;
    reasons.push(`after "${before.at(-1)}", a ${bound === 'max' ? 'most' : 'least'} value`);
  }
  // A share written with "%" goes to a parameter named for one, or described in percent ("Brightness in percent").
  const inPercent = words.some((w) => PERCENT.test(w)) || param.cues.has(PERCENT_CUE);
  if (mention.kind === 'percent') score += inPercent ? 3 : -2;
  if (mention.kind === 'money') score += words.some((w) => MONEY.test(w)) ? 2 : 0;
  if (mention.kind !== 'percent' && words.some((w) => PERCENT.test(w)) && !words.some((w) => MONEY.test(w))) score -= 1;
  const value = mention.value as number;
  const yearLike = Number.isInteger(value) && value >= 1900 && value <= 2100;
  if (yearLike && param.nameWords.includes('year')) score += 3;
  if (yearLike && param.nameWords.some((w) => COUNTS.test(w))) score -= 2;
  if (param.type === 'integer' && !Number.isInteger(value)) score -= 1;
  if (mention.implicit) score -= 1;
  return [score, reasons.join(', ')];
}

/**
 * Assign `mentions` to the numeric parameters of `params`. Cued pairs first (best first); then
 * required parameters take what is left in order; an unfilled first required parameter of a
 * follow-on clause refers to the previous step's result.
 */
export function assignNumbers(
  params: readonly Param[],
  mentions: readonly Mention[],
  tokens: readonly Token[],
  clause: string,
  offset: number,
  previousStep: string | undefined,
  toolDescription: string,
): Array<[Param, Filled]> {
  const numeric = params.filter((p) => p.type === 'number' || p.type === 'integer');
  if (numeric.length === 0) return [];
  const out: Array<[Param, Filled]> = [];
  const used = new Set<Mention>();
  const done = new Set<Param>();
  // A parameter in a unit of measure ("amount_ml", "height_cm") takes a number written in a unit of its dimension, converted.
  for (const param of numeric) {
    const target = param.nameWords.at(-1)!;
    if (param.nameWords.length < 2 || done.has(param)) continue;
    for (const mention of mentions) {
      if (used.has(mention) || mention.kind !== 'number' || !mention.unit) continue;
      const converted = convertMeasure(mention.value as number, mention.unit, target);
      if (converted === undefined || !inRange(param, converted)) continue;
      out.push([
        param,
        {
          value: converted,
          start: offset + mention.start,
          end: offset + mention.end + (clause.slice(mention.end).match(/^\s*\p{L}+/u)?.[0].length ?? 0),
          reason: `${String(mention.value)} ${mention.unit} in ${target}`,
        },
      ]);
      used.add(mention);
      done.add(param);
      break;
    }
  }
  // A parameter in a unit of time takes a written duration, converted ("5 minutes" → 300 for seconds).
  for (const param of numeric) {
    const unit = param.nameWords.map((w) => TIME_UNITS[w]).find((u) => u !== undefined);
    if (unit === undefined) continue;
    const duration = durations(clause, mentions).find((d) => !mentions.some((m) => used.has(m) && m.start >= d.start && m.end <= d.end));
    if (!duration) continue;
    const value = duration.seconds / unit;
    if (!inRange(param, param.type === 'integer' ? Math.round(value) : value)) continue;
    out.push([
      param,
      {
        value: param.type === 'integer' ? Math.round(value) : value,
        start: offset + duration.start,
        end: offset + duration.end,
        reason: `the duration "${clause.slice(duration.start, duration.end)}" in ${param.nameWords.at(-1)}`,
      },
    ]);
    for (const m of mentions) if (m.start >= duration.start && m.end <= duration.end) used.add(m);
    done.add(param);
  }
  const value = (param: Param, mention: Mention) => (param.type === 'integer' ? Math.trunc(mention.value as number) : (mention.value as number));
  const fits = (param: Param, mention: Mention) => inRange(param, value(param, mention));
  const fill = (param: Param, mention: Mention, reason: string) => {
    out.push([param, { value: value(param, mention), start: offset + mention.start, end: offset + mention.end, reason }]);
    used.add(mention);
    done.add(param);
  };
  const pairs: Array<{ param: Param; mention: Mention; score: number; reason: string }> = [];
  for (const param of numeric) {
    const prepositions = describedPrepositions(param, toolDescription);
    for (const mention of mentions) {
      const [score, reason] = cueScore(param, mention, tokens, prepositions);
      pairs.push({ param, mention, score, reason });
    }
  }
  pairs.sort((a, b) => higherFirst(a.score, b.score) || a.mention.start - b.mention.start);
  for (const pair of pairs) {
    if (pair.score < 2 || done.has(pair.param) || used.has(pair.mention) || !fits(pair.param, pair.mention)) continue;
    fill(pair.param, pair.mention, `number ${pair.reason}`);
  }
  const required = numeric.filter((p) => p.required && !done.has(p));
  const left = mentions.filter((m) => !used.has(m) && !m.implicit && m.kind !== 'percent');
  const implicit = mentions.filter((m) => !used.has(m) && m.implicit);
  const wantsReference = previousStep !== undefined && (REFERENCE.test(clause) || left.length + implicit.length < required.length);
  if (wantsReference && required.length > 0) {
    const param = required.shift()!;
    out.push([param, { value: { $ref: previousStep }, start: offset, end: offset, reason: `the result of ${previousStep}` }]);
    done.add(param);
  }
  for (const param of required) {
    const mention = left.find((m) => !used.has(m) && fits(param, m)) ?? implicit.find((m) => !used.has(m) && fits(param, m));
    if (!mention) continue;
    fill(
      param,
      mention,
      mention.implicit ? `"${clause.slice(mention.start, mention.end)}" read as ${String(mention.value)}` : 'the next number written, in order',
    );
  }
  // One number left and one optional numeric parameter left: the request speaks to it.
  const rest = left.filter((m) => !used.has(m) && m.kind === 'number');
  const optional = numeric.filter((p) => !p.required && !done.has(p));
  if (rest.length === 1 && optional.length === 1 && required.every((p) => done.has(p)) && fits(optional[0]!, rest[0]!))
    fill(optional[0]!, rest[0]!, 'the one number left');
  return out;
}

/**
 * Whether `value` lies in the range `param` declares (minimum, maximum, exclusive bounds): a number
 * outside it is not this parameter's value ("running 5k" gives no count of days up to 28).
 */
function inRange(param: Param, value: number): boolean {
  const { minimum, maximum, exclusiveMinimum, exclusiveMaximum } = param.schema as Record<string, unknown>;
  if (typeof minimum === 'number' && value < minimum) return false;
  if (typeof maximum === 'number' && value > maximum) return false;
  if (typeof exclusiveMinimum === 'number' && value <= exclusiveMinimum) return false;
  return !(typeof exclusiveMaximum === 'number' && value >= exclusiveMaximum);
}
