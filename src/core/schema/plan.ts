import * as z from 'zod';
import { GoalTextSchema, MetadataSchema, ProfileNameSchema, ToolNameSchema } from './common.ts';

/** Plan states, in order. `COMPLETED` and `FAILED` are terminal. */
export const PLAN_STAGES = ['CREATED', 'VALIDATED', 'EXECUTING', 'COMPLETED', 'FAILED'] as const;
export type PlanStage = (typeof PLAN_STAGES)[number];

/** One step of a plan: which tool to call with which input. `index` is its 0-based position. */
export const PlanStepSchema = z.object({
  /** A stable label, unique within the plan (`step-0`, `step-1`, …). */
  name: z.string().min(1).max(128),
  tool: ToolNameSchema,
  input: z.record(z.string(), z.unknown()),
  index: z.number().int().min(0),
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
  /** No tool was relevant enough: the plan is empty. */
  'no_relevant_tool',
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
});
export type PlanCandidate = z.infer<typeof PlanCandidateSchema>;

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
