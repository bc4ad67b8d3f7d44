/**
 * Deciding on evidence whether a clause has a tool. Not an absolute similarity floor: a tool is
 * taken when the words it matched are informative enough, cover enough of what the clause
 * asks (its non-value words), and stand clear of the runner-up; a tool that changes the world
 * (asks for approval, or is not safe to repeat) needs more of each.
 */
import type { PlanRefusalCode } from '../../schema/plan.ts';
import type { Query, QueryWord, ToolScore } from './bm25f.ts';
import { termsOf } from './terms.ts';
import { DISTINCTIVE_VERB, GENERIC_ACTION, type ToolIndex } from './toolIndex.ts';
import { lookupTable } from '../../lookupTable.ts';
import { higherFirst } from '../slots/types.ts';

/** Thresholds of the decision; the defaults were set on the development half of the labelled set. */
export interface EvidenceThresholds {
  /** Least score (weight × saturation) for a read-only tool. */
  minEvidence: number;
  /** Least score for a tool with side effects. */
  minEvidenceSideEffects: number;
  /** Least share of the clause's intent weight the tool must match. */
  minCoverage: number;
  /** The same for a tool with side effects. */
  minCoverageSideEffects: number;
  /** Least relative margin over the runner-up, unless the evidence is strong. */
  minMargin: number;
  /** Score from which the margin no longer matters. */
  strongEvidence: number;
}

export const DEFAULT_THRESHOLDS: Readonly<EvidenceThresholds> = Object.freeze({
  minEvidence: 2,
  minEvidenceSideEffects: 3,
  minCoverage: 0,
  minCoverageSideEffects: 0,
  minMargin: 0.1,
  strongEvidence: 4,
});

/** What a tool with side effects keeps of its score; a question keeps less of it. */
const SIDE_EFFECT_FACTOR = 0.85;
const QUESTION_FACTOR = 0.7;
/** What a tool keeps of its score when the request says none of the action verbs of its name ("book" for `cancel_flight`). */
const OTHER_ACTION_FACTOR = 0.8;
/** How many of the best-scoring tools are weighed and kept as candidates. */
const TOP = 24;
/** Tools within this share of the best score are equally relevant: cost and latency preferences order them. */
const BAND = 0.95;

/** A tool ranked for a clause, with what its choice rests on. */
export interface RankedTool {
  position: number;
  /** Relevance in [0, 1]: the share of the clause's intent weight the tool matched. */
  similarity: number;
  /** Relevance weighed with cheapness and speed by the planning preferences. */
  preference: number;
  score: ToolScore;
  /** Share of the clause's intent weight the tool matched, in [0, 1]. */
  coverage: number;
}

/** The outcome for one clause. */
export type ClauseDecision =
  | { accepted: true; best: RankedTool; ranked: RankedTool[]; evidence: string }
  | { accepted: false; code: PlanRefusalCode; message: string; ranked: RankedTool[] };

/** Preference weights, as the plan schema defines them. */
export interface Weights {
  similarityWeight: number;
  costWeight: number;
  latencyWeight: number;
}

function round(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

/** The clause's intent weight: its content words that are not values (all of them when every word is a value). */
export function intentWeight(query: Query): number {
  let intent = 0;
  let all = 0;
  const seen = new Set<string>();
  for (const word of query.words) {
    if (seen.has(word.token.word)) continue;
    seen.add(word.token.word);
    all += word.terms.weight;
    if (!word.value) intent += word.terms.weight;
  }
  return intent > 0 ? intent : all;
}

/** What a tool keeps of its score when every word it matched is only in its parameters' names ("the speed limit" for a `limit` parameter). */
const PARAMETER_ONLY_FACTOR = 0.3;
/** What a tool keeps of its score when the clause opens with an action verb it does not match ("print the document" for a file search). */
const UNMATCHED_VERB_FACTOR = 0.4;
/** Verbs that ask for an action of their own, beyond the tool verbs: a tool that matches none of a clause's opening verb serves another request. */
const ACTION_VERBS = new Set(
  (
    'unsend block unblock print undo redo download mute unmute empty dispute rate open recover increase decrease install uninstall clean fix repair ' +
    'sign renew upgrade downgrade restore backup sync connect disconnect pair charge refill water feed wash cook bake deliver ship exchange swap ' +
    'cancel book buy order send pay transfer delete remove create add move rename lock unlock play stop start track convert translate compare ' +
    'calculate solve scale log record remind schedule share compress zip unzip upload apply post invite call text email dial reserve rent hire ' +
    'write draft summarize summarise define estimate vacuum close archive subscribe unsubscribe follow unfollow like'
  ).split(' '),
);

/** The verb a clause opens with (after a preamble), when it is one of {@link ACTION_VERBS}; English only. */
function openingVerb(query: Query): string | undefined {
  if (query.language !== 'en' || query.question) return undefined;
  const first = openingWord(query);
  if (!first || first.value || !ACTION_VERBS.has(first.token.word)) return undefined;
  // A phrasal verb means something else ("send back" returns).
  const next = query.folded[query.folded.indexOf(first.token.word) + 1];
  return next !== undefined && /^(back|up|down|off|on|out|over|in|away)$/.test(next) ? undefined : first.token.raw;
}

/**
 * Which `count` of `scores`, each weighed by its factor, are best (highest first, then by
 * position), without sorting them all: their indices.
 */
function topScores(scores: readonly ToolScore[], factors: readonly number[], count: number): number[] {
  if (scores.length <= count) return scores.map((_, i) => i);
  const before = (i: number, j: number) => {
    const a = scores[i]!.score * factors[i]!;
    const b = scores[j]!.score * factors[j]!;
    return a > b || (a === b && scores[i]!.position < scores[j]!.position);
  };
  const kept: number[] = [];
  for (let i = 0; i < scores.length; i++) {
    if (kept.length === count && !before(i, kept[count - 1]!)) continue;
    let at = kept.length === count ? count - 1 : kept.length;
    while (at > 0 && before(i, kept[at - 1]!)) {
      kept[at] = kept[at - 1]!;
      at--;
    }
    kept[at] = i;
  }
  return kept;
}

/** The clause's first content word past a preamble ("I'd like to", "please"): where its verb stands, if it opens with one. */
function openingWord(query: Query): QueryWord | undefined {
  return query.words.find((w) => w.token.end > w.token.start && !PREAMBLE.test(w.token.word));
}

/** Words before the verb of a request ("I'd like to", "please", "can you"). */
const PREAMBLE = /^(like|want|need|wanna|please|kindly|just|quickly|go|ahead|try|help|let|lets|let's|i'd|i'm|i'll|you|can|could|would|will)$/;
/** Verbs that are as often the nouns of a request ("text", "record", "archive", "order"). */
const ALSO_NOUNS =
  /^(text|record|archive|order|rate|review|like|call|mark|log|return|charge|store|post|email|set|start|stop|switch|close|open|empty|clear|book)$/;

/** Verbs that state another tool verb's action: "text Jake" sends, "record a run" logs, "add an event" creates it. */
const ACTION_ALSO: Readonly<Record<string, readonly string[]>> = lookupTable({
  text: ['send'],
  message: ['send'],
  record: ['log'],
  add: ['create', 'log'],
  schedule: ['create', 'book'],
  note: ['log', 'create'],
  remove: ['delete', 'cancel'],
  delete: ['cancel'],
  cancel: ['delete'],
  drop: ['delete', 'cancel'],
  buy: ['book', 'order'],
  order: ['buy', 'book'],
  reserve: ['book'],
  write: ['send', 'create'],
  turn: ['set', 'switch'],
  switch: ['set', 'turn'],
});

/**
 * The terms of the action a clause states: its first content word (after a preamble), when that
 * is a distinctive verb and not a common noun; undefined otherwise.
 */
function statedAction(query: Query): ReadonlySet<string> | undefined {
  const first = openingWord(query);
  if (!first || first.value || !DISTINCTIVE_VERB.test(first.token.word) || GENERIC_ACTION.test(first.token.word)) return undefined;
  if (ALSO_NOUNS.test(first.token.word) && first.token.start > 0) return undefined;
  const terms = new Set([...first.terms.stems, ...first.terms.groups]);
  for (const verb of ACTION_ALSO[first.token.word] ?? []) for (const term of termsOf(verb, 'en')?.stems ?? []) terms.add(term);
  return terms;
}

/** -1 when a tool's `terms` hold one of `list` that is not only a parameter's name, else 1 when they hold any of `list`, else 0. */
function parameterHits(list: readonly string[], terms: ReadonlyMap<string, number>, parameterOnly: ReadonlySet<string>): number {
  let hit = 0;
  for (const term of list) {
    if (!terms.has(term)) continue;
    if (!parameterOnly.has(term)) return -1;
    hit = 1;
  }
  return hit;
}

/**
 * Rank the tools of `index` for a clause and decide. Preferences (cost, latency) only reorder
 * tools whose relevance is within 5 % of the best, so cheapness never beats a better match.
 */
export function decide(
  index: ToolIndex,
  query: Query,
  scores: readonly ToolScore[],
  weights: Weights,
  minSimilarity: number,
  thresholds: EvidenceThresholds = DEFAULT_THRESHOLDS,
): ClauseDecision {
  const intent = intentWeight(query);
  const tools = index.tools;
  const { maxCost, maxLatency } = index;
  const weightSum = weights.similarityWeight + weights.costWeight + weights.latencyWeight || 1;
  // The action the clause states in so many words: its first content word, when that is a distinctive verb ("book", "cancel", "pay").
  const stated = statedAction(query);
  const opening = openingVerb(query);
  const saysAction = (verbs: ReadonlyArray<readonly string[]>) => {
    if (verbs.length === 0 || !stated) return true;
    for (const terms of verbs) for (const term of terms) if (stated.has(term)) return true;
    return false;
  };
  let termsOfWord: Map<string, QueryWord['terms']> | undefined;
  // Whether every word a tool matched, by every term it matched, is one only its parameters' names have.
  const parametersOnly = (raw: ToolScore): boolean => {
    const { terms, parameterOnly } = tools[raw.position]!;
    if (parameterOnly.size === 0) return false;
    termsOfWord ??= new Map(query.words.map((w) => [w.token.raw, w.terms]));
    for (const word of raw.matched) {
      const of = termsOfWord.get(word);
      if (!of) return false;
      const stems = parameterHits(of.stems, terms, parameterOnly);
      if (stems < 0) return false;
      const groups = parameterHits(of.groups, terms, parameterOnly);
      if (groups < 0 || stems + groups === 0) return false;
    }
    return true;
  };
  // Each tool's evidence: its match, less for a tool with side effects and for one whose action the clause does not ask for.
  const live: ToolScore[] = [];
  const factors: number[] = [];
  for (const raw of scores) {
    if (raw.score <= 0) continue;
    const { sideEffects, verbs } = tools[raw.position]!;
    // A tool that changes the world needs more evidence, the more so when the clause only asks a question.
    let factor = sideEffects ? SIDE_EFFECT_FACTOR * (query.question ? QUESTION_FACTOR : 1) : 1;
    // A tool whose name's action the clause does not ask for serves another request about the same things.
    if (!raw.named && !saysAction(verbs)) factor *= OTHER_ACTION_FACTOR;
    // A clause that opens with an action the tool does not match asks for something else ("print the document", "mute the chat").
    if (!raw.named && opening !== undefined && !raw.matched.includes(opening)) factor *= UNMATCHED_VERB_FACTOR;
    live.push(raw);
    factors.push(factor);
  }
  // Only the tools near the top can be chosen or shown: the rest is not worth weighing (nor copying with their weighed scores).
  const top24 = topScores(live, factors, TOP).map((i) => {
    const raw = live[i]!;
    const factor = factors[i]!;
    return factor === 1 ? raw : { position: raw.position, score: raw.score * factor, matchedWeight: raw.matchedWeight, matched: raw.matched, named: raw.named };
  });
  // A tool matched only by the names of its parameters is not what the clause asks for. Read for
  // the tools near the top only: one this far below the best cannot become the choice.
  let topScore = 0;
  for (const score of top24) if (score.score > topScore) topScore = score.score;
  for (let i = 0; i < top24.length; i++) {
    const score = top24[i]!;
    if (!score.named && score.score >= PARAMETER_ONLY_FACTOR * topScore && parametersOnly(score))
      top24[i] = { ...score, score: score.score * PARAMETER_ONLY_FACTOR };
  }
  const ranked: RankedTool[] = top24.map((score) => {
    const { tool } = tools[score.position]!;
    const coverage = intent > 0 ? Math.min(1, score.matchedWeight / intent) : 0;
    // Relevance is the share of the clause's informative words the tool matched.
    const similarity = round(coverage);
    const preference = round(
      (weights.similarityWeight * similarity + weights.costWeight * (1 - tool.cost / maxCost) + weights.latencyWeight * (1 - tool.latency / maxLatency)) /
        weightSum,
    );
    return { position: score.position, similarity, preference, score, coverage };
  });
  const byRelevance = ranked.sort((a, b) => higherFirst(a.score.score, b.score.score) || a.position - b.position);
  const top = byRelevance[0];
  if (!top) return { accepted: false, code: 'no_match', message: 'no word of the request matches any tool', ranked: [] };
  const band = byRelevance.filter((r) => r.score.score >= BAND * top.score.score);
  band.sort((a, b) => higherFirst(a.preference, b.preference) || higherFirst(a.score.score, b.score.score) || a.position - b.position);
  const order = [...band, ...byRelevance.filter((r) => !band.includes(r))];
  const best = order[0]!;
  const runnerUp = order.find((r) => r !== best && tools[r.position]!.tool.description !== tools[best.position]!.tool.description);
  const evidence = best.score.score;
  const sideEffects = tools[best.position]!.sideEffects;
  const margin = runnerUp ? (evidence - runnerUp.score.score) / evidence : 1;
  const words = best.score.matched.join(', ');
  // Written for an accepted clause only: a refusal says why in its own words.
  const evidenceText = () => `matched ${words} (evidence ${round(evidence)}, coverage ${round(best.coverage)}, margin ${round(margin)})`;
  if (best.score.named) return { accepted: true, best, ranked: order, evidence: `named in the request; ${evidenceText()}` };
  const minEvidence = sideEffects ? thresholds.minEvidenceSideEffects : thresholds.minEvidence;
  const minCoverage = sideEffects ? thresholds.minCoverageSideEffects : thresholds.minCoverage;
  const name = tools[best.position]!.tool.name;
  if (evidence < minEvidence) {
    return {
      accepted: false,
      code: sideEffects ? 'side_effect_weak_evidence' : 'weak_evidence',
      message: `${name} matched only ${words} (evidence ${round(evidence)} < ${minEvidence}${sideEffects ? ', a tool with side effects' : ''})`,
      ranked: order,
    };
  }
  if (best.coverage < minCoverage) {
    return {
      accepted: false,
      code: sideEffects ? 'side_effect_weak_evidence' : 'low_coverage',
      message: `${name} matched ${words}, ${Math.round(best.coverage * 100)}% of what the request asks (< ${Math.round(minCoverage * 100)}%)`,
      ranked: order,
    };
  }
  if (margin < thresholds.minMargin && evidence < thresholds.strongEvidence && runnerUp) {
    return {
      accepted: false,
      code: 'ambiguous',
      message: `${name} and ${tools[runnerUp.position]!.tool.name} match the request about as well (margin ${round(margin)})`,
      ranked: order,
    };
  }
  if (best.similarity < minSimilarity) {
    return { accepted: false, code: 'below_floor', message: `${name}: similarity ${best.similarity} is below the floor ${minSimilarity}`, ranked: order };
  }
  return { accepted: true, best, ranked: order, evidence: evidenceText() };
}

/**
 * The clause's content words, names and values a tool left unmatched when all it matched is the
 * clause's opening verb ("cancel" of "cancel my gym membership" for `cancel_flight`, "convert" of
 * "convert this PDF to Word" for a unit converter); undefined when it matched more, or the clause
 * opens with no verb, or names nothing else.
 */
export function actionOnlyLeftover(query: Query, matched: readonly string[], verbs: ReadonlyArray<readonly string[]>): QueryWord[] | undefined {
  const first = openingWord(query);
  if (!first || first.value) return undefined;
  if (matched.some((raw) => raw !== first.token.raw && raw !== '?')) return undefined;
  const word = first.token.word;
  const isVerb =
    ACTION_VERBS.has(word) ||
    DISTINCTIVE_VERB.test(word) ||
    GENERIC_ACTION.test(word) ||
    verbs.some((terms) => terms.some((term) => first.terms.stems.includes(term) || first.terms.groups.includes(term)));
  if (!isVerb) return undefined;
  const leftover = query.words.filter((w) => w !== first && w.token.end > w.token.start && !matched.includes(w.token.raw));
  return leftover.length > 0 ? leftover : undefined;
}
