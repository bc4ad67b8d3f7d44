import { ApprovalRejectedError, ValidationError, type FailureMode } from '../errors.ts';
import type { JournalHead } from '../journal/journal.ts';
import { ZERO_USAGE, addUsage } from '../planning/planningAuthority.ts';
import type { BudgetUsage } from '../schema/budget.ts';
import type { ErrorInfo } from '../schema/error.ts';
import type { JournalEvent, RunInputs, RunStatus, Stage } from '../schema/journalEvent.ts';
import type { Plan, PlanStage, PlanStep } from '../schema/plan.ts';
import type { ApprovalRecord, RunSummary } from '../store/store.ts';
import { applyAgentEvent, initialAgentState, type AgentState } from './agentState.ts';
import { addSubRunUsage, applyReflectEvent } from './sideRunEvents.ts';

export type { RunInputs };

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
  /** Position of each step in {@link steps}, kept with it so a step is found in constant time. */
  stepIndex: Map<string, number>;
  /** The distinct tools of {@link steps} in order of first use, kept with it for the listing row. */
  tools: string[];
  /** How many of {@link steps} have started at least once (the `maxSteps` count), kept with it. */
  executed: number;
  usage: BudgetUsage;
  approvals: Map<string, ApprovalRecord>;
  pendingApprovalId?: string;
  /** The delegated sub-run a paused run waits for (its `delegate` call resumes when that run ends). */
  waitingFor?: string;
  randomDraws: number;
  replans: number;
  stopReason?: string;
  error?: ErrorInfo;
  /** Where the search for the next step starts (a hint, not state: always re-checked). */
  cursor: number;
  /** How often each call (tool and argument hash) completed, for repetition checks. */
  calls: Map<string, number>;
  head: JournalHead;
  /** Present in an agent run: its model calls and turns. */
  agent?: AgentState;
  /** Steps that failed in a plan a replan replaced, in order (the reflection tells what failed and why). */
  replaced: StepState[];
  /** Reflection calls started (purpose `reflect`), and the answer or failure of the last one. */
  reflectAttempts: number;
  reflectAnswer?: string;
  reflectFailed?: boolean;
  createdAt: number;
  updatedAt: number;
  completedAt?: number;
}

function stepOf(state: RunState, stepId: string): StepState {
  const step = findStep(state, stepId);
  if (!step) throw new ValidationError(`journal refers to unknown step ${stepId}`, { code: 'journal_invalid' });
  return step;
}

/** Append a step, keeping the step index, the tool list and the started count in step with it. */
function addStep(state: RunState, step: StepState): void {
  // The first step with an id wins, as a search from the start would find it.
  if (!state.stepIndex.has(step.stepId)) state.stepIndex.set(step.stepId, state.steps.length);
  state.steps.push(step);
  if (!state.tools.includes(step.tool)) state.tools.push(step.tool);
  if (step.attempt > 0) state.executed++;
}

/** The step with `stepId`, if the run has one. */
export function findStep(state: RunState, stepId: string): StepState | undefined {
  const position = state.stepIndex.get(stepId);
  return position === undefined ? undefined : state.steps[position];
}

/** Step ids of a plan revision: `step-N` for the first plan, `rR.step-N` after replans. */
function stepIdOf(revision: number, index: number): string {
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
  if (first.seq !== 0 || first.type !== 'stage' || first.data.stage !== 'initialize' || !first.data.inputs) {
    throw new ValidationError('a journal must start with the initialize stage', { code: 'journal_invalid' });
  }
  const inputs = first.data.inputs;
  const agent = initialAgentState(inputs);
  return {
    runId: first.runId,
    inputs,
    status: 'running',
    stage: 'initialize',
    planStage: 'CREATED',
    plans: [],
    steps: [],
    stepIndex: new Map(),
    tools: [],
    executed: 0,
    usage: { ...ZERO_USAGE },
    approvals: new Map(),
    randomDraws: 0,
    replans: 0,
    calls: new Map(),
    cursor: 0,
    head: { seq: first.seq, hash: first.hash },
    ...(agent ? { agent } : {}),
    replaced: [],
    reflectAttempts: 0,
    createdAt: first.at,
    updatedAt: first.at,
  };
}

/**
 * Apply one journal event to a run's state: the single place state changes, used both while
 * a run executes and when a journal is loaded to resume or inspect it.
 */
export function applyEvent(state: RunState, event: JournalEvent): void {
  state.head = { seq: event.seq, hash: event.hash };
  state.updatedAt = event.at;
  switch (event.type) {
    case 'stage':
      state.stage = event.data.stage;
      break;
    case 'plan_created': {
      const { plan, revision } = event.data;
      state.plans.push(plan);
      state.planStage = 'CREATED';
      // A replan replaces the steps that had not completed; the ones that failed are remembered for the reflection.
      const kept = state.steps.filter((s) => s.status === 'completed');
      for (const step of state.steps) if (step.status === 'failed') state.replaced.push(step);
      state.steps = [];
      state.stepIndex.clear();
      state.tools = [];
      state.executed = 0;
      for (const step of kept) addStep(state, step);
      state.cursor = 0;
      for (const step of plan.steps) {
        addStep(state, {
          stepId: step.name,
          index: step.index,
          tool: step.tool,
          input: step.input,
          revision,
          status: 'pending',
          attempt: 0,
          nextAttempt: 1,
          approvedArgs: [],
        });
      }
      if (revision > 0) state.replans = revision;
      break;
    }
    case 'plan_transition':
      state.planStage = event.data.to;
      break;
    case 'route_decision':
      stepOf(state, event.data.stepId).worker = event.data.worker;
      break;
    case 'approval_requested': {
      const { data } = event;
      const step = stepOf(state, data.stepId);
      step.status = 'awaiting_approval';
      const record: ApprovalRecord = {
        approvalId: data.approvalId,
        runId: state.runId,
        traceId: state.inputs.traceId,
        profile: state.inputs.profile,
        stepId: step.stepId,
        tool: step.tool,
        args: data.args,
        argsHash: data.argsHash,
        reason: data.reason,
        status: 'pending',
        requestedAt: event.at,
        ...(data.deadline !== undefined ? { deadline: data.deadline } : {}),
      };
      state.approvals.set(record.approvalId, record);
      state.pendingApprovalId = record.approvalId;
      // A new request supersedes earlier approvals of this step.
      step.approvedArgs = [];
      break;
    }
    case 'approval_received':
    case 'approval_timeout': {
      const record = state.approvals.get(event.data.approvalId);
      if (!record) throw new ValidationError(`journal decides unknown approval ${event.data.approvalId}`, { code: 'journal_invalid' });
      const decision = event.type === 'approval_timeout' ? event.data.action : event.data.decision;
      const step = stepOf(state, record.stepId);
      record.status = event.type === 'approval_timeout' ? 'timed_out' : decision === 'reject' ? 'rejected' : 'approved';
      record.decision = decision;
      record.decidedAt = event.at;
      if (event.type === 'approval_received') {
        record.decidedBy = event.data.by;
        if (event.data.principal) record.decidedByPrincipal = event.data.principal;
        record.decisionReason = event.data.reason;
      }
      if (decision === 'reject') {
        step.status = 'failed';
        step.final = true;
        step.error = new ApprovalRejectedError(step.tool, event.type === 'approval_timeout').toJSON();
      } else {
        if (event.type === 'approval_received' && event.data.decision === 'edit' && event.data.args) {
          step.input = event.data.args;
          record.args = step.input;
          record.argsHash = event.data.argsHash;
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
      if (event.data.waitingFor) state.waitingFor = event.data.waitingFor.runId;
      break;
    case 'run_resumed':
      // A run waiting for a human stays paused; only the approval (or its timeout) releases it.
      state.status = state.pendingApprovalId ? 'paused' : 'running';
      state.waitingFor = undefined;
      state.stopReason = undefined;
      state.error = undefined;
      state.completedAt = undefined;
      break;
    case 'tool_call_start': {
      const step = stepOf(state, event.data.stepId);
      step.status = 'started';
      if (step.attempt === 0 && event.data.attempt > 0) state.executed++;
      step.attempt = Math.max(step.attempt, event.data.attempt);
      step.nextAttempt = step.attempt;
      step.worker = event.data.worker;
      state.usage = addUsage(state.usage, event.data.reserved);
      break;
    }
    case 'tool_call_complete': {
      const step = stepOf(state, event.data.stepId);
      step.status = 'completed';
      step.output = event.data.output;
      step.error = undefined;
      addSubRunUsage(state, step, event.data.output);
      const call = `${step.tool}:${event.data.argsHash}`;
      state.calls.set(call, (state.calls.get(call) ?? 0) + 1);
      break;
    }
    case 'tool_call_error': {
      const step = stepOf(state, event.data.stepId);
      step.status = 'failed';
      step.error = event.data.error;
      step.nextAttempt = step.attempt + 1;
      step.final = event.data.final;
      addSubRunUsage(state, step, event.data.error.details);
      break;
    }
    case 'retry_scheduled': {
      const step = stepOf(state, event.data.stepId);
      step.status = 'pending';
      step.nextAttempt = event.data.attempt;
      state.randomDraws++;
      break;
    }
    case 'budget_exceeded': {
      const step = stepOf(state, event.data.stepId);
      step.status = 'failed';
      step.final = true;
      step.error = event.data.error;
      break;
    }
    case 'run_cancelled':
      state.status = 'cancelled';
      state.stopReason = 'cancelled';
      // The approval it waited for is decided by the cancellation: no person can act on it any more.
      if (state.pendingApprovalId) Object.assign(state.approvals.get(state.pendingApprovalId) ?? {}, { status: 'cancelled', decidedAt: event.at });
      state.pendingApprovalId = undefined;
      state.waitingFor = undefined;
      break;
    case 'run_completed':
      state.status = event.data.success ? 'completed' : 'failed';
      state.stopReason = event.data.stopReason;
      state.error = event.data.error;
      state.completedAt = event.at;
      break;
    case 'memory_recalled':
    case 'model_call_start':
    case 'model_call_error':
    case 'model_call_complete':
    case 'agent_turn':
      // The reflection a finished run asks a model for is no turn of a conversation (and may be in a lexical run).
      if (event.type !== 'memory_recalled' && event.type !== 'agent_turn' && event.data.purpose === 'reflect') {
        applyReflectEvent(state, event);
        break;
      }
      // Runs with memory in the loop recall notes whatever drives them; a lexical run keeps them in its plan's events only.
      if (event.type === 'memory_recalled' && !state.agent && state.inputs.memory) break;
      if (!state.agent) throw new ValidationError(`journal has ${event.type} in a run without a model`, { code: 'journal_invalid' });
      state.randomDraws += applyAgentEvent(state.agent, event);
      if (event.type === 'model_call_complete') state.usage = addUsage(state.usage, { cost: event.data.cost, calls: 0, tokens: event.data.usage.totalTokens });
      if (event.type === 'agent_turn') {
        for (const { stepId, tool, input, index } of event.data.steps)
          addStep(state, { stepId, tool, input, index, revision: 0, status: 'pending', attempt: 0, nextAttempt: 1, approvedArgs: [] });
      }
      break;
    case 'replanned':
    case 'budget_warning':
    case 'reflection':
    case 'memory_warning':
      break;
  }
}

/** Fold a whole journal into a {@link RunState}. */
export function projectRun(events: readonly JournalEvent[]): RunState {
  const first = events[0];
  if (!first) throw new ValidationError('the journal is empty', { code: 'journal_invalid' });
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
    ...(state.waitingFor ? { waitingFor: state.waitingFor } : {}),
    ...(state.tools.length ? { tools: [...state.tools] } : {}),
    usage: { ...state.usage },
    ...(state.status === 'failed' && state.error ? { errorCode: state.error.code } : {}),
  };
}

/** Outputs of the completed steps, by step id, in order. */
export function outputsOf(state: RunState): Record<string, unknown> {
  const outputs: Record<string, unknown> = {};
  for (const step of state.steps) if (step.status === 'completed') outputs[step.stepId] = step.output;
  if (state.agent?.answer !== undefined) outputs['answer'] = state.agent.answer;
  return outputs;
}

/** The failure mode of a run's error, defaulting to SYSTEM. */
export function failureModeOf(error: ErrorInfo | undefined): FailureMode {
  return (error?.failureMode as FailureMode | undefined) ?? 'SYSTEM';
}
