import * as z from 'zod';
import { AGENT_EVENT_DATA, AgentSettingsSchema } from './agent.ts';
import { BudgetUsageSchema, ToolBudgetSchema } from './budget.ts';
import { MetadataSchema } from './common.ts';
import { ExecutionContextSchema } from './context.ts';
import { ErrorInfoSchema } from './error.ts';
import { PLAN_STAGES, PlanSchema, PlanStepSchema } from './plan.ts';
import { RetryPolicyConfigSchema } from './retry.ts';

// These schemas describe journal data as it was written. They carry no defaults and no
// transforms: a journal is validated against them but always kept byte for byte as it came,
// because its hashes are over those bytes (journals written by older versions must verify).

/** The lifecycle stages of a run, in order. */
export const STAGES = ['initialize', 'plan', 'route', 'execute', 'aggregate', 'complete'] as const;
export type Stage = (typeof STAGES)[number];

/** Where a run stands. */
export const RUN_STATUSES = ['running', 'paused', 'completed', 'failed', 'cancelled'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** How a paused approval decides by itself. */
export const ApprovalSettingsSchema = z.object({
  /** Milliseconds before the policy decides; absent waits forever. */
  timeoutMs: z.number().min(0).optional(),
  onTimeout: z.enum(['approve', 'reject']),
});
export type ApprovalSettings = z.output<typeof ApprovalSettingsSchema>;

/** Health-driven recovery settings of the autonomy loop. */
export const AutonomySettingsSchema = z.object({
  /** Replan without a tool that failed for good (AGENT failures). */
  replan: z.boolean(),
  maxReplans: z.number().int().min(0),
  /** Health below this injects a reflection. */
  reflectBelow: z.number(),
  /** The same call (tool and arguments) this many times stops the run. */
  maxRepeats: z.number().int().min(1),
});
export type AutonomySettings = z.output<typeof AutonomySettingsSchema>;

/** The inputs of a run, fixed at `initialize` and recorded in its first event. */
export const RunInputsSchema = z.object({
  /**
   * How this run's journal derives what it derives (absent in journals written before it:
   * version 1). Version 2 makes approval ids unguessable (they carry the journal head's hash).
   */
  version: z.number().int().min(1).optional(),
  goal: z.string(),
  profile: z.string().min(1),
  traceId: z.string().min(1),
  context: ExecutionContextSchema,
  metadata: MetadataSchema,
  preferences: z.record(z.string(), z.unknown()).optional(),
  budget: ToolBudgetSchema,
  /** The profile's shared budget when the run started, if it has one. */
  profileBudget: ToolBudgetSchema.optional(),
  retry: RetryPolicyConfigSchema,
  approval: ApprovalSettingsSchema,
  autonomy: AutonomySettingsSchema,
  seed: z.number().int(),
  maxSteps: z.number().int().min(1),
  stepTimeoutMs: z.number().min(0).optional(),
  /**
   * How many independent steps may run at once (the host's worker pool): consecutive steps of
   * idempotent tools that need no approval and no pending step's output run in one wave, each
   * routed when it is ready. Absent (journals before it, and pools of one): one step at a time,
   * every step routed before the first runs.
   */
  parallel: z.number().int().min(2).max(256).optional(),
  /** The caller's own plan, when it gave one instead of a goal to plan. */
  plan: z.array(PlanStepSchema).optional(),
  /** Present when a model drives the run (an agent run) instead of the lexical planner. */
  agent: AgentSettingsSchema.optional(),
  /**
   * Present when the run keeps memory in the loop: it recalls earlier reflections before it
   * plans (lexical runs too) and writes its goal, plan, results and reflection to the
   * profile's memory; `summaryModel` writes the reflection with that model. Absent (runs
   * recorded before memory was in the loop): only agent runs recall and keep reflections.
   */
  memory: z.object({ summaryModel: z.string().min(1).max(200).optional() }).optional(),
  /** Present in a sub-run an agent run delegated to: the parent run, its `delegate` step, and how deep the sub-run is (1 below a run a caller started). */
  delegatedBy: z.object({ runId: z.string().min(1), stepId: z.string().min(1), depth: z.number().int().min(1) }).optional(),
  /**
   * The tools written at run time the run uses: tool name → content hash of the version that was
   * active when it started. Every step, resume and replay resolves these exact versions. Absent
   * when the profile had none (and in journals written before tool versions).
   */
  toolVersions: z.record(z.string(), z.string().regex(/^[0-9a-f]{64}$/)).optional(),
  /** Present in a fork: the source journal's head when it was forked, and the seq of the event the fork changed. */
  forkOf: z.object({ runId: z.string(), seq: z.number().int().min(0), hash: z.string(), at: z.number().int().min(0) }).optional(),
});
export type RunInputs = z.output<typeof RunInputsSchema>;

/** A step's health and what the autonomy loop should do next. */
export const HealthReportSchema = z.object({
  score: z.number(),
  /** Latency against the declared latency, repetition of calls or outputs, and substance of the output; each 0..1. */
  signals: z.object({ latency: z.number(), repetition: z.number(), substance: z.number() }),
  action: z.enum(['continue', 'reflect', 'stop']),
});
export type HealthReport = z.output<typeof HealthReportSchema>;

/** What a stopped run achieved, and how it might still finish. */
export const PartialResultSchema = z.object({
  /** Names (step ids) of the steps that completed, in order. */
  completedSteps: z.array(z.string()),
  /** The output of the last completed step, if any. */
  lastOutput: z.unknown(),
  failureMode: ErrorInfoSchema.shape.failureMode,
  /** Whether resuming can finish the run (false for `POLICY` and `USER` failures). */
  recoverable: z.boolean(),
  /** Suggested next moves, most promising first. */
  recoveryStrategies: z.array(z.string()),
});

const PlanStageSchema = z.enum(PLAN_STAGES);
const Args = z.record(z.string(), z.unknown());
const Scope = z.enum(['run', 'profile']);
const Decision = z.enum(['approve', 'reject', 'edit']);

/** The data of each journal event type: one schema per `type`, in roughly the order a run produces them. */
export const JOURNAL_EVENT_DATA = {
  /** A lifecycle stage begins; `initialize` (always event 0) carries the run's inputs. */
  stage: z.object({ stage: z.enum(STAGES), inputs: RunInputsSchema.optional() }),
  /** A plan (revision 0) or a replan; a `continuation` carries on a failed run's remaining steps. */
  plan_created: z.object({ revision: z.number().int().min(0), plan: PlanSchema, continuation: z.literal(true).optional() }),
  plan_transition: z.object({ planId: z.string(), from: PlanStageSchema, to: PlanStageSchema }),
  route_decision: z.object({ stepId: z.string(), worker: z.string(), policy: z.string(), reason: z.string() }),
  budget_warning: z.object({ scope: Scope, dimensions: z.array(z.string()), usage: BudgetUsageSchema, budget: ToolBudgetSchema }),
  budget_exceeded: z.object({
    stepId: z.string(),
    scope: Scope,
    usage: BudgetUsageSchema,
    reserved: BudgetUsageSchema,
    error: ErrorInfoSchema,
    profileUsedBefore: BudgetUsageSchema.optional(),
  }),
  approval_requested: z.object({
    approvalId: z.string(),
    stepId: z.string(),
    tool: z.string(),
    args: Args,
    argsHash: z.string(),
    reason: z.string(),
    /** When the approval policy decides by itself (ms since the epoch). */
    deadline: z.number().optional(),
  }),
  approval_received: z.object({
    approvalId: z.string(),
    decision: Decision,
    argsHash: z.string(),
    reason: z.string(),
    /** The decider's name as given; `principal` is who the host authenticated, when it did. */
    by: z.string(),
    principal: z.string().optional(),
    args: Args.optional(),
  }),
  approval_timeout: z.object({ approvalId: z.string(), action: z.enum(['approve', 'reject']) }),
  /** Durable before the side effect: a crash after it and before the result leaves the outcome unknown. */
  tool_call_start: z.object({
    stepId: z.string(),
    index: z.number().int().min(0),
    tool: z.string(),
    input: Args,
    argsHash: z.string(),
    attempt: z.number().int().min(1),
    idempotencyKey: z.string(),
    worker: z.string(),
    reserved: BudgetUsageSchema,
    /** The profile's spending before this reservation, when the profile has a shared budget. */
    profileUsedBefore: BudgetUsageSchema.optional(),
    rerun: z.literal(true).optional(),
  }),
  tool_call_complete: z.object({
    stepId: z.string(),
    attempt: z.number().int().min(1),
    argsHash: z.string(),
    output: z.unknown(),
    durationMs: z.number().min(0),
    health: HealthReportSchema,
  }),
  /** A failed attempt, or a step refused before it ran (attempt 0, no duration). */
  tool_call_error: z.object({
    stepId: z.string(),
    attempt: z.number().int().min(0),
    error: ErrorInfoSchema,
    retryable: z.boolean(),
    final: z.boolean(),
    durationMs: z.number().min(0).optional(),
  }),
  retry_scheduled: z.object({ stepId: z.string(), attempt: z.number().int().min(1), delayMs: z.number().min(0), jitter: z.number() }),
  reflection: z.object({ trigger: z.enum(['low_health', 'run_end']), score: z.number().optional(), summary: z.string() }),
  replanned: z.object({ revision: z.number().int().min(1), excluded: z.array(z.string()), reason: z.string() }),
  run_paused: z.object({
    reason: z.string(),
    approvalId: z.string().optional(),
    /** A delegated sub-run the run waits for (reason `awaiting_subrun`), and the approval that sub-run waits for. */
    waitingFor: z.object({ runId: z.string(), approvalId: z.string().optional() }).optional(),
  }),
  run_resumed: z.object({ from: z.enum(RUN_STATUSES) }),
  run_cancelled: z.object({ reason: z.string() }),
  run_completed: z.object({
    success: z.boolean(),
    stopReason: z.string(),
    outputs: Args,
    error: ErrorInfoSchema.optional(),
    partial: PartialResultSchema.optional(),
  }),
  ...AGENT_EVENT_DATA,
} as const;

/** Every journal event type. */
export type JournalEventType = keyof typeof JOURNAL_EVENT_DATA;
export const JOURNAL_EVENT_TYPES = Object.keys(JOURNAL_EVENT_DATA) as [JournalEventType, ...JournalEventType[]];

/** The data of an event of type `T`. */
export type JournalEventData<T extends JournalEventType> = z.output<(typeof JOURNAL_EVENT_DATA)[T]>;

const Hex64 = z.string().regex(/^[0-9a-f]{64}$/, 'a lowercase hex SHA-256');
const envelope = { runId: z.string().min(1).max(200), seq: z.number().int().min(0), at: z.number().finite(), prev: Hex64, hash: Hex64 };

/**
 * One journal event, discriminated by `type`: `hash` is the lowercase hex SHA-256 of the
 * canonical JSON of the event without `hash`, and `prev` is the previous event's hash.
 * The only event model of the runtime: run state, trace, OTLP and the dashboard are projections of it.
 */
export type JournalEvent = {
  [T in JournalEventType]: { runId: string; seq: number; type: T; at: number; data: JournalEventData<T>; prev: string; hash: string };
}[JournalEventType];

/** The journal event of one `type`. */
export type JournalEventOf<T extends JournalEventType> = Extract<JournalEvent, { type: T }>;

/** Validates a whole event, its data included, against the schema of its type. */
export const JournalEventSchema = z.discriminatedUnion(
  'type',
  JOURNAL_EVENT_TYPES.map((type) => z.object({ ...envelope, type: z.literal(type), data: JOURNAL_EVENT_DATA[type] })) as unknown as [
    z.ZodObject,
    ...z.ZodObject[],
  ],
);

/** The events of a journal of one type, in order, with typed data. */
export function eventsOf<T extends JournalEventType>(journal: readonly JournalEvent[], type: T): Array<JournalEventOf<T>> {
  return journal.filter((event): event is JournalEventOf<T> => event.type === type);
}
