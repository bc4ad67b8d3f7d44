import type { BudgetUsage, ToolBudget } from '../schema/budget.ts';
import type { ErrorInfo } from '../schema/error.ts';
import type { RunStatus } from '../schema/journalEvent.ts';
import type { ApprovalRecord } from '../store/store.ts';
import { partialResult, type PartialResult } from './partialResult.ts';
import { failureModeOf, outputsOf, type RunState } from './runState.ts';

/** Where a run stands after the orchestrator let go of it. */
export interface RunOutcome {
  runId: string;
  traceId: string;
  profile: string;
  /** The goal the run was started with. */
  goal: string;
  /** When the run started and when its journal last moved (epoch ms, from the clock port). */
  createdAt: number;
  updatedAt: number;
  status: RunStatus;
  success: boolean;
  outputs: Record<string, unknown>;
  stopReason?: string;
  error?: ErrorInfo;
  /** Set when the run failed: what completed and how it might finish. */
  partial?: PartialResult;
  /** Set when the run is paused for a human. */
  pendingApproval?: ApprovalRecord;
  /** Set when the run is paused until a sub-run it delegated to ends (that sub-run waits for a human). */
  waitingFor?: { runId: string };
  usage: BudgetUsage;
  /** The run's own ceilings (and the profile's shared ones, when it has them), for meters. */
  budget: { run: ToolBudget; profile?: ToolBudget };
  head: { seq: number; hash: string };
}

/** The outcome a run's folded state describes; a copy the caller may keep. */
export function outcomeOf(state: RunState): RunOutcome {
  const completed = state.steps.filter((s) => s.status === 'completed');
  const pending = state.pendingApprovalId ? state.approvals.get(state.pendingApprovalId) : undefined;
  return {
    runId: state.runId,
    traceId: state.inputs.traceId,
    profile: state.inputs.profile,
    goal: state.inputs.goal,
    createdAt: state.createdAt,
    updatedAt: state.updatedAt,
    status: state.status,
    success: state.status === 'completed',
    outputs: outputsOf(state),
    ...(state.stopReason ? { stopReason: state.stopReason } : {}),
    ...(state.error ? { error: state.error } : {}),
    ...(state.status === 'failed'
      ? {
          partial: partialResult(
            completed.map((s) => s.stepId),
            completed.at(-1)?.output ?? null,
            failureModeOf(state.error),
          ),
        }
      : {}),
    ...(pending ? { pendingApproval: structuredClone(pending) } : {}),
    ...(state.waitingFor ? { waitingFor: { runId: state.waitingFor } } : {}),
    usage: { ...state.usage },
    budget: { run: { ...state.inputs.budget }, ...(state.inputs.profileBudget ? { profile: { ...state.inputs.profileBudget } } : {}) },
    head: { ...state.head },
  };
}
