import * as z from 'zod';
import { CugarError } from '../errors.ts';
import type { BudgetUsage, ToolBudget } from '../schema/budget.ts';
import type { JournalEvent, RunInputs } from '../schema/journalEvent.ts';
import type { ToolHandler } from '../tools/tool.ts';
import type { ToolRegistry } from '../tools/toolRegistry.ts';
import { outcomeOf, type RunOutcome } from './runOutcome.ts';
import { projectRun, type RunState } from './runState.ts';
import { subRunWaiting } from './subRunWait.ts';

/** The tool through which an agent run delegates (phase 2's `delegate`): a sub-goal handed to the agent of another profile. */
export const DELEGATE_TOOL = 'delegate';

/** Default of how deep delegation may nest: a run may delegate, its sub-run may too, the next may not. */
export const DEFAULT_DELEGATION_DEPTH = 2;

/** Which profiles agent runs may delegate to, and how deep sub-runs may nest (the `delegation` option). */
export interface DelegationOptions {
  profiles: readonly string[];
  /** Most levels of sub-runs below a run started by a caller, 1..4. Default {@link DEFAULT_DELEGATION_DEPTH}. */
  maxDepth?: number;
}

/** A sub-run's link to the run that delegated to it, recorded in its inputs. */
export type DelegatedBy = NonNullable<RunInputs['delegatedBy']>;

/** What a delegated sub-run hands back to the model that delegated. */
export interface DelegateResult {
  runId: string;
  profile: string;
  status: string;
  stopReason?: string;
  /** The sub-run's answer (an agent run), when it gave one. */
  answer?: string;
  outputs: Record<string, unknown>;
  /** What the sub-run spent; the delegating run counts it as its own. */
  usage: BudgetUsage;
}

const DelegationOptionsSchema = z.object({
  profiles: z.array(z.string().min(1).max(64)).max(64),
  maxDepth: z.number().int().min(1).max(4).default(DEFAULT_DELEGATION_DEPTH),
});

/** The `delegation` option, checked (`invalid_option` when it is malformed). */
export function parseDelegation(options: DelegationOptions | undefined): z.output<typeof DelegationOptionsSchema> | undefined {
  if (options === undefined) return undefined;
  const parsed = DelegationOptionsSchema.safeParse(options);
  if (!parsed.success)
    throw new CugarError(`invalid delegation option: ${parsed.error.issues[0]?.message ?? 'malformed'}`, { code: 'invalid_option', failureMode: 'USER' });
  return parsed.data;
}

/**
 * What an agent run of `profile` at `depth` may delegate to (recorded as `agent.delegate`):
 * the configured profiles the host has, other than its own; nothing at the depth limit.
 */
export function delegateSettings(
  delegation: z.output<typeof DelegationOptionsSchema> | undefined,
  profile: string,
  depth: number,
  hasProfile: (profile: string) => boolean,
): { profiles: string[]; maxDepth: number } | undefined {
  if (!delegation || depth >= delegation.maxDepth) return undefined;
  const profiles = [...new Set(delegation.profiles)].filter((p) => p !== profile && hasProfile(p)).sort();
  return profiles.length ? { profiles, maxDepth: delegation.maxDepth } : undefined;
}

/**
 * Put the `delegate` tool into a run's own (sandboxed) registry when its inputs allow
 * delegation, so every delegation goes the way of a tool call: policy, schema, approval,
 * budget, retry and journal. A profile with a tool of that name keeps its own.
 */
export function registerDelegateTool(registry: ToolRegistry, inputs: RunInputs, handler: ToolHandler): void {
  const settings = inputs.agent?.delegate;
  if (!settings || registry.has(inputs.profile, DELEGATE_TOOL)) return;
  const [first, ...rest] = settings.profiles as [string, ...string[]];
  registry.register(inputs.profile, DELEGATE_TOOL, {
    description: `Delegate a sub-goal to the agent of another profile (${settings.profiles.join(', ')}); it works on it with its own tools and its answer comes back as the result.`,
    parameters: z.object({
      profile: z.enum([first, ...rest]).describe('The profile whose agent takes the sub-goal'),
      goal: z.string().min(1).max(4000).describe('The sub-goal, stated fully: the other agent sees nothing else'),
    }),
    idempotent: true,
    handler,
  });
}

/** A run's ceilings less what it has spent: a sub-run spends at most what its parent has left. */
export function remainingBudget(state: RunState): ToolBudget {
  const { budget } = state.inputs;
  const left = (ceiling: number | undefined, used: number) => (ceiling === undefined ? undefined : Math.max(0, ceiling - used));
  const cost = left(budget.costCeiling, state.usage.cost);
  const calls = left(budget.callCeiling, state.usage.calls);
  const tokens = left(budget.tokenCeiling, state.usage.tokens);
  return {
    warnThreshold: budget.warnThreshold,
    ...(cost !== undefined ? { costCeiling: cost } : {}),
    ...(calls !== undefined ? { callCeiling: Math.floor(calls) } : {}),
    ...(tokens !== undefined ? { tokenCeiling: Math.floor(tokens) } : {}),
  };
}

/** What delegation needs of the orchestrator. */
export interface DelegateHost {
  startChild(goal: string, profile: string, runId: string, budget: ToolBudget, delegatedBy: DelegatedBy): Promise<RunOutcome>;
  resume(runId: string): Promise<RunOutcome>;
  readJournal(runId: string): Promise<JournalEvent[]>;
}

/** The sub-run id of a delegation: the parent's id and the step's, so a re-run of the step finds the same sub-run. */
export function childRunId(parentRunId: string, stepId: string): string {
  return `${parentRunId}.${stepId}`;
}

/**
 * Run a delegation: start the sub-run (an agent run of the other profile when the host has
 * models, linked to its parent by `delegatedBy`, under the parent's remaining budget), or, when
 * the step runs again (after a crash, or after the sub-run it waited for ended), finish or read
 * the one already started. A sub-run that completes is the step's result; one that fails or is
 * cancelled fails the step (`delegate_failed`, an AGENT failure the model sees); one that waits
 * for a person gives the {@link subRunWaiting} signal, and the parent pauses until it ends.
 */
export async function runDelegation(host: DelegateHost, parent: RunState, stepId: string, input: { profile: string; goal: string }): Promise<DelegateResult> {
  const runId = childRunId(parent.runId, stepId);
  const depth = (parent.inputs.delegatedBy?.depth ?? 0) + 1;
  const journal = await host.readJournal(runId);
  let outcome: RunOutcome;
  if (journal.length === 0) {
    outcome = await host.startChild(input.goal, input.profile, runId, remainingBudget(parent), { runId: parent.runId, stepId, depth });
  } else {
    const state = projectRun(journal);
    outcome = state.status === 'running' ? await host.resume(runId) : outcomeOf(state);
  }
  const answer = outcome.outputs['answer'];
  const result: DelegateResult = {
    runId,
    profile: input.profile,
    status: outcome.status,
    ...(outcome.stopReason !== undefined ? { stopReason: outcome.stopReason } : {}),
    ...(typeof answer === 'string' ? { answer } : {}),
    outputs: outcome.outputs,
    usage: outcome.usage,
  };
  if (outcome.status === 'completed') return result;
  // A sub-run waiting for a person pauses the parent (subRunWait.ts) rather than failing its call.
  if (outcome.status === 'paused') throw subRunWaiting(runId, outcome.pendingApproval?.approvalId);
  const why = `${outcome.status} (${outcome.error?.code ?? outcome.stopReason ?? 'unknown'})`;
  throw new CugarError(`the sub-run ${runId} of profile ${input.profile} ${why}${outcome.error ? `: ${outcome.error.message}` : ''}`, {
    code: 'delegate_failed',
    failureMode: 'AGENT',
    retryable: false,
    details: { runId, profile: input.profile, status: outcome.status, usage: outcome.usage, ...(outcome.stopReason ? { stopReason: outcome.stopReason } : {}) },
  });
}
