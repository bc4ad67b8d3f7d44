import { ConflictError, CugarError, NotFoundError, toCugarError } from '../errors.ts';
import { sealEvent } from '../journal/journal.ts';
import type { Planner } from '../planning/planner.ts';
import type { PolicyEnforcer } from '../policy/policyEnforcer.ts';
import { redact } from '../policy/redaction.ts';
import type { Secrets } from '../policy/secrets.ts';
import { createSeededRandom, type Clock, type Random } from '../ports.ts';
import type { Coordinator } from '../routing/coordinator.ts';
import type { BudgetUsage } from '../schema/budget.ts';
import type { JournalEvent, RunStatus } from '../schema/journalEvent.ts';
import type { HeadSigner } from '../journal/headSignature.ts';
import type { RunSummary, Store } from '../store/store.ts';
import type { ToolRegistry } from '../tools/toolRegistry.ts';
import { registerPinnedVersions } from '../tools/versions/pinnedVersions.ts';
import type { ToolVersionSource } from '../tools/versions/toolVersionSource.ts';
import type { RunMemory } from '../memory/runMemory.ts';
import type { ModelProvider } from '../models/model.ts';
import { agentTurn } from './agentTurn.ts';
import { Reflector } from './autonomy.ts';
import type { ApprovalPredicate } from './options.ts';
import { outcomeOf, type RunOutcome } from './runOutcome.ts';
import { applyEvent, summarize, type RunState } from './runState.ts';
import { entry, type Entry, type StageContext, type Stop } from './stages/entry.ts';
import { agentBudgetStop, agentPlan, nextAgentStep } from './stages/agentStage.ts';
import { finishRun } from './stages/finishStage.ts';
import { planRun, routeSteps, type RecalledPlanNotes } from './stages/planStage.ts';
import { reflectWithModel, type ReflectPorts } from './reflectCall.ts';
import { registerDelegateTool } from './delegation.ts';
import { proposeFromRun, registerProposeTool, type ProposeToolInput, type ToolProposals } from '../tools/versions/proposeTool.ts';
import { journalReflection, runNote } from './runReflection.ts';
import { executeNext, type StepPorts } from './stepExecution.ts';
import { nextStep } from './stages/stepGate.ts';

/** A run being driven here: its folded state and what it needs to act. */
export interface ActiveRun {
  state: RunState;
  context: StageContext;
  random: Random;
  controller: AbortController;
  cancelReason?: string;
}

/** What the sessions of one orchestrator share. */
export interface SessionPorts {
  store: Store;
  clock: Clock;
  registry: ToolRegistry;
  /** The tools written at run time whose versions runs record in their inputs. */
  toolVersions?: ToolVersionSource;
  policy: PolicyEnforcer;
  planner: Planner;
  coordinator: Coordinator;
  /** The models agent runs call; absent, an agent run fails with `model_not_configured`. */
  models?: ModelProvider;
  /** Text deltas of streamed model answers as they arrive (never journaled). */
  onModelDelta?: (runId: string, delta: string) => void;
  /** Reflections agent runs recall before they start and keep when they finish. */
  memory?: RunMemory;
  requiresApproval?: ApprovalPredicate;
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  readProfileUsage: (profile: string, runId: string) => Promise<BudgetUsage>;
  recordedRetry?: (stepId: string, attempt: number) => boolean | undefined;
  /** Signs the head of every run this session leaves at rest; absent leaves heads unsigned. */
  signer?: HeadSigner;
  /** Credentials tools read by name at call time (never journaled). */
  secrets?: Secrets;
  /** Runs a delegation of an agent run (the `delegate` tool's work); absent, agent runs cannot delegate. */
  delegate?: (parent: RunState, stepId: string, input: { profile: string; goal: string }) => Promise<unknown>;
  /** Takes the tools agent runs propose (`propose_tool`); absent, they cannot propose. */
  proposals?: ToolProposals;
}

const TERMINAL: ReadonlySet<RunStatus> = new Set(['completed', 'failed', 'cancelled']);

/**
 * The run's listing row, with the signer's signature of its head when the run comes to rest
 * (paused for a person, or finished). One signature per resting point keeps signing off the
 * per-step path; a run still running is in flight and its head is not yet attested.
 */
export function signedSummary(state: RunState, signer: HeadSigner | undefined): RunSummary {
  const run = summarize(state);
  if (signer && (state.status === 'paused' || isTerminal(state.status))) run.signature = signer.sign(state.runId, state.head);
  return run;
}

/** Whether a run status is final. */
export function isTerminal(status: RunStatus): boolean {
  return TERMINAL.has(status);
}

/**
 * Drives runs: the only code that appends to a journal. Each turn of {@link drive} asks a
 * stage (`stages/`) what to append given the run's state, appends it atomically, folds it
 * into the state, and runs the one side effect a stage cannot decide — the tool call.
 * Everything else is a pure decision over the state, so a run resumed from its journal
 * decides exactly what the first process would have.
 */
export class RunSessions {
  readonly #ports: SessionPorts;
  readonly #active = new Map<string, ActiveRun>();
  readonly #listeners = new Set<(event: JournalEvent) => void>();
  readonly #reflector = new Reflector();

  readonly #stepPorts: StepPorts;
  readonly #reflectPorts: ReflectPorts;

  constructor(ports: SessionPorts) {
    this.#ports = ports;
    this.#stepPorts = {
      append: (run, entries, usage) => this.append(run, entries, usage),
      finish: (run, stop) => this.#finish(run, stop),
      replan: (run, exclude, reason) => this.#plan(run, exclude, reason),
      clock: ports.clock,
      coordinator: ports.coordinator,
      reflector: this.#reflector,
      sleep: ports.sleep,
      readProfileUsage: ports.readProfileUsage,
      ...(ports.recordedRetry ? { recordedRetry: ports.recordedRetry } : {}),
      ...(ports.secrets ? { secrets: ports.secrets } : {}),
    };
    this.#reflectPorts = {
      clock: ports.clock,
      ...(ports.models ? { models: ports.models } : {}),
      append: (run, entries, usage) => this.append(run, entries, usage),
    };
  }

  /** The run with `runId` if this orchestrator is driving it. */
  active(runId: string): ActiveRun | undefined {
    return this.#active.get(runId);
  }

  /** Receive every appended event, redacted, after it is durable. */
  subscribe(listener: (event: JournalEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Take a run over for driving; only one driver per run per orchestrator. */
  activate(state: RunState): ActiveRun {
    if (this.#active.has(state.runId)) throw new ConflictError(`run ${state.runId} is already running here`, { code: 'run_active' });
    const { registry } = this.#ports;
    if (!registry.hasProfile(state.inputs.profile)) throw new NotFoundError(`unknown profile "${state.inputs.profile}"`, { code: 'unknown_profile' });
    const random = createSeededRandom(state.inputs.seed);
    for (let i = 0; i < state.randomDraws; i++) random.next();
    const { policy, planner, coordinator, requiresApproval } = this.#ports;
    const runRegistry = registry.sandbox(state.inputs.profile);
    registerPinnedVersions(runRegistry, state.inputs, this.#ports.toolVersions);
    const { delegate } = this.#ports;
    if (delegate)
      registerDelegateTool(runRegistry, state.inputs, (input: { profile: string; goal: string }, tool) =>
        delegate(state, tool.idempotencyKey.slice(state.runId.length + 1), input),
      );
    const { proposals } = this.#ports;
    if (proposals)
      registerProposeTool(runRegistry, state.inputs, (input) => proposeFromRun(proposals, state.inputs.profile, state.runId, input as ProposeToolInput));
    const context: StageContext = {
      policy,
      planner,
      coordinator,
      registry: runRegistry,
      ...(requiresApproval ? { requiresApproval } : {}),
    };
    const run: ActiveRun = { state, context, random, controller: new AbortController() };
    this.#active.set(state.runId, run);
    return run;
  }

  /** Let go of a run without driving it further. */
  release(runId: string): void {
    this.#active.delete(runId);
  }

  /** Write a run's first event (`stage: initialize` with its inputs; `dataTexts`, its data's canonical JSON when the sealer kept it) and take it over. */
  async begin(first: JournalEvent & { type: 'stage' }, state: RunState, dataTexts?: readonly string[]): Promise<ActiveRun> {
    await this.#ports.store.append({
      runId: first.runId,
      events: [first],
      expectedHead: null,
      run: signedSummary(state, this.#ports.signer),
      ...(dataTexts ? { dataTexts } : {}),
    });
    this.#notify([first]);
    return this.activate(state);
  }

  /** Seal and append events atomically, then fold them into the state. */
  async append(run: ActiveRun, entries: ReadonlyArray<Entry>, usage?: BudgetUsage): Promise<JournalEvent[]> {
    const { state } = run;
    const events: JournalEvent[] = [];
    const dataTexts: string[] = [];
    let previous = state.head;
    for (const [type, data, at] of entries) {
      // Each event reads the clock exactly once (or takes the time its caller already read),
      // so a replay that feeds back recorded times reproduces every timestamp and duration.
      const event = sealEvent(previous, state.runId, type, at ?? this.#ports.clock.now(), data as never, dataTexts) as JournalEvent;
      events.push(event);
      previous = event;
    }
    // Fold first so the summary and approvals written with the events are exact. If the write
    // fails the error ends this drive and the state is dropped (callers reload from the store),
    // so a state ahead of its journal is never used.
    const expectedHead = state.head;
    // A cancellation decides the approval the run waited for: its record is written with the events.
    const waiting = state.pendingApprovalId;
    for (const event of events) applyEvent(state, event);
    const approvals = [];
    for (const event of events) {
      if (event.type === 'approval_requested' || event.type === 'approval_received' || event.type === 'approval_timeout')
        approvals.push({ ...state.approvals.get(event.data.approvalId)! });
      if (event.type === 'run_cancelled' && waiting) approvals.push({ ...state.approvals.get(waiting)! });
    }
    try {
      await this.#ports.store.append({
        runId: state.runId,
        events,
        expectedHead,
        run: signedSummary(state, this.#ports.signer),
        ...(approvals.length ? { approvals } : {}),
        ...(usage ? { profileUsage: { profile: state.inputs.profile, delta: usage } } : {}),
        dataTexts,
      });
    } catch (error) {
      this.#active.delete(state.runId);
      throw error;
    }
    this.#notify(events);
    return events;
  }

  #notify(events: readonly JournalEvent[]): void {
    if (this.#listeners.size === 0) return;
    for (const event of events) {
      const safe = redact(event);
      for (const listener of this.#listeners) {
        try {
          listener(safe);
        } catch {
          // A listener's failure must never affect the run.
        }
      }
    }
  }

  /** Drive a run until it completes, fails, is cancelled or waits for a human. */
  async drive(run: ActiveRun): Promise<RunOutcome> {
    const { state } = run;
    try {
      for (;;) {
        if (isTerminal(state.status)) return outcomeOf(state);
        if (run.cancelReason !== undefined) {
          await this.append(run, [entry('run_cancelled', { reason: run.cancelReason })]);
          continue;
        }
        if (state.status === 'paused') {
          if (!(await this.expireApproval(run))) return outcomeOf(state);
          continue;
        }
        switch (state.stage) {
          case 'initialize':
          case 'plan':
            if (state.agent) await this.append(run, agentPlan(state, await this.#recall(state)));
            else await this.#plan(run);
            break;
          case 'route':
            await this.append(run, routeSteps(state, run.context));
            break;
          case 'execute':
            await this.#execute(run);
            break;
          case 'aggregate':
          case 'complete':
            await this.#finish(run, { stopReason: state.stopReason ?? 'completed', ...(state.error ? { error: state.error } : {}) });
            break;
        }
      }
    } finally {
      this.#active.delete(state.runId);
    }
  }

  /** When a pending approval's deadline has passed (by the journal's latest time), apply the timeout policy. */
  async expireApproval(run: ActiveRun): Promise<boolean> {
    const { state } = run;
    const approval = state.pendingApprovalId ? state.approvals.get(state.pendingApprovalId) : undefined;
    if (!approval || approval.deadline === undefined || state.updatedAt < approval.deadline) return false;
    await this.append(run, [entry('approval_timeout', { approvalId: approval.approvalId, action: state.inputs.approval.onTimeout })]);
    return true;
  }

  async #plan(run: ActiveRun, exclude: readonly string[] = [], reason?: string): Promise<void> {
    const { state } = run;
    // A run with memory in the loop reads the notes of earlier runs before its first plan (not before a replan).
    const recalled = state.inputs.memory && state.plans.length === 0 && !state.inputs.plan ? await this.#recall(state) : undefined;
    const decision = planRun(state, run.context, exclude, reason, recalled);
    if (decision.entries.length) await this.append(run, decision.entries);
    if (decision.stop) await this.#finish(run, decision.stop);
  }

  async #finish(run: ActiveRun, stop: Stop): Promise<void> {
    const { state } = run;
    const settings = state.inputs.memory;
    if (!settings) return this.#finishLegacy(run, stop);
    const account = journalReflection(state, stop);
    const summary = settings.summaryModel ? await reflectWithModel(run, this.#reflectPorts, settings.summaryModel, account) : account;
    // Memory is written before the run completes, so a failed write is journaled (as a warning) and never fails the run.
    let warning: Entry | undefined;
    if (this.#ports.memory) {
      try {
        await this.#ports.memory.remember(state.inputs.profile, runNote(state, stop, summary));
      } catch (thrown) {
        warning = entry('memory_warning', { operation: 'remember', error: toCugarError(thrown, { code: 'memory_failed', failureMode: 'SYSTEM' }).toJSON() });
      }
    }
    await this.append(run, [...(warning ? [warning] : []), ...finishRun(state, stop, summary)]);
  }

  /** How runs recorded before memory was in the loop finish: the reflector's line, kept in memory afterwards by agent runs only. */
  async #finishLegacy(run: ActiveRun, stop: Stop): Promise<void> {
    const { state } = run;
    const events = await this.append(run, finishRun(state, stop, this.#reflector));
    const reflection = events.find((event) => event.type === 'reflection');
    if (!state.agent || !this.#ports.memory || reflection?.type !== 'reflection') return;
    // The run's reflection is kept for later runs of the profile; a failed write never fails the run.
    const note = { runId: state.runId, goal: state.inputs.goal, summary: reflection.data.summary, success: state.status === 'completed' };
    await this.#ports.memory.remember(state.inputs.profile, note).catch(() => undefined);
  }

  /**
   * Reflections of earlier runs relevant to the run's goal. Runs recorded before memory was in
   * the loop read none when memory fails; others journal the failure as a warning.
   */
  async #recall(state: RunState): Promise<RecalledPlanNotes> {
    if (!this.#ports.memory) return { notes: [] };
    try {
      return { notes: await this.#ports.memory.recall(state.inputs.profile, state.inputs.goal) };
    } catch (thrown) {
      return state.inputs.memory ? { error: toCugarError(thrown, { code: 'memory_failed', failureMode: 'SYSTEM' }).toJSON() } : { notes: [] };
    }
  }

  /** The model's next turn in an agent run (`agentTurn.ts`): its events are appended here, like every other. */
  async #agentTurn(run: ActiveRun): Promise<void> {
    const { clock, models, sleep, onModelDelta } = this.#ports;
    await agentTurn(run, {
      clock,
      sleep,
      ...(models ? { models } : {}),
      ...(onModelDelta ? { onDelta: onModelDelta } : {}),
      append: (target, entries, usage) => this.append(target, entries, usage),
      finish: (target, stop) => this.#finish(target, stop),
    });
  }

  /** The execute stage: an agent run's budget and next turn, then the next step (or wave of steps). */
  async #execute(run: ActiveRun): Promise<void> {
    const { state } = run;
    const budgetStop = state.agent ? agentBudgetStop(state) : undefined;
    if (budgetStop) return this.#finish(run, budgetStop);
    const step = state.agent ? nextAgentStep(state) : nextStep(state);
    if (!step && state.agent) return this.#agentTurn(run);
    if (!step) return this.#finish(run, { stopReason: 'completed' });
    return executeNext(run, step, this.#stepPorts);
  }

  /** Ask a run being driven here to stop after its current call; its signal aborts that call. */
  requestCancel(run: ActiveRun, reason: string): void {
    run.cancelReason = reason;
    run.controller.abort(new CugarError(`run cancelled: ${reason}`, { code: 'cancelled', failureMode: 'USER' }));
  }
}
