import * as z from 'zod';
import { GoalTextSchema, MetadataSchema, ProfileNameSchema, ToolNameSchema } from './common.ts';

/** Plan states, in order. `COMPLETED` and `FAILED` are terminal. */
export const PLAN_STAGES = ['CREATED', 'VALIDATED', 'EXECUTING', 'COMPLETED', 'FAILED'] as const;
export type PlanStage = (typeof PLAN_STAGES)[number];

/** Where a filled argument came from: its span of the goal (`start` inclusive, `end` exclusive) and why it was read so. */
export const SlotSourceSchema = z.object({
  start: z.number().int().min(0),
  end: z.number().int().min(0),
  reason: z.string().max(500),
});
export type SlotSource = z.infer<typeof SlotSourceSchema>;

/** One step of a plan: which tool to call with which input. `index` is its 0-based position. */
export const PlanStepSchema = z.object({
  /** A stable label, unique within the plan (`step-0`, `step-1`, …). */
  name: z.string().min(1).max(128),
  tool: ToolNameSchema,
  input: z.record(z.string(), z.unknown()),
  index: z.number().int().min(0),
  /** For a ranked plan, where each filled argument came from (absent in plans written before spans were kept). */
  sources: z.record(z.string(), SlotSourceSchema).optional(),
});
export type PlanStep = z.infer<typeof PlanStepSchema>;

/** How the planner weighs relevance against cost and latency. All weights are ≥ 0. */
export const PlanningPreferencesSchema = z.object({
  /** Weight of goal/tool cosine similarity. Default 1. */
  similarityWeight: z.number().min(0).max(100).default(1),
  /** Weight of cheapness (1 − cost / max cost among candidates). Default 0.2. */
  costWeight: z.number().min(0).max(100).default(0.2),
  /** Weight of speed (1 − latency / max latency among candidates). Default 0.2. */
  latencyWeight: z.number().min(0).max(100).default(0.2),
  /** Least similarity for a tool to be considered; overrides the configured value. */
  minSimilarity: z.number().min(0).max(1).optional(),
  /** Most steps; overrides the configured value, still clamped to 1..50. */
  maxSteps: z.number().int().min(1).max(50).optional(),
});
export type PlanningPreferences = z.output<typeof PlanningPreferencesSchema>;
export type PlanningPreferencesInput = z.input<typeof PlanningPreferencesSchema>;

/** Why planning stopped where it did. */
export const PlanStopReasonSchema = z.enum([
  /** Every part of the goal got a tool. */
  'planned',
  /** The goal named its tool calls explicitly. */
  'explicit_calls',
  /** More steps were relevant than the step limit allows. */
  'max_steps',
  /** No tool was relevant enough (or a part of the goal had none): the plan is empty and `refusals` says why. */
  'no_relevant_tool',
  /** A tool clearly fits but the goal lacks required arguments: the plan is empty and `inputRequired` lists them. */
  'input_required',
]);
export type PlanStopReason = z.infer<typeof PlanStopReasonSchema>;

/** A tool the planner looked at, with its scores and the reason it was or was not chosen. */
export const PlanCandidateSchema = z.object({
  tool: ToolNameSchema,
  /** Index of the goal clause this candidate was scored against. */
  clause: z.number().int().min(0),
  similarity: z.number(),
  cost: z.number(),
  latency: z.number(),
  score: z.number(),
  selected: z.boolean(),
  reason: z.string(),
  /** The words of the clause this tool matched (ranked plans). */
  matched: z.array(z.string()).optional(),
});
export type PlanCandidate = z.infer<typeof PlanCandidateSchema>;

/** Why a clause got no tool. */
export const PlanRefusalCodeSchema = z.enum([
  /** The clause has no content word (empty, symbols, emoji). */
  'no_words',
  /** No word of the clause matches any tool. */
  'no_match',
  /** The best tool matched only uninformative words. */
  'weak_evidence',
  /** The best tool matched too little of what the clause asks. */
  'low_coverage',
  /** Two tools match about equally well. */
  'ambiguous',
  /** The best tool changes the world (sends, writes, pays…) and the evidence for it is not strong. */
  'side_effect_weak_evidence',
  /** The best tool is below the configured similarity floor. */
  'below_floor',
  /** The best tool's required arguments are not in the clause and the match is not strong enough to ask for them. */
  'missing_arguments',
]);
export type PlanRefusalCode = z.infer<typeof PlanRefusalCodeSchema>;

/** A clause of the goal that got no tool, why, and the closest tools. */
export const PlanRefusalSchema = z.object({
  clause: z.number().int().min(0),
  /** The clause as written (at most 500 characters). */
  text: z.string().max(500),
  code: PlanRefusalCodeSchema,
  message: z.string().max(1000),
  /** The closest tools, best first (at most 3). */
  suggestions: z.array(ToolNameSchema).max(3),
});
export type PlanRefusal = z.infer<typeof PlanRefusalSchema>;

/** A required argument the goal does not give. */
export const MissingArgumentSchema = z.object({
  name: z.string().min(1).max(128),
  type: z.string().max(32),
  description: z.string().max(500).optional(),
});
export type MissingArgument = z.infer<typeof MissingArgumentSchema>;

/** The tool a clause clearly asks for, what the goal gave it, and the required arguments it lacks: a form to fill. */
export const InputRequiredSchema = z.object({
  clause: z.number().int().min(0),
  tool: ToolNameSchema,
  input: z.record(z.string(), z.unknown()),
  sources: z.record(z.string(), SlotSourceSchema),
  missing: z.array(MissingArgumentSchema).min(1),
});
export type InputRequired = z.infer<typeof InputRequiredSchema>;

/** An ordered plan for one goal in one profile. */
export const PlanSchema = z.object({
  planId: z.string().min(1),
  goal: z.string(),
  profile: ProfileNameSchema,
  traceId: z.string().min(1),
  steps: z.array(PlanStepSchema),
  candidates: z.array(PlanCandidateSchema),
  /** Which path planned: explicit calls in the goal, the lexical ranking, or a model (an agent run, whose steps come turn by turn). */
  source: z.enum(['pattern', 'ranking', 'agent']),
  stopReason: PlanStopReasonSchema,
  /** Clauses that got no tool (ranked plans that stop with `no_relevant_tool`). */
  refusals: z.array(PlanRefusalSchema).optional(),
  /** What a plan that stops with `input_required` needs from the caller. */
  inputRequired: InputRequiredSchema.optional(),
});
export type Plan = z.infer<typeof PlanSchema>;

/** What a caller asks for: a goal in a profile, with optional metadata and planning preferences. */
export const GoalRequestSchema = z.object({
  goal: GoalTextSchema,
  profile: ProfileNameSchema,
  metadata: MetadataSchema.optional(),
  preferences: PlanningPreferencesSchema.partial().optional(),
  /** Trace id to continue; generated through the id port when absent. */
  traceId: z.string().min(1).max(128).optional(),
});
export type GoalRequest = z.infer<typeof GoalRequestSchema>;
