import { HashingEmbedder } from '../embed/hashingEmbedder.ts';
import { ENGLISH_STOP_WORDS } from '../embed/tokenize.ts';
import type { Ids } from '../ports.ts';
import { DEFAULT_CONFIG } from '../schema/config.ts';
import { PlanningPreferencesSchema, type Plan, type PlanCandidate, type PlanningPreferencesInput, type PlanStep, type PlanStopReason } from '../schema/plan.ts';
import { parseOrThrow } from '../schema/validate.ts';
import type { ToolDefinition } from '../tools/tool.ts';
import type { ToolRegistry } from '../tools/toolRegistry.ts';
import { fillSlots } from './slotFilling.ts';
import { detectToolCalls } from './toolCallDetector.ts';

/** Options of {@link Planner}. */
export interface PlannerOptions {
  /** Ids for plans; required so plans are reproducible under a seeded id port. */
  ids: Ids;
  /** Default most steps (clamped to 1..50). Default 10. */
  maxSteps?: number;
  /** Default least similarity for a tool to be relevant. Default 0.12. */
  minSimilarity?: number;
  /** Embedding dimension for goal/tool similarity. Default 512. */
  dimension?: number;
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
}

// Clause boundaries: ";", new lines, and sequencing words. Quoted text is never split.
const CLAUSE_BREAK = /\s*(?:;|\n+|,?\s+and\s+then\s+|,?\s+then\s+|,?\s+after\s+that\s*,?\s+|,?\s+afterwards\s*,?\s+|,?\s+finally\s*,?\s+)\s*/gi;

/** Split a goal into the clauses that each become (at most) one step; quoted text stays whole. */
export function splitClauses(goal: string): string[] {
  const masked = goal.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|“[^”]*”/g, (m) => '\u0000'.repeat(m.length));
  const clauses: string[] = [];
  let start = 0;
  for (const match of masked.matchAll(CLAUSE_BREAK)) {
    clauses.push(goal.slice(start, match.index));
    start = match.index + match[0].length;
  }
  clauses.push(goal.slice(start));
  return clauses.map((c) => c.trim()).filter((c) => /[\p{L}\p{N}]/u.test(c));
}

/** Number words say how many, not what to do. */
const NUMBER_WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'hundred', 'thousand', 'number', 'numbers'];

function clampSteps(value: number): number {
  return Math.min(50, Math.max(1, Math.floor(value)));
}

function round(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

/**
 * Turns a goal into an ordered plan over one profile's tools, without a model:
 *
 * 1. **Pattern plan**: tool calls written in the goal (`add(a=10, b=5)`, JSON calls) become steps as written.
 * 2. **Ranking**: otherwise each clause of the goal is embedded and every tool is scored by
 *    cosine similarity to its name and description, combined with cheapness and speed through
 *    the {@link PlanningPreferences} weights. Tools below the similarity floor are never chosen,
 *    so the planner never returns all tools blindly.
 * 3. **Abstain**: when no tool is relevant the plan is empty and says why.
 * 4. **Slot filling** fills each step's inputs from its clause, driven by the tool's JSON Schema.
 * 5. The plan is clamped to the step limit.
 *
 * Planning is pure: the same goal and tools give the same plan. One planner serves every run
 * of an orchestrator, so each tool is embedded once (tools are cached by identity).
 */
export class Planner {
  readonly #ids: Ids;
  readonly #maxSteps: number;
  readonly #minSimilarity: number;
  readonly #embedder: HashingEmbedder;
  readonly #toolVectors = new WeakMap<ToolDefinition, Float32Array>();

  constructor(options: PlannerOptions) {
    this.#ids = options.ids;
    this.#maxSteps = clampSteps(options.maxSteps ?? DEFAULT_CONFIG.plannerMaxSteps);
    this.#minSimilarity = Math.min(1, Math.max(0, options.minSimilarity ?? DEFAULT_CONFIG.plannerMinSimilarity));
    this.#embedder = new HashingEmbedder({ dimension: options.dimension ?? 512, bigrams: false, stopWords: [...ENGLISH_STOP_WORDS, ...NUMBER_WORDS] });
  }

  /** Plan `request.goal` over `request.registry`'s tools of `request.profile`. */
  plan(request: PlanRequest): Plan {
    const preferences = parseOrThrow(PlanningPreferencesSchema, request.preferences ?? {}, 'planning preferences');
    const limit = request.maxSteps === undefined ? this.#maxSteps : clampSteps(request.maxSteps);
    const maxSteps = Math.min(50, preferences.maxSteps ?? limit);
    const minSimilarity = preferences.minSimilarity ?? this.#minSimilarity;

    const excluded = new Set(request.exclude ?? []);
    const tools = request.registry.definitions(request.profile).filter((tool) => !excluded.has(tool.name));
    const planned = this.#patternPlan(request.goal, tools) ?? this.#rankedPlan(request.goal, tools, preferences, minSimilarity);

    let steps = planned.steps;
    let stopReason = planned.stopReason;
    if (steps.length > maxSteps) {
      steps = steps.slice(0, maxSteps);
      stopReason = 'max_steps';
    }
    const plan: Plan = {
      planId: request.planId ?? this.#ids.next('plan'),
      goal: request.goal,
      profile: request.profile,
      traceId: request.traceId,
      steps,
      candidates: planned.candidates,
      source: planned.source,
      stopReason,
    };
    return plan;
  }

  /** Similarity of `text` to each tool, in [-1, 1]; exposed for dry runs and tests. */
  similarities(text: string, tools: readonly ToolDefinition[]): Map<string, number> {
    // Numbers are data for slot filling, not intent: leave them out of the comparison.
    const query = this.#embedder.embed(text.replace(/\d+(?:[.,]\d+)?/g, ' '));
    const scores = new Map<string, number>();
    for (const tool of tools) scores.set(tool.name, round(dot(query, this.#toolVector(tool))));
    return scores;
  }

  #patternPlan(goal: string, tools: readonly ToolDefinition[]): Omit<Plan, 'planId' | 'goal' | 'profile' | 'traceId'> | undefined {
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

  #rankedPlan(
    goal: string,
    tools: readonly ToolDefinition[],
    preferences: { similarityWeight: number; costWeight: number; latencyWeight: number },
    minSimilarity: number,
  ): Omit<Plan, 'planId' | 'goal' | 'profile' | 'traceId'> {
    const clauses = splitClauses(goal);
    const maxCost = Math.max(0, ...tools.map((t) => t.cost)) || 1;
    const maxLatency = Math.max(0, ...tools.map((t) => t.latency)) || 1;
    const weightSum = preferences.similarityWeight + preferences.costWeight + preferences.latencyWeight || 1;
    const candidates: PlanCandidate[] = [];
    const steps: PlanStep[] = [];

    clauses.forEach((clause, clauseIndex) => {
      const similarity = this.similarities(clause, tools);
      const scored = tools.map((tool) => {
        const sim = similarity.get(tool.name) ?? 0;
        const score =
          (preferences.similarityWeight * sim +
            preferences.costWeight * (1 - tool.cost / maxCost) +
            preferences.latencyWeight * (1 - tool.latency / maxLatency)) /
          weightSum;
        return { tool, similarity: sim, score: round(score), relevant: sim >= minSimilarity && sim > 0 };
      });
      const ranked = scored.filter((s) => s.relevant).sort((a, b) => b.score - a.score || b.similarity - a.similarity || (a.tool.name < b.tool.name ? -1 : 1));
      const best = ranked[0];
      for (const entry of scored) {
        const selected = entry === best;
        const reason = selected
          ? `highest score among ${ranked.length} relevant tool${ranked.length === 1 ? '' : 's'}`
          : !entry.relevant
            ? `similarity ${entry.similarity} is below the floor ${minSimilarity}`
            : `outscored by ${best!.tool.name} (${best!.score} > ${entry.score})`;
        candidates.push({
          tool: entry.tool.name,
          clause: clauseIndex,
          similarity: entry.similarity,
          cost: entry.tool.cost,
          latency: entry.tool.latency,
          score: entry.score,
          selected,
          reason,
        });
      }
      if (best) {
        const index = steps.length;
        const previous = steps[index - 1]?.name;
        const input = fillSlots(best.tool.inputSchema as Record<string, unknown>, {
          clause,
          goal,
          tool: best.tool.name,
          ...(previous ? { previousStep: previous } : {}),
        });
        steps.push({ name: `step-${index}`, tool: best.tool.name, input, index });
      }
    });

    candidates.sort((a, b) => a.clause - b.clause || b.score - a.score || (a.tool < b.tool ? -1 : 1));
    const stopReason: PlanStopReason = steps.length === 0 ? 'no_relevant_tool' : 'planned';
    return { steps, candidates, source: 'ranking', stopReason };
  }

  #toolVector(tool: ToolDefinition): Float32Array {
    let vector = this.#toolVectors.get(tool);
    if (!vector) {
      vector = this.#embedder.embed(`${tool.name.replace(/_/g, ' ')} ${tool.name} ${tool.description}`);
      this.#toolVectors.set(tool, vector);
    }
    return vector;
  }
}

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}
