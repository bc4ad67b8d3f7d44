import * as z from 'zod';
import { ValidationError } from '../errors.ts';
import type { HeadSigner } from '../journal/headSignature.ts';
import type { RunMemory } from '../memory/runMemory.ts';
import type { DelegationOptions } from './delegation.ts';
import type { ModelProvider } from '../models/model.ts';
import type { Planner } from '../planning/planner.ts';
import type { AgentSettings } from '../schema/agent.ts';
import type { ToolProposals } from '../tools/versions/proposeTool.ts';
import type { ToolBudgetInput } from '../schema/budget.ts';
import type { BudgetUsage } from '../schema/budget.ts';
import { MetadataSchema } from '../schema/common.ts';
import type { Config } from '../schema/config.ts';
import type { AutonomySettings } from '../schema/journalEvent.ts';
import { PlanningPreferencesSchema } from '../schema/plan.ts';
import type { RetryPolicyInput } from '../schema/retry.ts';
import type { PolicyEnforcer } from '../policy/policyEnforcer.ts';
import type { Secrets } from '../policy/secrets.ts';
import type { Clock, Ids } from '../ports.ts';
import type { Worker } from '../routing/coordinator.ts';
import type { RoutingPolicy, RoutingPolicyName } from '../routing/routingAuthority.ts';
import type { Store } from '../store/store.ts';
import type { ToolDefinition } from '../tools/tool.ts';
import type { ToolRegistry } from '../tools/toolRegistry.ts';
import type { ToolVersionSource } from '../tools/versions/toolVersionSource.ts';

/** Decides, beyond a tool's own `requiresApproval`, whether a call needs a human. */
export type ApprovalPredicate = (call: { tool: ToolDefinition; input: unknown; profile: string }) => boolean;

/** How approvals behave. */
export interface ApprovalPolicy {
  /** Milliseconds a request may wait before `onTimeout` decides; absent waits forever. */
  timeoutMs?: number;
  /** What a timed-out request becomes. Default `reject`. */
  onTimeout?: 'approve' | 'reject';
  /** Extra calls that need approval. */
  requires?: ApprovalPredicate;
}

/** What an `Orchestrator` is built from. Every port has a working default. */
export interface OrchestratorOptions {
  registry: ToolRegistry;
  /** Tools written at run time: each run records the active versions when it starts and uses exactly those. Default none. */
  toolVersions?: ToolVersionSource;
  /** Default a new `InMemoryStore`. */
  store?: Store;
  clock?: Clock;
  ids?: Ids;
  workers?: readonly Worker[];
  /** Routing policy by name, or a ready instance shared by every run. Default round-robin. */
  routing?: RoutingPolicyName | RoutingPolicy;
  retry?: RetryPolicyInput;
  approval?: ApprovalPolicy;
  /** Default budget of each run. */
  budget?: ToolBudgetInput;
  /** Budgets shared by all runs of a profile. */
  profileBudgets?: Record<string, ToolBudgetInput>;
  policy?: PolicyEnforcer;
  config?: Partial<Config>;
  /** The planner every run of this orchestrator shares (tools are embedded once). Default one built from `config`. */
  planner?: Planner;
  /** Per-attempt timeout in milliseconds. */
  stepTimeoutMs?: number;
  /**
   * How many independent steps of a run may run at once (recorded in each run's inputs as
   * `parallel`); give it the size of the worker pool. Default 1: one step at a time.
   */
  parallelSteps?: number;
  autonomy?: Partial<AutonomySettings>;
  /** Waits between retries; default a real timer. Tests pass one that returns at once. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Seed of each run's random port unless the run names one. Default 1. */
  seed?: number;
  /** Reads a profile's spending so far; default the store. Replay substitutes recorded values. */
  readProfileUsage?: (profile: string, runId: string) => Promise<BudgetUsage>;
  /**
   * Whether a failed attempt is retried, when the answer is already known. Replay answers from
   * the recording: a failure's transience can come from its cause (a network error's code),
   * which the journal's error record does not keep. Default: the run's retry policy decides.
   */
  recordedRetry?: (stepId: string, attempt: number) => boolean | undefined;
  /** The host's key: every run's head is signed when the run comes to rest. Absent leaves heads unsigned. */
  signer?: HeadSigner;
  /** The models agent runs call; with them, a run without an explicit plan is an agent run unless it asks for `mode: 'lexical'`. */
  models?: ModelProvider;
  /** How agent runs call their models (recorded in each run's inputs); defaults from `config`. */
  agent?: Partial<Omit<AgentSettings, 'models'>>;
  /** Text deltas of streamed model answers as they arrive (live only, never journaled). */
  onModelDelta?: (runId: string, delta: string) => void;
  /**
   * The profile's memory in the loop (`memoryManagerRunMemory`): every run recalls the
   * reflections of earlier runs before it plans (a lexical plan leaves out tools that failed
   * for a near-identical goal) and writes its goal, plan, results and reflection when it ends.
   */
  memory?: RunMemory;
  /**
   * With `memory` and `models`: each run's reflection is written by the first model (a
   * journaled call with purpose `reflect`, one more request per run), the journal's own account
   * as its prompt and its fallback. Default false: the journal's account is the reflection.
   */
  reflectWithModel?: boolean;
  /** Credentials tools read by name at call time (`context.secret`); never journaled. Default none. */
  secrets?: Secrets;
  /**
   * Phase 2's `delegate`: agent runs may hand a sub-goal to the agent of one of these profiles
   * through the `delegate` tool; the sub-run is a run of its own, linked to its parent
   * (`delegatedBy`), under the parent's remaining budget, nested at most `maxDepth` deep
   * (default 2). Default: no delegation.
   */
  delegation?: DelegationOptions;
  /**
   * Where agent runs propose tools written at run time (the host's `ToolVersions`): with it, they
   * get `propose_tool` (recorded as `agent.proposeTools`), whose proposals are audited and then
   * wait for a person's approval. Default: no proposals.
   */
  toolProposals?: ToolProposals;
}

/** Most steps an explicit plan may have. */
export const MAX_EXPLICIT_STEPS = 10_000;

/** The shape of a run id: 1–128 letters, digits, `_ . : -`, starting with a letter or digit. */
export const RUN_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;

/** One step of a caller's own plan. */
export const ExplicitStepSchema = z.object({ tool: z.string().min(1), input: z.record(z.string(), z.unknown()).default({}) });

/** Options of `Orchestrator.start` and `Orchestrator.launch`; the HTTP API derives its request body from this. */
export const StartOptionsSchema = z.object({
  metadata: MetadataSchema.optional(),
  preferences: PlanningPreferencesSchema.partial().optional(),
  /**
   * Steps to run instead of planning: the caller's own plan (up to 10,000 steps). Tools are
   * still checked against the profile before anything runs.
   */
  plan: z.array(ExplicitStepSchema).min(1).max(MAX_EXPLICIT_STEPS).optional(),
  /**
   * `agent`: a model calls the profile's tools until it answers; `lexical`: the lexical planner.
   * Default: `agent` when the orchestrator has models and no plan is given, else `lexical`.
   */
  mode: z.enum(['agent', 'lexical']).optional(),
  /** The run's own ceilings; checked by `parseBudget`. */
  budget: z.unknown().optional(),
  runId: z.string().regex(RUN_ID_PATTERN, 'run ids are 1-128 letters, digits, "_", ".", ":" or "-", starting with a letter or digit').optional(),
  traceId: z.string().min(1).max(128).optional(),
  seed: z.number().int().min(0).max(0xffffffff).optional(),
  userId: z.string().max(200).optional(),
  memoryScope: z.string().max(200).optional(),
  conversationId: z.string().max(200).optional(),
  sessionId: z.string().max(200).optional(),
  parentContext: z.string().max(200).optional(),
});
export type StartOptions = z.input<typeof StartOptionsSchema>;

/** A human's decision on an approval. */
export const ApprovalDecisionSchema = z.object({
  decision: z.enum(['approve', 'reject', 'edit']),
  /** New arguments, with `edit` only; validated against the tool's schema. */
  args: z.record(z.string(), z.unknown()).optional(),
  reason: z.string().max(2000).default(''),
  /** The decider's name as they give it (display only). */
  by: z.string().min(1).max(200),
  /** Who decided as the host authenticated them (a token's identity); recorded beside `by`. */
  principal: z.string().min(1).max(200).optional(),
});
export type ApprovalDecision = z.input<typeof ApprovalDecisionSchema>;

/** The `parallelSteps` option: a whole number from 1 to 256 (`invalid_option` otherwise). */
export function parseParallelSteps(value: number | undefined): number {
  if (value === undefined) return 1;
  if (!Number.isInteger(value) || value < 1 || value > 256)
    throw new ValidationError(`parallelSteps must be a whole number from 1 to 256, not ${value}`, { code: 'invalid_option' });
  return value;
}

/** How agent runs call their models: the configuration's settings, then the orchestrator's `agent` option over them. */
export function agentDefaults(config: Config, agent: Partial<Omit<AgentSettings, 'models'>> | undefined): Omit<AgentSettings, 'models'> {
  return {
    temperature: config.modelTemperature,
    ...(config.modelMaxOutputTokens > 0 ? { maxOutputTokens: config.modelMaxOutputTokens } : {}),
    maxLlmCalls: config.maxLlmCalls,
    maxInvalidToolCalls: 3,
    callTimeoutMs: 120_000,
    stream: false,
    ...(config.useLlmPrePlan ? { prePlan: true } : {}),
    ...(config.reviewAnswers ? { review: true } : {}),
    ...agent,
  };
}
