import type * as z from 'zod';
import { ConflictError, NotFoundError, ValidationError } from '../errors.ts';
import { canonicalJson, toJsonData } from '../journal/canonicalJson.ts';
import { sealEvent } from '../journal/journal.ts';
import { sha256Hex } from '../journal/sha256.ts';
import { toTraceRecords, type TraceRecord } from '../journal/trace.ts';
import { Planner } from '../planning/planner.ts';
import { parseBudget } from '../planning/planningAuthority.ts';
import { PolicyEnforcer } from '../policy/policyEnforcer.ts';
import { redact, redactText } from '../policy/redaction.ts';
import { createRandomIds, createYielder, systemClock, type Clock, type Ids } from '../ports.ts';
import { Coordinator, Worker } from '../routing/coordinator.ts';
import { createRoutingPolicy } from '../routing/routingAuthority.ts';
import type { BudgetUsage, ToolBudget } from '../schema/budget.ts';
import { GoalTextSchema, ProfileNameSchema } from '../schema/common.ts';
import { DEFAULT_CONFIG, type Config } from '../schema/config.ts';
import type { JournalEvent, RunInputs } from '../schema/journalEvent.ts';
import { defaultSleep } from './runDefaults.ts';
import { runDelegation, type DelegateResult, type DelegatedBy } from './delegation.ts';
import { continueParent, waitingParentsToResume, waitsForSubRun, type ParentHost } from './subRunWait.ts';
import { runInputDefaults, runInputs, type RunInputDefaults } from './runInputs.ts';
import { parseOrThrow } from '../schema/validate.ts';
import { InMemoryStore } from '../store/inMemoryStore.ts';
import type { ApprovalFilter, ApprovalRecord, Store } from '../store/store.ts';
import type { ToolRegistry } from '../tools/toolRegistry.ts';
import { registerPinnedVersions } from '../tools/versions/pinnedVersions.ts';
import type { ToolVersionSource } from '../tools/versions/toolVersionSource.ts';
import { ApprovalDecisionSchema, StartOptionsSchema, type ApprovalDecision, type OrchestratorOptions, type StartOptions } from './options.ts';
import { partialResult } from './partialResult.ts';
import { createRetryPolicy } from './retryPolicy.ts';
import { outcomeOf, type RunOutcome } from './runOutcome.ts';
import { RunSessions, isTerminal, type ActiveRun } from './runSession.ts';
import { applyEvent, failureModeOf, initialRunState, type RunState } from './runState.ts';
import { entry, type Entry } from './stages/entry.ts';

/**
 * The durable orchestrator: the one engine every plan and run goes through. Every decision is
 * an event appended to the run's hash-chained journal in the {@link Store}, and the run's state
 * is nothing but those events folded (`applyEvent`). So a run survives any crash: a new
 * orchestrator over the same store resumes it exactly, approvals survive restarts, and a
 * journal can be verified and replayed anywhere.
 *
 * Lifecycle: `initialize → plan → route → execute → aggregate → complete`, each a `stage` event.
 * Each step: policy and schema checks → approval gate → budget reservation → `tool_call_start`
 * (durable before the side effect) → handler under the retry policy and timeout →
 * `tool_call_complete` / `tool_call_error` → health check (reflect, replan or stop). The
 * decisions live in `stages/`, the loop that applies them in `runSession.ts`; this class is
 * the public surface: validation, recorded inputs, and the human and host entry points.
 *
 * @example
 * const orchestrator = new Orchestrator({ registry, store });
 * const outcome = await orchestrator.start('transfer 10 to savings', 'bank');
 * if (outcome.status === 'paused') await orchestrator.resolveApproval(outcome.pendingApproval!.approvalId, { decision: 'approve', by: 'ada' });
 */
export class Orchestrator {
  readonly store: Store;
  readonly coordinator: Coordinator;
  /** The planner every run shares. */
  readonly planner: Planner;
  readonly #registry: ToolRegistry;
  readonly #toolVersions: ToolVersionSource | undefined;
  readonly #clock: Clock;
  readonly #ids: Ids;
  readonly #policy: PolicyEnforcer;
  readonly #config: Config;
  /** What new runs record besides their request (`runInputs.ts`). */
  readonly #defaults: RunInputDefaults;
  readonly #sessions: RunSessions;
  readonly #deltaListeners = new Set<(runId: string, delta: string) => void>();

  constructor(options: OrchestratorOptions) {
    this.#registry = options.registry;
    this.#toolVersions = options.toolVersions;
    this.store = options.store ?? new InMemoryStore();
    this.#clock = options.clock ?? systemClock;
    this.#ids = options.ids ?? createRandomIds(this.#clock);
    this.#policy = options.policy ?? new PolicyEnforcer();
    this.#config = { ...DEFAULT_CONFIG, ...options.config };
    this.#defaults = runInputDefaults(options, this.#config, createRetryPolicy(options.retry));
    this.planner =
      options.planner ??
      new Planner({ ids: this.#ids, clock: this.#clock, maxSteps: this.#config.plannerMaxSteps, minSimilarity: this.#config.plannerMinSimilarity });
    const routing = options.routing ?? 'round_robin';
    this.coordinator = new Coordinator(options.workers ?? [new Worker({ id: 'local' })], typeof routing === 'string' ? createRoutingPolicy(routing) : routing);
    this.#sessions = new RunSessions({
      store: this.store,
      clock: this.#clock,
      registry: this.#registry,
      ...(options.toolVersions ? { toolVersions: options.toolVersions } : {}),
      ...(options.toolProposals ? { proposals: options.toolProposals } : {}),
      policy: this.#policy,
      planner: this.planner,
      coordinator: this.coordinator,
      ...(options.models ? { models: options.models } : {}),
      ...(options.memory ? { memory: options.memory } : {}),
      onModelDelta: (runId, delta) => {
        options.onModelDelta?.(runId, delta);
        for (const listener of this.#deltaListeners) listener(runId, redactText(delta));
      },
      ...(options.approval?.requires ? { requiresApproval: options.approval.requires } : {}),
      sleep: options.sleep ?? defaultSleep,
      readProfileUsage: options.readProfileUsage ?? ((profile) => this.store.getProfileUsage(profile)),
      ...(options.recordedRetry ? { recordedRetry: options.recordedRetry } : {}),
      ...(options.signer ? { signer: options.signer } : {}),
      ...(options.secrets ? { secrets: options.secrets } : {}),
      ...(this.#defaults.delegation
        ? { delegate: (parent: RunState, stepId: string, input: { profile: string; goal: string }) => this.#delegate(parent, stepId, input) }
        : {}),
    });
  }

  /** A delegation of an agent run (`delegation.ts`): a sub-run of another profile, started, resumed or read here. */
  #delegate(parent: RunState, stepId: string, input: { profile: string; goal: string }): Promise<DelegateResult> {
    return runDelegation(
      {
        startChild: async (goal, profile, runId, budget, delegatedBy) => {
          const opts = parseOrThrow(StartOptionsSchema, { runId, budget, parentContext: delegatedBy.runId }, 'start options');
          const { inputs } = await this.#prepare(parseOrThrow(GoalTextSchema, goal, 'goal'), profile, opts, delegatedBy);
          return this.#sessions.drive(await this.#begin(runId, inputs));
        },
        resume: (runId) => this.resume(runId),
        readJournal: (runId) => this.store.readJournal(runId),
      },
      parent,
      stepId,
      input,
    );
  }

  /** A profile's shared budget and what its runs have spent so far, for meters. */
  async profileBudget(profile: string): Promise<{ profile: string; budget?: ToolBudget; usage: BudgetUsage }> {
    const valid = parseOrThrow(ProfileNameSchema, profile, 'profile', 'invalid_profile');
    const budget = this.#defaults.profileBudgets.get(valid);
    return { profile: valid, ...(budget ? { budget: { ...budget } } : {}), usage: await this.store.getProfileUsage(valid) };
  }

  /** Receive the text of streamed model answers as it arrives (redacted; live only, never journaled). */
  subscribeModelDeltas(listener: (runId: string, delta: string) => void): () => void {
    this.#deltaListeners.add(listener);
    return () => this.#deltaListeners.delete(listener);
  }

  /** Receive every event appended by this orchestrator, redacted, after it is durable. */
  subscribe(listener: (event: JournalEvent) => void): () => void {
    return this.#sessions.subscribe(listener);
  }

  /**
   * Start a run of `goal` in `profile` and drive it until it completes, fails, or pauses for
   * an approval. Bad input throws a typed error before anything is written.
   */
  async start(goal: string, profile: string, options: StartOptions = {}): Promise<RunOutcome> {
    const { outcome } = await this.launch(goal, profile, options);
    return outcome;
  }

  /**
   * Start a run like {@link start} but return as soon as its first event is durable: the run
   * id and trace id at once, and `outcome`, which settles when the run completes, fails or
   * pauses. Bad input still throws before anything is written. This is what `202 Accepted` is
   * built on.
   */
  async launch(goal: string, profile: string, options: StartOptions = {}): Promise<{ runId: string; traceId: string; outcome: Promise<RunOutcome> }> {
    const validGoal = parseOrThrow(GoalTextSchema, goal, 'goal');
    const validProfile = parseOrThrow(ProfileNameSchema, profile, 'profile', 'invalid_profile');
    const opts = parseOrThrow(StartOptionsSchema, options, 'start options');
    const { runId, inputs } = await this.#prepare(validGoal, validProfile, opts);
    const run = await this.#begin(runId, inputs);
    return { runId, traceId: inputs.traceId, outcome: this.#sessions.drive(run) };
  }

  /** Start a run from recorded inputs (the first event of a journal); used by {@link start} and replay. */
  async startRecorded(runId: string, inputs: RunInputs): Promise<RunOutcome> {
    // Inputs from elsewhere (a journal being replayed or forked) are copied as JSON data before they are journaled.
    return this.#sessions.drive(await this.#begin(runId, toJsonData(inputs)));
  }

  /**
   * Continue a run from its journal: after a crash, after an approval timed out, or after a
   * recoverable failure. Steps that completed are never run again; a step that started but
   * has no recorded result is re-run only if its tool is idempotent (same idempotency key),
   * otherwise it waits for a human.
   */
  async resume(runId: string): Promise<RunOutcome> {
    if (this.#sessions.active(runId)) throw new ConflictError(`run ${runId} is already running here`, { code: 'run_active' });
    const state = await this.#load(runId);
    // One code for every finished run, whatever it is asked (resume, cancel): run_finished.
    if (state.status === 'completed' || state.status === 'cancelled')
      throw new ConflictError(`run ${runId} already ${state.status}`, { code: 'run_finished', details: { status: state.status } });
    if (state.status === 'failed') {
      const mode = failureModeOf(state.error);
      if (!partialResult([], undefined, mode).recoverable) {
        throw new ConflictError(`run ${runId} failed with a ${mode} failure, which resuming cannot fix`, {
          code: 'run_not_recoverable',
          details: { failureMode: mode },
        });
      }
    }
    // A run waiting for a sub-run that has not ended stays as it is: that sub-run's end resumes it.
    if (await waitsForSubRun(this.store, state)) return outcomeOf(state);
    const run = this.#sessions.activate(state);
    const entries: Entry[] = [entry('run_resumed', { from: state.status })];
    if (state.status === 'failed') {
      // A finished plan stays finished: the rest continues as a new plan revision with the same step ids.
      const last = state.plans.at(-1)!;
      const revision = state.plans.length;
      const remaining = last.steps.filter((s) => state.steps.find((x) => x.stepId === s.name)?.status !== 'completed');
      const plan = { ...last, planId: `${runId}:plan:${revision}`, steps: remaining };
      entries.push(
        entry('stage', { stage: 'plan' }),
        entry('plan_created', { revision, plan, continuation: true }),
        entry('plan_transition', { planId: plan.planId, from: 'CREATED', to: 'VALIDATED' }),
        entry('stage', { stage: 'route' }),
      );
    }
    await this.#appendOrRelease(run, entries);
    return this.#driveThenParent(run);
  }

  /** Drive a run to rest; a delegated sub-run that ended resumes the run waiting for it (subRunWait.ts). */
  async #driveThenParent(run: ActiveRun): Promise<RunOutcome> {
    const outcome = await this.#sessions.drive(run);
    await continueParent(this.#parents(), run.state);
    return outcome;
  }

  #parents(): ParentHost {
    return { store: this.store, active: (runId) => this.#sessions.active(runId) !== undefined, resume: (runId) => this.resume(runId) };
  }

  /**
   * Apply a human's decision to a pending approval — once. An edit's arguments are validated
   * against the tool's schema and re-hashed. The run then continues unless `continueRun` is false.
   */
  async resolveApproval(approvalId: string, decision: ApprovalDecision, continueRun = true): Promise<RunOutcome> {
    const input = parseOrThrow(ApprovalDecisionSchema, decision, 'approval decision');
    if (input.decision === 'edit' && !input.args) throw new ValidationError('an edit needs args', { code: 'missing_args' });
    if (input.decision !== 'edit' && input.args) throw new ValidationError('args are only for an edit', { code: 'unexpected_args' });
    const record = await this.store.getApproval(approvalId);
    if (!record) throw new NotFoundError(`no approval ${approvalId}`, { code: 'unknown_approval' });
    if (this.#sessions.active(record.runId)) throw new ConflictError(`run ${record.runId} is busy`, { code: 'run_active' });
    const state = await this.#load(record.runId);
    const current = state.approvals.get(approvalId);
    if (!current || current.status !== 'pending' || state.pendingApprovalId !== approvalId) {
      throw new ConflictError(`approval ${approvalId} is already ${current?.status ?? 'resolved'}`, {
        code: 'approval_already_resolved',
        details: { status: current?.status },
      });
    }
    const at = this.#clock.now();
    const who = { by: input.by, ...(input.principal ? { principal: input.principal } : {}) };
    let received: Entry = entry('approval_received', { approvalId, decision: input.decision, argsHash: current.argsHash, reason: input.reason, ...who }, at);
    if (input.decision === 'edit') {
      // The edited call is checked against the tool the run uses: for a tool written at run time, the version it recorded.
      const registry = this.#registry.sandbox(state.inputs.profile);
      registerPinnedVersions(registry, state.inputs, this.#toolVersions);
      const tool = registry.resolve(state.inputs.profile, current.tool);
      const args = toJsonData(this.#policy.checkStep(state.inputs.profile, tool, input.args)) as Record<string, unknown>;
      received = entry('approval_received', { approvalId, decision: 'edit', argsHash: sha256Hex(canonicalJson(args)), reason: input.reason, ...who, args }, at);
    }
    const run = this.#sessions.activate(state);
    if (current.deadline !== undefined && at >= current.deadline) {
      // Too late: the approval policy has already decided.
      const action = state.inputs.approval.onTimeout;
      await this.#appendOrRelease(run, [entry('approval_timeout', { approvalId, action }, at)]);
      this.#sessions.release(record.runId);
      throw new ConflictError(`approval ${approvalId} expired and was ${action === 'approve' ? 'approved' : 'rejected'} by policy`, {
        code: 'approval_expired',
        details: { action },
      });
    }
    await this.#appendOrRelease(run, [received]);
    if (!continueRun) {
      this.#sessions.release(record.runId);
      return outcomeOf(run.state);
    }
    return this.#driveThenParent(run);
  }

  /** Cancel a run: a running one stops after its current call (whose signal is aborted); a paused one at once. */
  async cancel(runId: string, reason = 'cancelled'): Promise<RunOutcome> {
    const active = this.#sessions.active(runId);
    if (active) {
      this.#sessions.requestCancel(active, reason);
      return outcomeOf(active.state);
    }
    const state = await this.#load(runId);
    if (isTerminal(state.status)) throw new ConflictError(`run ${runId} already ${state.status}`, { code: 'run_finished', details: { status: state.status } });
    const waitingFor = state.waitingFor;
    const run = this.#sessions.activate(state);
    try {
      await this.#sessions.append(run, [entry('run_cancelled', { reason })]);
    } finally {
      this.#sessions.release(runId);
    }
    // The sub-run it waited for goes with it; a cancelled sub-run resumes a parent that waits for it.
    if (waitingFor) await this.cancel(waitingFor, reason).catch(() => undefined);
    await continueParent(this.#parents(), run.state);
    return outcomeOf(run.state);
  }

  /**
   * Resume every paused run whose approval deadline has passed, so its timeout policy applies,
   * and every run paused for a delegated sub-run that has ended since. Hosts call this on a
   * timer (an alarm on the Worker), so deadlines fire without a request.
   */
  async sweepApprovals(): Promise<RunOutcome[]> {
    const now = this.#clock.now();
    const expired = (await this.store.listApprovals({ status: 'pending' })).filter((a) => a.deadline !== undefined && a.deadline <= now);
    const outcomes: RunOutcome[] = [];
    for (const approval of expired) {
      if (!this.#sessions.active(approval.runId)) outcomes.push(await this.resume(approval.runId));
    }
    // Runs whose awaited sub-run ended while no process was there to resume them.
    for (const parent of await waitingParentsToResume(this.store)) {
      if (!this.#sessions.active(parent.runId)) outcomes.push(await this.resume(parent.runId));
    }
    return outcomes;
  }

  /** The outcome of a run as its journal stands. */
  async getRun(runId: string): Promise<RunOutcome> {
    const active = this.#sessions.active(runId);
    return outcomeOf(active ? active.state : await this.#load(runId));
  }

  /** The folded state of a run (for dashboards and tests). */
  async inspect(runId: string): Promise<RunState> {
    return this.#load(runId);
  }

  /** Approvals by status, profile or run. */
  listApprovals(filter?: ApprovalFilter): Promise<ApprovalRecord[]> {
    return this.store.listApprovals(filter);
  }

  /** Every event of every run of `traceId` as trace records (trace id, timestamp, duration), redacted, in time order. */
  async getTraceHistory(traceId: string): Promise<TraceRecord[]> {
    const runs = await this.store.listRuns({ traceId });
    const journals = await Promise.all(runs.map((run) => this.store.readJournal(run.runId)));
    return redact(journals.flatMap(toTraceRecords).sort((a, b) => a.at - b.at || (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : a.seq - b.seq)));
  }

  /** Validate a run's request against the profile and fix its inputs (the data of event 0). */
  async #prepare(
    goal: string,
    profile: string,
    opts: z.output<typeof StartOptionsSchema>,
    delegatedBy?: DelegatedBy,
  ): Promise<{ runId: string; inputs: RunInputs }> {
    const metadata = this.#policy.checkMetadata(opts.metadata);
    if (!this.#registry.hasProfile(profile)) throw new NotFoundError(`unknown profile "${profile}"`, { code: 'unknown_profile', details: { profile } });
    const budget = opts.budget === undefined ? this.#defaults.budget : parseBudget(opts.budget);
    const runId = opts.runId ?? this.#ids.next('run');
    if (await this.store.getRun(runId)) throw new ConflictError(`run ${runId} already exists`, { code: 'run_exists', details: { runId } });
    const traceId = opts.traceId ?? this.#ids.next('trace');
    return { runId, inputs: runInputs(this.#defaults, { goal, profile, runId, traceId, metadata, budget, opts, ...(delegatedBy ? { delegatedBy } : {}) }) };
  }

  /** Write a run's first event; `inputs` are JSON data of this run's own (`runInputs` makes them fresh), stored as given. */
  async #begin(runId: string, inputs: RunInputs): Promise<ActiveRun> {
    const dataTexts: string[] = [];
    const first = sealEvent(undefined, runId, 'stage', this.#clock.now(), { stage: 'initialize', inputs }, dataTexts);
    return this.#sessions.begin(first, initialRunState(first), dataTexts);
  }

  async #load(runId: string): Promise<RunState> {
    const events = await this.store.readJournal(runId);
    if (events.length === 0) throw new NotFoundError(`no run ${runId}`, { code: 'unknown_run', details: { runId } });
    // Folded in slices that yield, so reading a 10,000-step run never holds the event loop for long.
    const state = initialRunState(events[0]!);
    const yieldNow = createYielder(15);
    for (let i = 1; i < events.length; i++) {
      applyEvent(state, events[i]!);
      if ((i & 255) === 0) await yieldNow();
    }
    return state;
  }

  async #appendOrRelease(run: ActiveRun, entries: Entry[]): Promise<void> {
    try {
      await this.#sessions.append(run, entries);
    } catch (error) {
      this.#sessions.release(run.state.runId);
      throw error;
    }
  }
}
