/**
 * The second opinion on a clause's tool: among the tools whose relevance is close to the best,
 * the one whose parameters account for what the request says. Words choose a tool; the values
 * around them ("to bob@example.com", "tomorrow", "65 dollars") show which of several close tools
 * the person meant — a forecast takes the date a current-weather tool has no room for, and
 * "email bob saying …" fills a send, not an inbox listing.
 */
import type { ToolDefinition } from '../tools/tool.ts';
import type { ClauseDecision, RankedTool } from './ranking/abstain.ts';
import type { Query } from './ranking/bm25f.ts';
import { isStopWord } from './ranking/stem.ts';
import { fold, readTokens } from './ranking/tokens.ts';
import type { IndexedTool, ToolIndex } from './ranking/toolIndex.ts';
import { fillArguments, type FillResult } from './slots/fill.ts';
import { isRequestVerb } from './slots/verbs.ts';
import { openingIndex } from './slots/fillStrings.ts';
import { readClause } from './slots/clauseReading.ts';
import { dateMentions, mayNameDate } from './slots/dates.ts';
import { describedPrepositions } from './slots/numberSlots.ts';
import { dateKind, paramsOf } from './slots/types.ts';

/** Tools within this share of the best relevance are weighed again by their arguments. */
const CLOSE = 0.7;
/** At most this many tools are weighed (each is one slot filling). */
const MOST = 3;
/** How much of a tool's weight rides on accounting for the request's values. */
const FIT_WEIGHT = 0.35;
/** How much more a value word counts than another leftover word. */
const VALUE_WEIGHT = 2;
/** A tool that places the clause's day may replace one that cannot from this share of its relevance. */
const DATED_SHARE = 0.4;
/** What each required parameter the request does not give costs. */
const MISSING_FACTOR = 0.85;

/** What filling one tool's arguments gives. */
export interface Fitted {
  ranked: RankedTool;
  filled: FillResult;
  /** Share of the clause's leftover words (not function words, not the words that chose the tool) its arguments took. */
  fit: number;
  weight: number;
}

/** What {@link fitArguments} needs to fill a tool's arguments from the clause. */
export interface FitContext {
  clause: string;
  offset: number;
  query: Query;
  now?: number;
  previousStep?: string;
}

/**
 * The folded words that chose a tool, less the values among them and the words it matched only in
 * its examples: an example request holds values ("kitchen" matched in "apaga las luces de la
 * cocina" is the room to fill, not the action asked for).
 */
export function intentWords(query: Query, matched: readonly string[], tool?: IndexedTool): Set<string> {
  const values = new Set(query.words.filter((w) => w.value).map((w) => w.token.word));
  const byWord = new Map(query.words.map((w) => [w.token.raw, w]));
  const words = new Set<string>();
  for (const raw of matched) {
    const word = fold(raw);
    if (values.has(word)) continue;
    const terms = byWord.get(raw)?.terms;
    // A word the examples have and the tool's own texts do not (by any stem or synonym) is a value of an example.
    if (tool?.exampleOnly.size && terms?.stems.some((t) => tool.exampleOnly.has(t))) {
      const own = (term: string) => tool.terms.has(term) && !tool.exampleOnly.has(term);
      if (!terms.stems.some(own) && !terms.groups.some(own)) continue;
    }
    words.add(word);
  }
  return words;
}

/** Fill `tool`'s arguments from the clause and measure how much of the request they account for. */
export function fitOf(entry: IndexedTool, ranked: RankedTool, context: FitContext, fills?: Map<string, FillAndFit>): Fitted {
  const { tool } = entry;
  const toolWords = intentWords(context.query, ranked.score.matched, entry);
  // Tools with the same parameters, matched by the same words, fill alike (regional or tiered copies of one tool): filled once per clause.
  const key = fills ? fillKey(tool, toolWords) : '';
  let known = fills?.get(key);
  if (!known) {
    known = fillAndFit(tool, toolWords, context);
    fills?.set(key, known);
  }
  const { filled, fit } = known;
  const weight = ranked.score.score * (1 - FIT_WEIGHT + FIT_WEIGHT * fit) * MISSING_FACTOR ** filled.missing.length;
  return { ranked, filled, fit, weight };
}

/** A tool's filled arguments and the share of the clause's leftover words they took. */
export interface FillAndFit {
  filled: FillResult;
  fit: number;
}

const schemaIds = new WeakMap<object, number>();
const schemaTexts = new Map<string, number>();
/** Ids are never reused, not even after the texts are forgotten: a tool keeps the id it was given. */
let nextSchemaId = 0;

/**
 * What filling depends on besides the clause: the parameters (by their JSON), the words that chose
 * the tool, and what the tool's description says of its numbers ("Subtract b from a").
 */
function fillKey(tool: ToolDefinition, toolWords: ReadonlySet<string>): string {
  let own = toolKeys.get(tool);
  if (own === undefined) {
    let id = schemaIds.get(tool.inputSchema);
    if (id === undefined) {
      const text = JSON.stringify(tool.inputSchema);
      id = schemaTexts.get(text);
      if (id === undefined) {
        if (schemaTexts.size >= 10_000) schemaTexts.clear();
        schemaTexts.set(text, (id = nextSchemaId++));
      }
      schemaIds.set(tool.inputSchema, id);
    }
    const params = paramsOf(tool.inputSchema as Record<string, unknown>);
    const numbers = params
      .filter((p) => p.type === 'number' || p.type === 'integer')
      .map((p) => [...describedPrepositions(p, tool.description)].sort().join('|'))
      .join(';');
    toolKeys.set(tool, (own = `${id}\u0000${numbers}`));
  }
  return `${own}\u0000${[...toolWords].sort().join(' ')}`;
}

/** Each tool's part of its fill key (its parameters and what its description says of its numbers), read once per tool. */
const toolKeys = new WeakMap<ToolDefinition, string>();

function fillAndFit(tool: ToolDefinition, toolWords: ReadonlySet<string>, context: FitContext): FillAndFit {
  const filled = fillArguments(tool.inputSchema as Record<string, unknown>, {
    clause: context.clause,
    offset: context.offset,
    language: context.query.language,
    toolWords,
    description: tool.description,
    ...(context.previousStep ? { previousStep: context.previousStep } : {}),
    ...(context.now !== undefined ? { now: context.now } : {}),
  });
  const spans = Object.values(filled.sources).map((s) => ({ start: s.start - context.offset, end: s.end - context.offset }));
  // Values (names, dates, numbers) count double: a tool with no room for a stated day or amount misses more than a word.
  const values = new Set(context.query.words.filter((w) => w.value).map((w) => w.token.start));
  let leftover = 0;
  let taken = 0;
  const tokens = readTokens(context.clause);
  const lead = openingIndex(tokens, { language: context.query.language });
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (toolWords.has(token.word) || isStopWord(token.word, context.query.language)) continue;
    // The verb a request opens with asks for an action; no tool's arguments take it.
    if (i === lead && isRequestVerb(token.word, context.query.language)) continue;
    const weight = values.has(token.start) || /\d/.test(token.word) ? VALUE_WEIGHT : 1;
    leftover += weight;
    if (spans.some((s) => token.start >= s.start && token.end <= s.end)) taken += weight;
  }
  return { filled, fit: leftover === 0 ? 1 : taken / leftover };
}

/**
 * How many of `tool`'s required parameters no filling can give from the clause: numbers when it
 * writes none (and there is no earlier step to take "the result" from), dates and times when it
 * names none. A lower bound of what {@link fitOf} reports missing, read without filling.
 */
function surelyMissing(tool: ToolDefinition, context: FitContext): number {
  let count = 0;
  let numbers: boolean | undefined;
  let dates: boolean | undefined;
  for (const param of paramsOf(tool.inputSchema as Record<string, unknown>)) {
    if (!param.required) continue;
    if ((param.type === 'number' || param.type === 'integer') && context.previousStep === undefined) {
      numbers ??= readClause(context.clause, context.query.language, context.now, false).numbers.length > 0;
      if (!numbers) count++;
    } else if (dateKind(param) !== undefined) {
      dates ??= mayNameDate(context.clause);
      if (!dates) count++;
    }
  }
  return count;
}

/**
 * Weigh the tools close to the decision's best by how well their arguments fit the clause and
 * return the one to take with its filled arguments. A tool replaces the first choice only when it
 * needs no more evidence than the first choice had (a tool with side effects does not win on a
 * read-only tool's evidence) and it outweighs it.
 */
export function fitArguments(
  index: ToolIndex,
  decision: Extract<ClauseDecision, { accepted: true }>,
  context: FitContext,
  minEvidence: (sideEffects: boolean) => number,
): Fitted {
  const fills = new Map<string, FillAndFit>();
  const first = fitOf(index.tools[decision.best.position]!, decision.best, context, fills);
  const floor = CLOSE * decision.best.score.score;
  let chosen = first;
  let weighed = 1;
  for (const ranked of decision.ranked) {
    if (weighed >= MOST) break;
    if (ranked === decision.best || ranked.score.score < floor) continue;
    const entry = index.tools[ranked.position]!;
    if (ranked.score.score < minEvidence(entry.sideEffects)) continue;
    // A tool weighs at most its relevance: one that cannot outweigh the choice so far is not filled.
    if (ranked.score.score <= chosen.weight) continue;
    weighed++;
    // Nor one whose required parameters the clause cannot fill, whatever the filling, brings it below that.
    if (ranked.score.score * MISSING_FACTOR ** surelyMissing(entry.tool, context) <= chosen.weight) continue;
    const other = fitOf(entry, ranked, context, fills);
    if (other.weight > chosen.weight) chosen = other;
  }
  return chosen;
}

/** Whether a filled value's span overlaps `[start, end)` (offsets in the goal). */
export function holds(filled: FillResult, start: number, end: number): boolean {
  return Object.values(filled.sources).some((s) => start < s.end && end > s.start);
}

/**
 * A day the clause states that `tool` has no date or time parameter for and its filled values do
 * not hold (a length of time a number took, or a day inside a message, is held): the words that
 * state it, else undefined.
 */
export function unplacedDate(tool: ToolDefinition, fitted: Fitted, context: FitContext): string | undefined {
  if (fitted.ranked.score.named) return undefined;
  if (paramsOf(tool.inputSchema as Record<string, unknown>).some((p) => dateKind(p) !== undefined)) return undefined;
  const held = (start: number, end: number) => holds(fitted.filled, start + context.offset, end + context.offset);
  if (mayNameDate(context.clause)) {
    // Today is the day a tool without one serves ("is the air safe to breathe today?").
    const today = context.now === undefined ? undefined : new Date(context.now).toISOString().slice(0, 10);
    const day = dateMentions(context.clause, context.query.language, context.now).find(
      (d) => d.kind !== 'time' && !(d.kind === 'date' && d.value === today) && !held(d.start, d.end),
    );
    if (day) return context.clause.slice(day.start, day.end);
  }
  // A year alone is a period too ("who won the Oscar in 2020?").
  const year = /\b(?:in|of|during|im|en|nel|em|del|de)\s+(?:19|20)\d\d\b/iu.exec(context.clause);
  return year && !held(year.index, year.index + year[0].length) ? year[0] : undefined;
}

// A tool that serves only days to come, by its own description: a forecast cannot tell the past.
const FORWARD = /\b(?:forecasts?|upcoming|coming (?:days|weeks|hours)|days ahead|future)\b/iu;

/**
 * Whether `days` (filled values of date parameters) fall outside what a tool that serves only days
 * to come can reach: before `now`, or further ahead than a count-of-days parameter's maximum allows
 * (a forecast "from today", at most 14 days).
 */
function outOfReach(tool: ToolDefinition, days: readonly unknown[], now: number | undefined): boolean {
  if (now === undefined || !FORWARD.test(tool.description)) return false;
  const today = new Date(now).toISOString().slice(0, 10);
  const horizon = paramsOf(tool.inputSchema as Record<string, unknown>)
    .filter((p) => (p.type === 'integer' || p.type === 'number') && /\bdays?\b/iu.test(`${p.name} ${p.description}`))
    .map((p) => p.schema['maximum'])
    .find((maximum): maximum is number => typeof maximum === 'number');
  const last = horizon === undefined ? undefined : new Date(now + horizon * 86_400_000).toISOString().slice(0, 10);
  return days.some((day) => {
    if (typeof day !== 'string' || !/^\d{4}-\d\d-\d\d/u.test(day)) return false;
    return day.slice(0, 10) < today || (last !== undefined && day.slice(0, 10) > last);
  });
}

/**
 * The first of the decision's other tools that has a parameter for the clause's day, is relevant
 * enough, and places it (a day a tool that serves days to come cannot reach is not placed in it).
 */
export function placeDate(
  index: ToolIndex,
  decision: Extract<ClauseDecision, { accepted: true }>,
  context: FitContext,
  minEvidence: (sideEffects: boolean) => number,
): Fitted | undefined {
  let tried = 0;
  for (const ranked of decision.ranked) {
    if (tried >= MOST || ranked.score.score < DATED_SHARE * decision.best.score.score) break;
    const entry = index.tools[ranked.position]!;
    if (ranked.score.score < minEvidence(entry.sideEffects)) continue;
    const dated = paramsOf(entry.tool.inputSchema as Record<string, unknown>).filter((p) => dateKind(p) !== undefined);
    if (dated.length === 0) continue;
    tried++;
    const fitted = fitOf(entry, ranked, context);
    const days = dated.map((p) => fitted.filled.input[p.name]).filter((day) => day !== undefined);
    if (days.length && !outOfReach(entry.tool, days, context.now)) return fitted;
  }
  return undefined;
}

// A question that asks for a procedure ("how do I file my taxes?") or for advice ("how much
// should I save for retirement?"), in English. Asking how to look something up asks for it ("how
// can I find sushi near me", "how do I get to the Louvre"), and "how do you say …" for a translation.
const HOW_TO =
  /^\s*how (?:(?:do|can|should|could) (?:i|we|you|one)|(?:much|many|often|long) should (?:i|we))\b(?!\s+(?:say|find|get|go|see|check|know|look|search|tell|watch|hear|listen)\b)/iu;

/**
 * The opening of a how-to question that `entry` should not be run for, else undefined: asked how,
 * a tool with side effects is not run, and one that only reads is run only when its required
 * parameters are filled, one at least with a value the clause states (a number, a name, a day:
 * "how do I convert 5 miles to km", "… the weather in Paris"), not only with words of the
 * procedure ("how do I recover a deleted file").
 */
export function asksHowTo(entry: IndexedTool, fitted: Fitted, query: Query, context: FitContext): string | undefined {
  const howTo = HOW_TO.exec(context.clause);
  if (!howTo) return undefined;
  if (entry.sideEffects) return howTo[0].trim();
  const values = query.words.filter((w) => w.value && w.token.word !== 'i');
  const sources = paramsOf(entry.tool.inputSchema as Record<string, unknown>)
    .filter((p) => p.required)
    .map((p) => fitted.filled.sources[p.name]);
  const stated = (source: { start: number; end: number }) =>
    /\d/u.test(context.clause.slice(source.start - context.offset, source.end - context.offset)) ||
    values.some((w) => w.token.start + context.offset < source.end && w.token.end + context.offset > source.start);
  const valued = sources.every((source) => source !== undefined) && sources.some((source) => source !== undefined && stated(source));
  return valued ? undefined : howTo[0].trim();
}
