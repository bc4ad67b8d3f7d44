import { ValidationError, type FailureMode } from '../errors.ts';
import type { JournalEvent, JournalHead } from '../journal/journal.ts';
import type { ApprovalRecord, RunStatus, RunSummary } from '../store/store.ts';
import { ZERO_USAGE, addUsage, type BudgetUsage, type PlanStage, type ToolBudget } from '../planning/planningAuthority.ts';
import type { ErrorInfo } from '../schema/event.ts';
import type { Plan, PlanStep } from '../schema/plan.ts';
import type { ExecutionContextData } from './executionContext.ts';
import type { RetryPolicyConfig } from './retryPolicy.ts';

/** The lifecycle stages, in order. */
export const STAGES = ['initialize', 'plan', 'route', 'execute', 'aggregate', 'complete'] as const;
export type Stage = (typeof STAGES)[number];

/** How a paused approval decides by itself. */
export interface ApprovalSettings {
  /** Milliseconds before the policy decides; absent waits forever. */
  timeoutMs?: number;
  onTimeout: 'approve' | 'reject';
}

/** Health-driven recovery settings of the autonomy loop. */
export interface AutonomySettings {
  /** Replan without a tool that failed for good (AGENT failures). */
  replan: boolean;
  maxReplans: number;
  /** Health below this injects a reflection. */
  reflectBelow: number;
  /** The same call (tool and arguments) this many times stops the run. */
  maxRepeats: number;
}

/** The inputs of a run, fixed at `initialize` and recorded in its first event. */
export interface RunInputs {
  goal: string;
  profile: string;
  traceId: string;
  context: ExecutionContextData;
  metadata: Record<string, unknown>;
  preferences?: Record<string, unknown>;
  budget: ToolBudget;
  retry: RetryPolicyConfig;
  approval: ApprovalSettings;
  autonomy: AutonomySettings;
  seed: number;
  maxSteps: number;
  stepTimeoutMs?: number;
  /** The caller's own plan, when it gave one instead of a goal to plan. */
  plan?: PlanStep[];
  /** The profile's shared budget when the run started, if it has one. */
  profileBudget?: ToolBudget;
}

export type StepStatus = 'pending' | 'started' | 'completed' | 'failed' | 'awaiting_approval';

/** One step as the journal tells it. */
export interface StepState {
  stepId: string;
  index: number;
  tool: string;
  /** The arguments as planned, or as edited by an approver. */
  input: Record<string, unknown>;
  revision: number;
  status: StepStatus;
  /** The highest attempt started (1-based); 0 before the first. */
  attempt: number;
  /** The attempt the next start will use. */
  nextAttempt: number;
  worker?: string;
  output?: unknown;
  error?: ErrorInfo;
  /** Argument hashes a human approved for this step. */
  approvedArgs: string[];
  /** Set when a non-idempotent step's outcome is unknown after a crash: it needs a human before it runs again. */
  escalated?: boolean;
  /** Whether this step must never run again (rejected, over budget, terminal failure). */
  final?: boolean;
}

/** Everything a run's journal says, folded. The orchestrator's only state. */
export interface RunState {
  runId: string;
  inputs: RunInputs;
  status: RunStatus;
  stage: Stage;
  planStage: PlanStage;
  plans: Plan[];
  steps: StepState[];
  usage: BudgetUsage;
  approvals: Map<string, ApprovalRecord>;
  pendingApprovalId?: string;
  randomDraws: number;
  replans: number;
  stopReason?: string;
  error?: ErrorInfo;
  /** Where the search for the next step starts (a hint, not state: always re-checked). */
  cursor: number;
  /** How often each call (tool and argument hash) completed, for repetition checks. */
  calls: Map<string, number>;
  head: JournalHead;
  createdAt: number;
  updatedAt: number;
  completedAt?: number;
}

type Data = Record<string, unknown>;

function stepOf(state: RunState, data: Data): StepState {
  const step = state.steps.find((s) => s.stepId === data['stepId']);
  if (!step) throw new ValidationError(`journal refers to unknown step ${String(data['stepId'])}`, { code: 'invalid_journal' });
  return step;
}

/** Step ids of a plan revision: `step-N` for the first plan, `rR.step-N` after replans. */
export function stepIdOf(revision: number, index: number): string {
  return revision === 0 ? `step-${index}` : `r${revision}.step-${index}`;
}

/** Rename a plan's steps for `revision`, rewriting `$ref`s to match. */
export function reviseSteps(steps: readonly PlanStep[], revision: number): PlanStep[] {
  const rename = new Map(steps.map((s) => [s.name, stepIdOf(revision, s.index)]));
  return steps.map((step) => ({
    ...step,
    name: rename.get(step.name)!,
    input: Object.fromEntries(
      Object.entries(step.input).map(([key, value]) => {
        const ref = (value as { $ref?: unknown } | null)?.$ref;
        return [key, typeof ref === 'string' && rename.has(ref) ? { $ref: rename.get(ref) } : value];
      }),
    ),
  }));
}

/** Start a state from a run's first event (`stage: initialize`). */
export function initialRunState(first: JournalEvent): RunState {
  if (first.seq !== 0 || first.type !== 'stage' || first.data['stage'] !== 'initialize') {
    throw new ValidationError('a journal must start with the initialize stage', { code: 'invalid_journal' });
  }
  const inputs = first.data['inputs'] as RunInputs;
  return {
    runId: first.runId,
    inputs,
    status: 'running',
    stage: 'initialize',
    planStage: 'CREATED',
    plans: [],
    steps: [],
    usage: { ...ZERO_USAGE },
    approvals: new Map(),
    randomDraws: 0,
    replans: 0,
    calls: new Map(),
    cursor: 0,
    head: { seq: first.seq, hash: first.hash },
    createdAt: first.at,
    updatedAt: first.at,
  };
}

/**
 * Apply one journal event to a run's state: the single place state changes, used both while
 * a run executes and when a journal is loaded to resume or inspect it.
 */
export function applyEvent(state: RunState, event: JournalEvent): void {
  const data = event.data;
  state.head = { seq: event.seq, hash: event.hash };
  state.updatedAt = event.at;
  switch (event.type) {
    case 'stage':
      state.stage = data['stage'] as Stage;
      break;
    case 'plan_created': {
      const plan = data['plan'] as Plan;
      const revision = data['revision'] as number;
      state.plans.push(plan);
      state.planStage = 'CREATED';
      // A replan replaces the steps that had not completed.
      state.steps = state.steps.filter((s) => s.status === 'completed');
      state.cursor = 0;
      for (const step of plan.steps) {
        state.steps.push({ stepId: step.name, index: step.index, tool: step.tool, input: step.input, revision, status: 'pending', attempt: 0, nextAttempt: 1, approvedArgs: [] });
      }
      if (revision > 0) state.replans = revision;
      break;
    }
    case 'plan_transition':
      state.planStage = data['to'] as PlanStage;
      break;
    case 'route_decision':
      stepOf(state, data).worker = data['worker'] as string;
      break;
    case 'approval_requested': {
      const step = stepOf(state, data);
      step.status = 'awaiting_approval';
      const record: ApprovalRecord = {
        approvalId: data['approvalId'] as string,
        runId: state.runId,
        traceId: state.inputs.traceId,
        profile: state.inputs.profile,
        stepId: step.stepId,
        tool: step.tool,
        args: data['args'] as Record<string, unknown>,
        argsHash: data['argsHash'] as string,
        reason: data['reason'] as string,
        status: 'pending',
        requestedAt: event.at,
        ...(typeof data['deadline'] === 'number' ? { deadline: data['deadline'] } : {}),
      };
      state.approvals.set(record.approvalId, record);
      state.pendingApprovalId = record.approvalId;
      // A new request supersedes earlier approvals of this step.
      step.approvedArgs = [];
      break;
    }
    case 'approval_received':
    case 'approval_timeout': {
      const record = state.approvals.get(data['approvalId'] as string)!;
      const decision = (event.type === 'approval_timeout' ? data['action'] : data['decision']) as 'approve' | 'reject' | 'edit';
      const step = state.steps.find((s) => s.stepId === record.stepId)!;
      record.status = event.type === 'approval_timeout' ? 'timed_out' : decision === 'reject' ? 'rejected' : 'approved';
      record.decision = decision;
      record.decidedAt = event.at;
      if (event.type === 'approval_received') {
        record.decidedBy = data['by'] as string;
        record.decisionReason = data['reason'] as string;
      }
      if (decision === 'reject') {
        step.status = 'failed';
        step.final = true;
        step.error = {
          name: 'ApprovalRejectedError',
          code: 'approval_rejected',
          message: `the call to ${step.tool} was ${event.type === 'approval_timeout' ? 'rejected by the approval timeout' : 'rejected'}`,
          failureMode: 'POLICY',
          retryable: false,
        };
      } else {
        if (decision === 'edit') {
          step.input = data['args'] as Record<string, unknown>;
          record.args = step.input;
          record.argsHash = data['argsHash'] as string;
        }
        step.approvedArgs.push(record.argsHash);
        step.status = 'pending';
        step.escalated = false;
      }
      state.pendingApprovalId = undefined;
      if (state.status === 'paused') state.status = 'running';
      break;
    }
    case 'run_paused':
      state.status = 'paused';
      break;
    case 'run_resumed':
      // A run waiting for a human stays paused; only the approval (or its timeout) releases it.
      state.status = state.pendingApprovalId ? 'paused' : 'running';
      state.stopReason = undefined;
      state.error = undefined;
      state.completedAt = undefined;
      break;
    case 'tool_call_start': {
      const step = stepOf(state, data);
      step.status = 'started';
      step.attempt = Math.max(step.attempt, data['attempt'] as number);
      step.nextAttempt = step.attempt;
      step.worker = data['worker'] as string;
      state.usage = addUsage(state.usage, data['reserved'] as BudgetUsage);
      break;
    }
    case 'tool_call_complete': {
      const step = stepOf(state, data);
      step.status = 'completed';
      step.output = data['output'];
      step.error = undefined;
      const call = `${step.tool}:${data['argsHash'] as string}`;
      state.calls.set(call, (state.calls.get(call) ?? 0) + 1);
      break;
    }
    case 'tool_call_error': {
      const step = stepOf(state, data);
      step.status = 'failed';
      step.error = data['error'] as ErrorInfo;
      step.nextAttempt = step.attempt + 1;
      step.final = data['final'] === true;
      break;
    }
    case 'retry_scheduled': {
      const step = stepOf(state, data);
      step.status = 'pending';
      step.nextAttempt = data['attempt'] as number;
      state.randomDraws++;
      break;
    }
    case 'budget_exceeded': {
      const step = stepOf(state, data);
      step.status = 'failed';
      step.final = true;
      step.error = data['error'] as ErrorInfo;
      break;
    }
    case 'replanned':
      break;
    case 'run_cancelled':
      state.status = 'cancelled';
      state.stopReason = 'cancelled';
      state.pendingApprovalId = undefined;
      break;
    case 'run_completed':
      state.status = data['success'] ? 'completed' : 'failed';
      state.stopReason = data['stopReason'] as string;
      state.error = data['error'] as ErrorInfo | undefined;
      state.completedAt = event.at;
      break;
    case 'budget_warning':
    case 'reflection':
      break;
  }
}

/** Fold a whole journal into a {@link RunState}. */
export function projectRun(events: readonly JournalEvent[]): RunState {
  const first = events[0];
  if (!first) throw new ValidationError('the journal is empty', { code: 'invalid_journal' });
  const state = initialRunState(first);
  for (let i = 1; i < events.length; i++) applyEvent(state, events[i]!);
  return state;
}

/** The listing row of a run. */
export function summarize(state: RunState): RunSummary {
  return {
    runId: state.runId,
    traceId: state.inputs.traceId,
    profile: state.inputs.profile,
    goal: state.inputs.goal,
    status: state.status,
    createdAt: state.createdAt,
    updatedAt: state.updatedAt,
    head: state.head,
    ...(state.pendingApprovalId ? { pendingApprovalId: state.pendingApprovalId } : {}),
    ...(state.steps.length ? { tools: [...new Set(state.steps.map((step) => step.tool))] } : {}),
  };
}

/** Outputs of the completed steps, by step id, in order. */
export function outputsOf(state: RunState): Record<string, unknown> {
  const outputs: Record<string, unknown> = {};
  for (const step of state.steps) if (step.status === 'completed') outputs[step.stepId] = step.output;
  return outputs;
}

/** The failure mode of a run's error, defaulting to SYSTEM. */
export function failureModeOf(error: ErrorInfo | undefined): FailureMode {
  return (error?.failureMode as FailureMode | undefined) ?? 'SYSTEM';
}
