import type { Clock, Ids } from '../ports.ts';
import { DEFAULT_CONFIG } from '../schema/config.ts';
import {
  PlanningPreferencesSchema,
  type InputRequired,
  type Plan,
  type PlanCandidate,
  type PlanningPreferencesInput,
  type PlanRefusal,
  type PlanStep,
} from '../schema/plan.ts';
import { parseOrThrow } from '../schema/validate.ts';
import type { ToolDefinition } from '../tools/tool.ts';
import type { ToolRegistry } from '../tools/toolRegistry.ts';
import { clausesOf } from './clauses.ts';
import { fitArguments, holds, placeDate, unplacedDate, type Fitted } from './argumentFit.ts';
import { misreadingOf } from './intentChecks.ts';
import { actionOnlyLeftover, decide, DEFAULT_THRESHOLDS, type ClauseDecision, type Weights } from './ranking/abstain.ts';
import { readQuery, scoreTools, type Query } from './ranking/bm25f.ts';
import { indexTools, type ToolIndex } from './ranking/toolIndex.ts';
import { detectToolCalls } from './toolCallDetector.ts';
import { higherFirst } from './slots/types.ts';

export { splitClauses } from './clauses.ts';

/** Options of {@link Planner}. */
export interface PlannerOptions {
  /** Ids for plans; required so plans are reproducible under a seeded id port. */
  ids: Ids;
  /** Default most steps (clamped to 1..50). Default 10. */
  maxSteps?: number;
  /** Least relevance (0..1: the share of the request's informative words a tool matches) for a tool to be chosen. Default 0.12. */
  minSimilarity?: number;
  /** Where relative dates ("tomorrow") are read from when a request carries no `now`. Absent, such dates are left out. */
  clock?: Clock;
}

/** What one call to {@link Planner.plan} needs. */
export interface PlanRequest {
  goal: string;
  profile: string;
  /** The profile's (sandboxed) registry. */
  registry: ToolRegistry;
  traceId: string;
  runId: string;
  preferences?: PlanningPreferencesInput;
  /** Tools to leave out (a replan after failures). */
  exclude?: readonly string[];
  /** The plan's id; default the next id of the planner's id port. */
  planId?: string;
  /** Most steps for this plan (clamped to 1..50); default the planner's. `preferences.maxSteps` overrides it. */
  maxSteps?: number;
  /** The instant relative dates are read against (ms since the epoch); default the planner's clock. */
  now?: number;
}

type Planned = Omit<Plan, 'planId' | 'goal' | 'profile' | 'traceId'>;

/** Candidates kept per clause: every tool when there are few, else the closest. */
const MAX_CANDIDATES = 12;

function clampSteps(value: number): number {
  return Math.min(50, Math.max(1, Math.floor(value)));
}

/**
 * Turns a goal into an ordered plan over one profile's tools, without a model:
 *
 * 1. **Pattern plan**: tool calls written in the goal (`add(a=10, b=5)`, JSON calls) become steps as written.
 * 2. **Ranking as retrieval**: each clause of the goal is scored against every tool with BM25F
 *    over the tool's name, aliases, description, parameters and examples (stems in six
 *    languages, a synonym lexicon, background word weights from everyday English), so a
 *    tool scores the same among 3 tools or 300.
 * 3. **Abstention on evidence**: a tool is chosen when the words it matched are informative,
 *    cover what the clause asks, and stand clear of the runner-up — more so for tools with side
 *    effects. A clause with no tool empties the plan (`no_relevant_tool`, with `refusals`).
 * 4. **Slot filling** reads each argument from the clause, with its span and reason; a clearly
 *    chosen tool whose required arguments are not in the goal stops the plan with
 *    `input_required`, listing them.
 * 5. The plan is clamped to the step limit.
 *
 * Planning is pure: the same goal, tools and instant give the same plan. Tools are indexed
 * once per definition and the index of a tool list is reused while the list is unchanged.
 */
export class Planner {
  readonly #ids: Ids;
  readonly #maxSteps: number;
  readonly #minSimilarity: number;
  readonly #clock: Clock | undefined;

  constructor(options: PlannerOptions) {
    this.#ids = options.ids;
    this.#maxSteps = clampSteps(options.maxSteps ?? DEFAULT_CONFIG.plannerMaxSteps);
    this.#minSimilarity = Math.min(1, Math.max(0, options.minSimilarity ?? DEFAULT_CONFIG.plannerMinSimilarity));
    this.#clock = options.clock;
  }

  /** Plan `request.goal` over `request.registry`'s tools of `request.profile`. */
  plan(request: PlanRequest): Plan {
    const preferences = parseOrThrow(PlanningPreferencesSchema, request.preferences ?? {}, 'planning preferences');
    const limit = request.maxSteps === undefined ? this.#maxSteps : clampSteps(request.maxSteps);
    const maxSteps = Math.min(50, preferences.maxSteps ?? limit);
    const minSimilarity = preferences.minSimilarity ?? this.#minSimilarity;

    const excluded = new Set(request.exclude ?? []);
    const all = request.registry.sortedDefinitions(request.profile);
    const tools = excluded.size === 0 ? all : all.filter((tool) => !excluded.has(tool.name));
    const now = request.now ?? this.#clock?.now();
    const planned = this.#patternPlan(request.goal, tools) ?? this.#rankedPlan(request.goal, tools, preferences, minSimilarity, now);

    let steps = planned.steps;
    let stopReason = planned.stopReason;
    if (steps.length > maxSteps) {
      steps = steps.slice(0, maxSteps);
      stopReason = 'max_steps';
    }
    return {
      planId: request.planId ?? this.#ids.next('plan'),
      goal: request.goal,
      profile: request.profile,
      traceId: request.traceId,
      steps,
      candidates: planned.candidates,
      source: planned.source,
      stopReason,
      ...(planned.refusals ? { refusals: planned.refusals } : {}),
      ...(planned.inputRequired ? { inputRequired: planned.inputRequired } : {}),
    };
  }

  /** Relevance of `text` to each tool, in [0, 1]; exposed for dry runs and tests. */
  similarities(text: string, tools: readonly ToolDefinition[]): Map<string, number> {
    const index = indexTools(tools);
    const query = readQuery(text);
    const decision = decide(index, query, scoreTools(index, query), { similarityWeight: 1, costWeight: 0, latencyWeight: 0 }, 0);
    const scores = new Map<string, number>(tools.map((tool) => [tool.name, 0]));
    for (const ranked of decision.ranked) scores.set(index.tools[ranked.position]!.tool.name, ranked.similarity);
    return scores;
  }

  #patternPlan(goal: string, tools: readonly ToolDefinition[]): Planned | undefined {
    // A call needs a name followed by "(", or a JSON object: most goals have neither.
    if (!goal.includes('(') && !goal.includes('{')) return undefined;
    const callable = new Map(tools.map((tool) => [tool.name, Object.keys((tool.inputSchema['properties'] as object | undefined) ?? {})]));
    const calls = detectToolCalls(goal, callable);
    if (calls.length === 0) return undefined;
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    const steps: PlanStep[] = calls.map((call, index) => ({ name: `step-${index}`, tool: call.tool, input: call.input, index }));
    const candidates: PlanCandidate[] = calls.map((call, index) => {
      const tool = byName.get(call.tool)!;
      return {
        tool: call.tool,
        clause: index,
        similarity: 1,
        cost: tool.cost,
        latency: tool.latency,
        score: 1,
        selected: true,
        reason: 'named explicitly in the goal',
      };
    });
    return { steps, candidates, source: 'pattern', stopReason: 'explicit_calls' };
  }

  #rankedPlan(goal: string, tools: readonly ToolDefinition[], weights: Weights, minSimilarity: number, now: number | undefined): Planned {
    const index = indexTools(tools);
    const candidates: PlanCandidate[] = [];
    const steps: PlanStep[] = [];
    const refusals: PlanRefusal[] = [];
    let inputRequired: InputRequired | undefined;

    const clauses = clausesOf(goal);
    clauses.forEach((clause, clauseIndex) => {
      const query = readQuery(clause.text);
      const decision: ClauseDecision =
        query.words.length === 0
          ? { accepted: false, code: 'no_words', message: 'the request has no word to match', ranked: [] }
          : decide(index, query, scoreTools(index, query), weights, minSimilarity);
      candidates.push(...candidatesOf(index, decision, clauseIndex, tools.length));
      if (!decision.accepted) {
        refusals.push(refusalOf(index, decision, clauseIndex, clause.text));
        return;
      }
      const previous = steps.at(-1)?.name;
      const context = {
        clause: clause.text,
        offset: clause.start,
        query,
        ...(now !== undefined ? { now } : {}),
        ...(previous ? { previousStep: previous } : {}),
      };
      const refuse = (tool: string, message: string, code: PlanRefusal['code'] = 'low_coverage') =>
        void refusals.push({ clause: clauseIndex, text: clause.text.slice(0, 500), code, message: message.slice(0, 1000), suggestions: [tool] });
      const minEvidence = (sideEffects: boolean) => (sideEffects ? DEFAULT_THRESHOLDS.minEvidenceSideEffects : DEFAULT_THRESHOLDS.minEvidence);
      let fitted = fitArguments(index, decision, context, minEvidence);
      let dayReason: string | undefined;
      // A question about a day the tool has no room for is another tool's, or none's ("the temperature in Paris on July 14, 1990").
      const unplaced = query.question ? unplacedDate(index.tools[fitted.ranked.position]!.tool, fitted, context) : undefined;
      if (unplaced) {
        const dated = placeDate(index, decision, context, minEvidence);
        if (!dated) {
          const name = index.tools[fitted.ranked.position]!.tool.name;
          return refuse(name, `${name} matched the request, but it asks about "${unplaced}", for which ${name} has no parameter`);
        }
        fitted = dated;
        dayReason = `it takes the day the request asks about ("${unplaced}"), which ${index.tools[decision.best.position]!.tool.name} has no room for`;
      }
      const entry = index.tools[fitted.ranked.position]!;
      const tool = entry.tool;
      const misreading = misreadingOf(entry, fitted, context);
      if (misreading) return refuse(tool.name, misreading);
      if (fitted.ranked !== decision.best)
        markChosen(
          candidates,
          clauseIndex,
          tool.name,
          index.tools[decision.best.position]!.tool.name,
          dayReason ??
            `its arguments account for ${Math.round(fitted.fit * 100)}% of the request's values, more than ${index.tools[decision.best.position]!.tool.name}'s`,
        );
      const filled = fitted.filled;
      if (filled.missing.length > 0) {
        const missing = filled.missing.map((p) => ({ name: p.name, type: p.type, ...(p.description ? { description: p.description } : {}) }));
        const unserved = actionOnly(fitted, index, query, clause.start);
        if (unserved)
          return refuse(
            tool.name,
            `${tool.name} matched only "${unserved.verb}", and what the request acts on ("${unserved.words}") is nothing it matches or takes`,
          );
        const ask = askable(fitted);
        if (ask && !inputRequired) {
          inputRequired = { clause: clauseIndex, tool: tool.name, input: filled.input, sources: filled.sources, missing };
        } else if (!ask) {
          refuse(tool.name, `${tool.name} fits only loosely and the request does not give ${missing.map((m) => m.name).join(', ')}`, 'missing_arguments');
        }
        return;
      }
      const index_ = steps.length;
      steps.push({ name: `step-${index_}`, tool: tool.name, input: filled.input, index: index_, sources: filled.sources });
    });

    if (clauses.length === 0)
      refusals.push({ clause: 0, text: goal.slice(0, 500), code: 'no_words', message: 'the goal has no word to match', suggestions: [] });
    candidates.sort((a, b) => a.clause - b.clause || higherFirst(a.score, b.score) || (a.tool < b.tool ? -1 : 1));
    if (refusals.length > 0) return { steps: [], candidates: unselect(candidates), source: 'ranking', stopReason: 'no_relevant_tool', refusals };
    if (inputRequired) return { steps: [], candidates, source: 'ranking', stopReason: 'input_required', inputRequired };
    return { steps, candidates, source: 'ranking', stopReason: steps.length === 0 ? 'no_relevant_tool' : 'planned' };
  }
}

function candidatesOf(index: ToolIndex, decision: ClauseDecision, clause: number, toolCount: number): PlanCandidate[] {
  const chosen = decision.accepted ? decision.best : undefined;
  const ranked = decision.ranked.slice(0, MAX_CANDIDATES);
  // Fewer matched tools than the list holds: tools that matched no word fill it, in name order.
  const room = Math.max(0, Math.min(toolCount, MAX_CANDIDATES) - ranked.length);
  const unmatched: number[] = [];
  if (room > 0) {
    const scored = new Set(decision.ranked.map((r) => r.position));
    for (let p = 0; p < index.tools.length && unmatched.length < room; p++) if (!scored.has(p)) unmatched.push(p);
  }
  const rows = ranked.map((r): PlanCandidate => {
    const { tool } = index.tools[r.position]!;
    const selected = r === chosen;
    const reason = selected
      ? `chosen: ${decision.accepted ? decision.evidence : ''}`
      : decision.accepted
        ? `outscored by ${index.tools[chosen!.position]!.tool.name}`
        : `not chosen: ${decision.message}`;
    return {
      tool: tool.name,
      clause,
      similarity: r.similarity,
      cost: tool.cost,
      latency: tool.latency,
      score: r.preference,
      selected,
      reason: reason.slice(0, 1000),
      matched: r.score.matched,
    };
  });
  for (const position of unmatched) {
    const { tool } = index.tools[position]!;
    rows.push({
      tool: tool.name,
      clause,
      similarity: 0,
      cost: tool.cost,
      latency: tool.latency,
      score: 0,
      selected: false,
      reason: 'not among the closest tools',
      matched: [],
    });
  }
  return rows;
}

function refusalOf(index: ToolIndex, decision: Extract<ClauseDecision, { accepted: false }>, clause: number, text: string): PlanRefusal {
  return {
    clause,
    text: text.slice(0, 500),
    code: decision.code,
    message: decision.message.slice(0, 1000),
    suggestions: decision.ranked.slice(0, 3).map((r) => index.tools[r.position]!.tool.name),
  };
}

/** Least share of the request's words a tool must match for the plan to stop and ask for its missing arguments. */
const ASK_COVERAGE = 0.75;
/** …or least evidence (a clearly informative word matched in the tool's name). */
const ASK_EVIDENCE = 8;

/**
 * When a tool lacking arguments matched only the clause's opening verb and its filling took none
 * of the other things the clause names ("cancel my gym membership" for `cancel_flight`): the
 * verb and those words, for the refusal. The request asks the same action of something else.
 */
function actionOnly(fitted: Fitted, index: ToolIndex, query: Query, offset: number): { verb: string; words: string } | undefined {
  const { score, position } = fitted.ranked;
  if (score.named) return undefined;
  const leftover = actionOnlyLeftover(query, score.matched, index.tools[position]!.verbs);
  if (!leftover) return undefined;
  if (leftover.some((w) => holds(fitted.filled, w.token.start + offset, w.token.end + offset))) return undefined;
  return { verb: score.matched.find((raw) => raw !== '?') ?? '', words: leftover.map((w) => w.token.raw).join(' ') };
}

/** Whether a tool whose required arguments are not all in the request is clear enough a choice to ask for them. */
function askable(fitted: Fitted): boolean {
  const { score, coverage } = fitted.ranked;
  return score.named || coverage >= ASK_COVERAGE || score.score >= ASK_EVIDENCE;
}

/** The candidates of a clause after its arguments chose `chosen` over `first`: the rows say so. */
function markChosen(candidates: PlanCandidate[], clause: number, chosen: string, first: string, why: string): void {
  for (const [i, c] of candidates.entries()) {
    if (c.clause !== clause) continue;
    if (c.tool === chosen)
      candidates[i] = {
        ...c,
        selected: true,
        reason: `chosen: ${why}`.slice(0, 1000),
      };
    else if (c.tool === first) candidates[i] = { ...c, selected: false, reason: `outscored by ${chosen} once the arguments were read` };
    else if (c.reason.startsWith('outscored by ')) candidates[i] = { ...c, reason: `outscored by ${chosen}` };
  }
}

function unselect(candidates: PlanCandidate[]): PlanCandidate[] {
  return candidates.map((c) => (c.selected ? { ...c, selected: false, reason: `${c.reason}; the plan stopped because a part of the goal has no tool` } : c));
}
