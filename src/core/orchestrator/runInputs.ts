import { toJsonData } from '../journal/canonicalJson.ts';
import type { ModelProvider } from '../models/model.ts';
import { parseBudget } from '../planning/planningAuthority.ts';
import type { AgentSettings } from '../schema/agent.ts';
import type { ToolBudget } from '../schema/budget.ts';
import type { Config } from '../schema/config.ts';
import type { AutonomySettings, RunInputs } from '../schema/journalEvent.ts';
import type { ToolRegistry } from '../tools/toolRegistry.ts';
import type { ToolVersionSource } from '../tools/versions/toolVersionSource.ts';
import { agentSettingsFor } from './agentInputs.ts';
import { delegateSettings, parseDelegation, type DelegatedBy } from './delegation.ts';
import { ExecutionContext } from './executionContext.ts';
import { agentDefaults, parseParallelSteps, type OrchestratorOptions, type StartOptionsSchema } from './options.ts';
import type { RetryPolicy } from './retryPolicy.ts';
import { approvalSettings, definedOnly } from './runDefaults.ts';
import { memorySettings } from './runReflection.ts';
import type * as z from 'zod';

/** What new runs record as their journal version (see `RunInputs.version`). */
export const JOURNAL_VERSION = 2;

/** What an orchestrator records in the inputs of each new run besides its request, fixed from the orchestrator's options. */
export interface RunInputDefaults {
  registry: ToolRegistry;
  toolVersions: ToolVersionSource | undefined;
  config: Config;
  budget: ToolBudget;
  profileBudgets: Map<string, ToolBudget>;
  retry: RetryPolicy['config'];
  approval: { onTimeout: 'approve' | 'reject'; timeoutMs?: number };
  autonomy: AutonomySettings;
  seed: number;
  stepTimeoutMs: number | undefined;
  parallelSteps: number;
  models: ModelProvider | undefined;
  agent: Omit<AgentSettings, 'models'>;
  delegation: ReturnType<typeof parseDelegation>;
  memoryLoop: ReturnType<typeof memorySettings>;
  /** Whether agent runs may propose tools (`propose_tool`). */
  proposals: boolean;
}

/** The defaults of new runs from the orchestrator's options (each checked: a bad option throws here, at construction). */
export function runInputDefaults(options: OrchestratorOptions, config: Config, retry: RetryPolicy): RunInputDefaults {
  return {
    registry: options.registry,
    toolVersions: options.toolVersions,
    config,
    budget: parseBudget(options.budget),
    profileBudgets: new Map(Object.entries(options.profileBudgets ?? {}).map(([profile, budget]) => [profile, parseBudget(budget)])),
    retry: retry.config,
    approval: approvalSettings(options.approval),
    autonomy: { replan: true, maxReplans: 1, reflectBelow: 0.5, maxRepeats: 3, ...options.autonomy },
    seed: options.seed ?? config.randomSeed,
    stepTimeoutMs: options.stepTimeoutMs,
    parallelSteps: parseParallelSteps(options.parallelSteps),
    models: options.models,
    agent: agentDefaults(config, options.agent),
    delegation: parseDelegation(options.delegation),
    memoryLoop: memorySettings(options),
    proposals: options.toolProposals !== undefined,
  };
}

/** A run's request once checked: who and what, its ids and its metadata. */
export interface RunRequest {
  goal: string;
  profile: string;
  runId: string;
  traceId: string;
  metadata: RunInputs['metadata'];
  budget: ToolBudget;
  opts: z.output<typeof StartOptionsSchema>;
  /** Set for a sub-run an agent run delegated to. */
  delegatedBy?: DelegatedBy;
}

/** The inputs of a new run (the data of its event 0): the request over the orchestrator's defaults. */
export function runInputs(defaults: RunInputDefaults, request: RunRequest): RunInputs {
  const { goal, profile, runId, traceId, metadata, budget, opts, delegatedBy } = request;
  const d = defaults;
  const { runId: _runId, traceId: _traceId, metadata: _metadata, preferences, budget: _budget, plan, seed, mode, ...scope } = opts;
  const planned = agentSettingsFor({
    mode,
    explicitPlan: plan !== undefined,
    goal,
    tools: d.registry.definitions(profile),
    models: d.models,
    settings: d.agent,
    detectToolCallsFromText: d.config.detectToolCallsFromText,
  });
  const delegate = delegateSettings(d.delegation, profile, delegatedBy?.depth ?? 0, (p) => d.registry.hasProfile(p));
  const agent = planned ? { ...planned, ...(delegate ? { delegate } : {}), ...(d.proposals ? { proposeTools: true as const } : {}) } : undefined;
  const context = new ExecutionContext({ traceId, runId, requestId: runId, userIntent: goal, profile, ...definedOnly(scope) });
  const profileBudget = d.profileBudgets.get(profile);
  const toolVersions = d.toolVersions?.active(profile) ?? {};
  return toJsonData({
    version: JOURNAL_VERSION,
    goal,
    profile,
    traceId,
    context: context.toJSON(),
    metadata,
    ...(preferences ? { preferences } : {}),
    budget,
    ...(profileBudget ? { profileBudget } : {}),
    retry: d.retry,
    approval: d.approval,
    autonomy: d.autonomy,
    seed: seed ?? d.seed,
    maxSteps: Math.max(d.config.plannerMaxSteps, plan?.length ?? 0),
    ...(plan ? { plan: plan.map((step, index) => ({ name: `step-${index}`, tool: step.tool, input: step.input, index })) } : {}),
    ...(d.stepTimeoutMs !== undefined ? { stepTimeoutMs: d.stepTimeoutMs } : {}),
    ...(d.parallelSteps > 1 && !agent ? { parallel: d.parallelSteps } : {}),
    ...(agent ? { agent } : {}),
    ...(d.memoryLoop ? { memory: d.memoryLoop(agent?.models[0]) } : {}),
    ...(delegatedBy ? { delegatedBy } : {}),
    ...(Object.keys(toolVersions).length > 0 ? { toolVersions } : {}),
  });
}
