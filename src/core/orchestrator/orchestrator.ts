import * as z from 'zod';
import { ConflictError, CugarError, NotFoundError, ResourceError, ValidationError, toCugarError } from '../errors.ts';
import { canonicalJson, toJsonData } from '../journal/canonicalJson.ts';
import { sealEvent, type JournalEvent, type JournalEventType } from '../journal/journal.ts';
import { sha256Hex } from '../journal/sha256.ts';
import { toTraceRecords, type TraceRecord } from '../journal/trace.ts';
import { InMemoryStore, type ApprovalFilter, type ApprovalRecord, type RunStatus, type Store } from '../store/store.ts';
import { Planner } from '../planning/planner.ts';
import { ZERO_USAGE, addUsage, budgetExceededError, checkReservation, parseBudget, transitionPlan, type BudgetUsage, type PlanStage, type ToolBudget, type ToolBudgetInput } from '../planning/planningAuthority.ts';
import { PolicyEnforcer } from '../policy/policyEnforcer.ts';
import { redact } from '../policy/redaction.ts';
import { createRandomIds, createSeededRandom, pause, systemClock, type Clock, type Ids, type Random } from '../ports.ts';
import { Coordinator, Worker } from '../routing/coordinator.ts';
import { createRoutingPolicy, type RoutingPolicy, type RoutingPolicyName } from '../routing/routingAuthority.ts';
import { DEFAULT_CONFIG, type Config } from '../schema/config.ts';
import { MetadataSchema, ProfileNameSchema } from '../schema/common.ts';
import type { ErrorInfo } from '../schema/event.ts';
import { GoalTextSchema } from '../schema/common.ts';
import { PlanningPreferencesSchema, type Plan } from '../schema/plan.ts';
import { parseOrThrow } from '../schema/validate.ts';
import type { ToolDefinition } from '../tools/tool.ts';
import type { ToolRegistry } from '../tools/toolRegistry.ts';
import { HealthMonitor, Reflector } from './autonomy.ts';
import { ExecutionContext } from './executionContext.ts';
import { resolveReferences } from './executor.ts';
import { isStepReference } from '../planning/slotFilling.ts';
import { partialResult, type PartialResult } from './partialResult.ts';
import { createRetryPolicy, type RetryPolicy, type RetryPolicyInput } from './retryPolicy.ts';
import { applyEvent, failureModeOf, initialRunState, outputsOf, projectRun, reviseSteps, summarize, type AutonomySettings, type RunInputs, type RunState, type StepState } from './runState.ts';

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

/** What an {@link Orchestrator} is built from. Every port has a working default. */
export interface OrchestratorOptions {
  registry: ToolRegistry;
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
  /** Per-attempt timeout in milliseconds. */
  stepTimeoutMs?: number;
  autonomy?: Partial<AutonomySettings>;
  /** Waits between retries; default a real timer. Tests pass one that returns at once. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Seed of each run's random port unless the run names one. Default 1. */
  seed?: number;
  /** Reads a profile's spending so far; default the store. Replay substitutes recorded values. */
  readProfileUsage?: (profile: string, runId: string) => Promise<BudgetUsage>;
}

/** Most steps an explicit plan may have. */
export const MAX_EXPLICIT_STEPS = 10_000;

/** Options of {@link Orchestrator.start}. */
export const StartOptionsSchema = z.object({
  metadata: MetadataSchema.optional(),
  preferences: PlanningPreferencesSchema.partial().optional(),
  /**
   * Steps to run instead of planning: the caller's own plan (up to 10,000 steps). Tools are
   * still checked against the profile before anything runs.
   */
  plan: z
    .array(z.object({ tool: z.string().min(1), input: z.record(z.string(), z.unknown()).default({}) }))
    .min(1)
    .max(MAX_EXPLICIT_STEPS)
    .optional(),
  budget: z.unknown().optional(),
  runId: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/).optional(),
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
  by: z.string().min(1).max(200),
});
export type ApprovalDecision = z.input<typeof ApprovalDecisionSchema>;

/** Where a run stands after the orchestrator let go of it. */
export interface RunOutcome {
  runId: string;
  traceId: string;
  profile: string;
  status: RunStatus;
  success: boolean;
  outputs: Record<string, unknown>;
  stopReason?: string;
  error?: ErrorInfo;
  /** Set when the run failed: what completed and how it might finish. */
  partial?: PartialResult;
  /** Set when the run is paused for a human. */
  pendingApproval?: ApprovalRecord;
  usage: BudgetUsage;
  /** The run's own ceilings (and the profile's shared ones, when it has them), for meters. */
  budget: { run: ToolBudget; profile?: ToolBudget };
  head: { seq: number; hash: string };
}

/** One event to append: its type, its data, and optionally the time already read for it. */
type Entry = readonly [JournalEventType, Record<string, unknown>, number?];

/** A run this orchestrator is driving: its folded state and what it needs to act. */
interface ActiveRun {
  state: RunState;
  registry: ToolRegistry;
  random: Random;
  controller: AbortController;
  cancelReason?: string;
}

const TERMINAL: ReadonlySet<RunStatus> = new Set(['completed', 'failed', 'cancelled']);

/** A retry delay: ends early, without an error, when the run is cancelled. */
function defaultSleep(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return Promise.resolve();
  return pause(ms, signal).catch(() => undefined);
}

/** The error carried by a replayed tool failure, reconstructed from its journal record. */
export function errorFromInfo(info: ErrorInfo): CugarError {
  const error = new CugarError(info.message, { code: info.code, failureMode: info.failureMode as CugarError['failureMode'], retryable: info.retryable, details: info.details });
  Object.defineProperty(error, 'name', { value: info.name });
  return error;
}

/**
 * The durable orchestrator. Every decision is an event appended to the run's hash-chained
 * journal in the {@link Store}, and the run's state is nothing but those events folded
 * (`applyEvent`). So a run survives any crash: a new orchestrator over the same store resumes
 * it exactly, approvals survive restarts, and a journal can be verified and replayed anywhere.
 *
 * Lifecycle: `initialize → plan → route → execute → aggregate → complete`, each a `stage` event.
 * Each step: policy and schema checks → approval gate → budget reservation → `tool_call_start`
 * (durable before the side effect) → handler under the retry policy and timeout →
 * `tool_call_complete` / `tool_call_error` → health check (reflect, replan or stop).
 *
 * @example
 * const orchestrator = new Orchestrator({ registry, store });
 * const outcome = await orchestrator.start('transfer 10 to savings', 'bank');
 * if (outcome.status === 'paused') await orchestrator.resolveApproval(outcome.pendingApproval!.approvalId, { decision: 'approve', by: 'ada' });
 */
export class Orchestrator {
  readonly store: Store;
  readonly coordinator: Coordinator;
  readonly #registry: ToolRegistry;
  readonly #clock: Clock;
  readonly #ids: Ids;
  readonly #retry: RetryPolicy;
  readonly #approval: Required<Omit<ApprovalPolicy, 'requires' | 'timeoutMs'>> & Pick<ApprovalPolicy, 'requires' | 'timeoutMs'>;
  readonly #budget: ToolBudget;
  readonly #profileBudgets: Map<string, ToolBudget>;
  readonly #policy: PolicyEnforcer;
  readonly #config: Config;
  readonly #stepTimeoutMs: number | undefined;
  readonly #autonomy: AutonomySettings;
  readonly #sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  readonly #seed: number;
  readonly #readProfileUsage: (profile: string, runId: string) => Promise<BudgetUsage>;
  readonly #health: HealthMonitor;
  readonly #reflector = new Reflector();
  readonly #active = new Map<string, ActiveRun>();
  readonly #listeners = new Set<(event: JournalEvent) => void>();

  constructor(options: OrchestratorOptions) {
    this.#registry = options.registry;
    this.store = options.store ?? new InMemoryStore();
    this.#clock = options.clock ?? systemClock;
    this.#ids = options.ids ?? createRandomIds();
    this.#retry = createRetryPolicy(options.retry);
    this.#approval = { onTimeout: options.approval?.onTimeout ?? 'reject', timeoutMs: options.approval?.timeoutMs, requires: options.approval?.requires };
    if (this.#approval.timeoutMs !== undefined && !(this.#approval.timeoutMs >= 0 && Number.isFinite(this.#approval.timeoutMs))) {
      throw new ValidationError('approval timeoutMs must be a finite number ≥ 0', { code: 'invalid_approval_policy' });
    }
    this.#budget = parseBudget(options.budget);
    this.#profileBudgets = new Map(Object.entries(options.profileBudgets ?? {}).map(([profile, budget]) => [profile, parseBudget(budget)]));
    this.#policy = options.policy ?? new PolicyEnforcer();
    this.#config = { ...DEFAULT_CONFIG, ...options.config };
    this.#stepTimeoutMs = options.stepTimeoutMs;
    this.#autonomy = { replan: true, maxReplans: 1, reflectBelow: 0.5, maxRepeats: 3, ...options.autonomy };
    this.#health = new HealthMonitor(this.#autonomy.reflectBelow, this.#autonomy.maxRepeats);
    this.#sleep = options.sleep ?? defaultSleep;
    this.#seed = options.seed ?? this.#config.randomSeed;
    this.#readProfileUsage = options.readProfileUsage ?? ((profile) => this.store.getProfileUsage(profile));
    const routing = options.routing ?? 'round_robin';
    this.coordinator = new Coordinator(options.workers ?? [new Worker({ id: 'local' })], typeof routing === 'string' ? createRoutingPolicy(routing) : routing);
  }

  /** A profile's shared budget and what its runs have spent so far, for meters. */
  async profileBudget(profile: string): Promise<{ profile: string; budget?: ToolBudget; usage: BudgetUsage }> {
    const valid = parseOrThrow(ProfileNameSchema, profile, 'profile', 'invalid_profile');
    const budget = this.#profileBudgets.get(valid);
    return { profile: valid, ...(budget ? { budget: { ...budget } } : {}), usage: await this.store.getProfileUsage(valid) };
  }

  /** Receive every event appended by this orchestrator, redacted, after it is durable. */
  subscribe(listener: (event: JournalEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Start a run of `goal` in `profile` and drive it until it completes, fails, or pauses for
   * an approval. Bad input throws a typed error before anything is written.
   */
  async start(goal: string, profile: string, options: StartOptions = {}): Promise<RunOutcome> {
    const { outcome } = await this.launch(goal, profile, options);
    return outcome;
  }

  /** Validate a run's request against the profile and fix its inputs (the data of event 0). */
  async #prepare(validGoal: string, validProfile: string, opts: z.output<typeof StartOptionsSchema>): Promise<{ runId: string; inputs: RunInputs }> {
    const metadata = this.#policy.checkMetadata(opts.metadata);
    if (!this.#registry.hasProfile(validProfile)) throw new NotFoundError(`unknown profile "${validProfile}"`, { code: 'unknown_profile', details: { profile: validProfile } });
    const budget = opts.budget === undefined ? this.#budget : parseBudget(opts.budget);
    const runId = opts.runId ?? this.#ids.next('run');
    if (await this.store.getRun(runId)) throw new ConflictError(`run ${runId} already exists`, { code: 'run_exists', details: { runId } });
    const traceId = opts.traceId ?? this.#ids.next('trace');
    const context = new ExecutionContext({
      traceId,
      runId,
      requestId: runId,
      userIntent: validGoal,
      profile: validProfile,
      ...(opts.userId ? { userId: opts.userId } : {}),
      ...(opts.memoryScope ? { memoryScope: opts.memoryScope } : {}),
      ...(opts.conversationId ? { conversationId: opts.conversationId } : {}),
      ...(opts.sessionId ? { sessionId: opts.sessionId } : {}),
      ...(opts.parentContext ? { parentContext: opts.parentContext } : {}),
    });
    const profileBudget = this.#profileBudgets.get(validProfile);
    const inputs: RunInputs = toJsonData({
      goal: validGoal,
      profile: validProfile,
      traceId,
      context: context.toJSON(),
      metadata,
      ...(opts.preferences ? { preferences: opts.preferences } : {}),
      budget,
      ...(profileBudget ? { profileBudget } : {}),
      retry: this.#retry.config,
      approval: { onTimeout: this.#approval.onTimeout, ...(this.#approval.timeoutMs !== undefined ? { timeoutMs: this.#approval.timeoutMs } : {}) },
      autonomy: this.#autonomy,
      seed: opts.seed ?? this.#seed,
      maxSteps: Math.max(this.#config.plannerMaxSteps, opts.plan?.length ?? 0),
      ...(opts.plan ? { plan: opts.plan.map((step, index) => ({ name: `step-${index}`, tool: step.tool, input: step.input, index })) } : {}),
      ...(this.#stepTimeoutMs !== undefined ? { stepTimeoutMs: this.#stepTimeoutMs } : {}),
    });
    return { runId, inputs };
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
    return { runId, traceId: inputs.traceId, outcome: this.#drive(run) };
  }

  /** Start a run from recorded inputs (the first event of a journal); used by {@link start} and replay. */
  async startRecorded(runId: string, inputs: RunInputs): Promise<RunOutcome> {
    return this.#drive(await this.#begin(runId, inputs));
  }

  async #begin(runId: string, inputs: RunInputs): Promise<ActiveRun> {
    const first = sealEvent(undefined, runId, 'stage', this.#clock.now(), { stage: 'initialize', inputs: toJsonData(inputs) });
    const state = initialRunState(first);
    await this.store.append({ runId, events: [first], expectedHead: null, run: summarize(state) });
    this.#notify([first]);
    return this.#activate(state);
  }

  /**
   * Continue a run from its journal: after a crash, after an approval timed out, or after a
   * recoverable failure. Steps that completed are never run again; a step that started but
   * has no recorded result is re-run only if its tool is idempotent (same idempotency key),
   * otherwise it waits for a human.
   */
  async resume(runId: string): Promise<RunOutcome> {
    if (this.#active.has(runId)) throw new ConflictError(`run ${runId} is already running here`, { code: 'run_active' });
    const state = await this.#load(runId);
    if (state.status === 'completed') throw new ConflictError(`run ${runId} already completed`, { code: 'run_completed' });
    if (state.status === 'cancelled') throw new ConflictError(`run ${runId} was cancelled`, { code: 'run_cancelled' });
    if (state.status === 'failed') {
      const mode = failureModeOf(state.error);
      if (!partialResult([], undefined, mode).recoverable) {
        throw new ConflictError(`run ${runId} failed with a ${mode} failure, which resuming cannot fix`, { code: 'run_not_recoverable', details: { failureMode: mode } });
      }
    }
    const run = this.#activate(state);
    try {
      const entries: Entry[] = [['run_resumed', { from: state.status }]];
      if (state.status === 'failed') {
        // A finished plan stays finished: the rest continues as a new plan revision with the same step ids.
        const last = state.plans.at(-1)!;
        const revision = state.plans.length;
        const remaining = last.steps.filter((s) => state.steps.find((x) => x.stepId === s.name)?.status !== 'completed');
        const plan = { ...last, planId: `${runId}:plan:${revision}`, steps: remaining };
        entries.push(['stage', { stage: 'plan' }], ['plan_created', { revision, plan, continuation: true }], ['plan_transition', { planId: plan.planId, from: 'CREATED', to: 'VALIDATED' }], ['stage', { stage: 'route' }]);
      }
      await this.#append(run, entries);
    } catch (error) {
      this.#active.delete(runId);
      throw error;
    }
    return this.#drive(run);
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
    if (this.#active.has(record.runId)) throw new ConflictError(`run ${record.runId} is busy`, { code: 'run_active' });
    const state = await this.#load(record.runId);
    const current = state.approvals.get(approvalId);
    if (!current || current.status !== 'pending' || state.pendingApprovalId !== approvalId) {
      throw new ConflictError(`approval ${approvalId} is already ${current?.status ?? 'resolved'}`, { code: 'approval_already_resolved', details: { status: current?.status } });
    }
    let data: Record<string, unknown> = { approvalId, decision: input.decision, argsHash: current.argsHash, reason: input.reason, by: input.by };
    if (input.decision === 'edit') {
      const tool = this.#registry.resolve(state.inputs.profile, current.tool);
      const args = this.#policy.checkStep(state.inputs.profile, tool, input.args) as Record<string, unknown>;
      data = { ...data, args: toJsonData(args), argsHash: sha256Hex(canonicalJson(args)) };
    }
    const run = this.#activate(state);
    const at = this.#clock.now();
    try {
      if (current.deadline !== undefined && at >= current.deadline) {
        // Too late: the approval policy has already decided.
        await this.#append(run, [['approval_timeout', { approvalId, action: state.inputs.approval.onTimeout }, at]]);
        this.#active.delete(record.runId);
        throw new ConflictError(`approval ${approvalId} expired and was ${state.inputs.approval.onTimeout === 'approve' ? 'approved' : 'rejected'} by policy`, {
          code: 'approval_expired',
          details: { action: state.inputs.approval.onTimeout },
        });
      }
      await this.#append(run, [['approval_received', data, at]]);
    } catch (error) {
      this.#active.delete(record.runId);
      throw error;
    }
    if (!continueRun) {
      this.#active.delete(record.runId);
      return this.#outcome(run.state);
    }
    return this.#drive(run);
  }

  /** Cancel a run: a running one stops after its current call (whose signal is aborted); a paused one at once. */
  async cancel(runId: string, reason = 'cancelled'): Promise<RunOutcome> {
    const active = this.#active.get(runId);
    if (active) {
      active.cancelReason = reason;
      active.controller.abort(new CugarError(`run cancelled: ${reason}`, { code: 'cancelled', failureMode: 'USER' }));
      return this.#outcome(active.state);
    }
    const state = await this.#load(runId);
    if (TERMINAL.has(state.status)) throw new ConflictError(`run ${runId} already ${state.status}`, { code: 'run_finished' });
    const run = this.#activate(state);
    try {
      await this.#append(run, [['run_cancelled', { reason }]]);
    } finally {
      this.#active.delete(runId);
    }
    return this.#outcome(run.state);
  }

  /** Resume every paused run whose approval deadline has passed, so its timeout policy applies. */
  async sweepApprovals(): Promise<RunOutcome[]> {
    const now = this.#clock.now();
    const expired = (await this.store.listApprovals({ status: 'pending' })).filter((a) => a.deadline !== undefined && a.deadline <= now);
    const outcomes: RunOutcome[] = [];
    for (const approval of expired) {
      if (!this.#active.has(approval.runId)) outcomes.push(await this.resume(approval.runId));
    }
    return outcomes;
  }

  /** The outcome of a run as its journal stands. */
  async getRun(runId: string): Promise<RunOutcome> {
    const active = this.#active.get(runId);
    return this.#outcome(active ? active.state : await this.#load(runId));
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

  // ---------------------------------------------------------------- internals

  async #load(runId: string): Promise<RunState> {
    const events = await this.store.readJournal(runId);
    if (events.length === 0) throw new NotFoundError(`no run ${runId}`, { code: 'unknown_run', details: { runId } });
    return projectRun(events);
  }

  #activate(state: RunState): ActiveRun {
    if (this.#active.has(state.runId)) throw new ConflictError(`run ${state.runId} is already running here`, { code: 'run_active' });
    if (!this.#registry.hasProfile(state.inputs.profile)) throw new NotFoundError(`unknown profile "${state.inputs.profile}"`, { code: 'unknown_profile' });
    const random = createSeededRandom(state.inputs.seed);
    for (let i = 0; i < state.randomDraws; i++) random.next();
    const run: ActiveRun = { state, registry: this.#registry.sandbox(state.inputs.profile), random, controller: new AbortController() };
    this.#active.set(state.runId, run);
    return run;
  }

  /** Seal and append events atomically, then fold them into the state. */
  async #append(run: ActiveRun, entries: ReadonlyArray<Entry>, usage?: BudgetUsage): Promise<JournalEvent[]> {
    const { state } = run;
    const events: JournalEvent[] = [];
    let previous = state.head;
    for (const [type, data, at] of entries) {
      // Each event reads the clock exactly once (or takes the time its caller already read),
      // so a replay that feeds back recorded times reproduces every timestamp and duration.
      const event = sealEvent(previous, state.runId, type, at ?? this.#clock.now(), data);
      events.push(event);
      previous = event;
    }
    // Fold first so the summary and approvals written with the events are exact. If the write
    // fails the error ends this drive and the state is dropped (callers reload from the store),
    // so a state ahead of its journal is never used.
    const expectedHead = state.head;
    for (const event of events) applyEvent(state, event);
    const approvals = events
      .filter((e) => e.type === 'approval_requested' || e.type === 'approval_received' || e.type === 'approval_timeout')
      .map((e) => ({ ...state.approvals.get(e.data['approvalId'] as string)! }));
    try {
      await this.store.append({
        runId: state.runId,
        events,
        expectedHead,
        run: summarize(state),
        ...(approvals.length ? { approvals } : {}),
        ...(usage ? { profileUsage: { profile: state.inputs.profile, delta: usage } } : {}),
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

  async #drive(run: ActiveRun): Promise<RunOutcome> {
    const { state } = run;
    try {
      for (;;) {
        if (TERMINAL.has(state.status)) return this.#outcome(state);
        if (run.cancelReason !== undefined) {
          await this.#append(run, [['run_cancelled', { reason: run.cancelReason }]]);
          continue;
        }
        if (state.status === 'paused') {
          if (!(await this.#expireApproval(run))) return this.#outcome(state);
          continue;
        }
        switch (state.stage) {
          case 'initialize':
          case 'plan':
            await this.#plan(run);
            break;
          case 'route':
            await this.#route(run);
            break;
          case 'execute':
            await this.#executeNext(run);
            break;
          case 'aggregate':
          case 'complete':
            await this.#finish(run, state.stopReason ?? 'completed', state.error);
            break;
        }
      }
    } finally {
      this.#active.delete(state.runId);
    }
  }

  /** When a pending approval's deadline has passed (by the journal's latest time), apply the timeout policy. */
  async #expireApproval(run: ActiveRun): Promise<boolean> {
    const { state } = run;
    const approval = state.pendingApprovalId ? state.approvals.get(state.pendingApprovalId) : undefined;
    if (!approval || approval.deadline === undefined || state.updatedAt < approval.deadline) return false;
    await this.#append(run, [['approval_timeout', { approvalId: approval.approvalId, action: state.inputs.approval.onTimeout }]]);
    return true;
  }

  async #plan(run: ActiveRun, exclude: readonly string[] = [], reason?: string): Promise<void> {
    const { state } = run;
    const revision = state.plans.length;
    const planner = new Planner({ ids: { next: () => `${state.runId}:plan:${revision}` }, maxSteps: state.inputs.maxSteps, minSimilarity: this.#config.plannerMinSimilarity });
    const explicit = revision === 0 ? state.inputs.plan : undefined;
    const planned: Plan = explicit
      ? { planId: `${state.runId}:plan:0`, goal: state.inputs.goal, profile: state.inputs.profile, traceId: state.inputs.traceId, steps: explicit, candidates: [], source: 'pattern', stopReason: 'explicit_calls' }
      : planner.plan({
          goal: state.inputs.goal,
          profile: state.inputs.profile,
          registry: run.registry,
          traceId: state.inputs.traceId,
          runId: state.runId,
          ...(state.inputs.preferences ? { preferences: state.inputs.preferences } : {}),
          exclude,
        });
    const plan: Plan = toJsonData({ ...planned, steps: reviseSteps(planned.steps, revision) });
    const entries: Entry[] = [];
    if (revision > 0) entries.push(['replanned', { revision, excluded: [...exclude], reason: reason ?? 'step failed' }]);
    if (state.stage !== 'plan') entries.push(['stage', { stage: 'plan' }]);
    entries.push(['plan_created', { revision, plan }]);
    let stage: PlanStage = 'CREATED';
    const to = (next: PlanStage) => {
      transitionPlan(stage, next);
      entries.push(['plan_transition', { planId: plan.planId, from: stage, to: next }]);
      stage = next;
    };
    if (plan.steps.length === 0) {
      await this.#append(run, entries);
      await this.#finish(run, plan.stopReason, { name: 'NoRelevantToolError', code: 'no_relevant_tool', message: `no tool of profile "${state.inputs.profile}" is relevant to the goal`, failureMode: 'USER', retryable: false });
      return;
    }
    // Validation: every step names a tool of the profile that the profile's policy allows.
    for (const step of plan.steps) {
      try {
        this.#policy.checkTool(state.inputs.profile, run.registry.resolve(state.inputs.profile, step.tool));
      } catch (thrown) {
        to('FAILED');
        await this.#append(run, entries);
        await this.#finish(run, 'plan_invalid', toCugarError(thrown).toJSON());
        return;
      }
    }
    to('VALIDATED');
    entries.push(['stage', { stage: 'route' }]);
    await this.#append(run, entries);
  }

  async #route(run: ActiveRun): Promise<void> {
    const { state } = run;
    const entries: Entry[] = [];
    for (const step of state.steps) {
      if (step.status === 'completed' || step.worker !== undefined) continue;
      const tool = run.registry.resolve(state.inputs.profile, step.tool);
      try {
        const decision = this.coordinator.route(step.stepId, tool);
        entries.push(['route_decision', { stepId: step.stepId, worker: decision.worker, policy: decision.policy, reason: decision.reason }]);
      } catch (thrown) {
        const error = toCugarError(thrown);
        entries.push(['tool_call_error', { stepId: step.stepId, attempt: step.attempt, error: error.toJSON(), retryable: false, final: true }]);
        await this.#append(run, entries);
        return;
      }
    }
    entries.push(['stage', { stage: 'execute' }]);
    entries.push(['plan_transition', { planId: state.plans.at(-1)!.planId, from: state.planStage, to: 'EXECUTING' }]);
    transitionPlan(state.planStage, 'EXECUTING');
    await this.#append(run, entries);
  }

  async #executeNext(run: ActiveRun): Promise<void> {
    const { state } = run;
    const step = nextStep(state);
    if (!step) return this.#finish(run, 'completed');
    if (step.worker === undefined) {
      await this.#append(run, [['stage', { stage: 'route' }]]);
      return;
    }
    if (step.status === 'failed') return this.#afterFinalFailure(run, step);
    const executed = step.attempt === 0 ? state.steps.reduce((n, s) => n + (s.attempt > 0 ? 1 : 0), 0) : 0;
    if (step.attempt === 0 && executed >= state.inputs.maxSteps) {
      return this.#finish(run, 'max_steps', { name: 'MaxStepsError', code: 'max_steps', message: `stopped after ${executed} steps (the limit)`, failureMode: 'AGENT', retryable: false });
    }
    const tool = run.registry.resolve(state.inputs.profile, step.tool);

    let input: Record<string, unknown>;
    try {
      const resolved = hasReferences(step.input) ? resolveReferences(step.input, outputsOf(state)) : step.input;
      input = toJsonData(this.#policy.checkStep(state.inputs.profile, tool, resolved));
    } catch (thrown) {
      const error = toCugarError(thrown, { code: 'invalid_input', failureMode: 'USER' });
      await this.#append(run, [['tool_call_error', { stepId: step.stepId, attempt: step.attempt, error: error.toJSON(), retryable: false, final: true }]]);
      return;
    }
    const argsHash = sha256Hex(canonicalJson(input));

    // A non-idempotent step that started without a recorded outcome may have had its effect:
    // only a human may let it run again.
    const unknownOutcome = step.status === 'started' && !tool.idempotent;
    const needsApproval = unknownOutcome || tool.requiresApproval || this.#approval.requires?.({ tool, input, profile: state.inputs.profile }) === true;
    if (needsApproval && (unknownOutcome || !step.approvedArgs.includes(argsHash))) {
      const approvalId = `${state.runId}:${step.stepId}:${state.head.seq + 1}`;
      const timeoutMs = state.inputs.approval.timeoutMs;
      await this.#append(run, [
        [
          'approval_requested',
          {
            approvalId,
            stepId: step.stepId,
            tool: tool.name,
            args: input,
            argsHash,
            reason: unknownOutcome ? 'unknown_outcome: the call started but its result was never recorded' : 'tool requires approval',
            ...(timeoutMs !== undefined ? { deadline: state.updatedAt + timeoutMs } : {}),
          },
        ],
        ['run_paused', { reason: 'awaiting_approval', approvalId }],
      ]);
      return;
    }

    const reserved: BudgetUsage = { cost: tool.cost, calls: 1, tokens: tool.tokens };
    const entries: Entry[] = [];
    const runCheck = checkReservation(state.inputs.budget, state.usage, reserved);
    let profileUsedBefore: BudgetUsage | undefined;
    let profileCheck = { exceeded: [] as string[], warnings: [] as string[] };
    if (state.inputs.profileBudget) {
      profileUsedBefore = await this.#readProfileUsage(state.inputs.profile, state.runId);
      profileCheck = checkReservation(state.inputs.profileBudget, profileUsedBefore, reserved);
    }
    const exceeded = runCheck.exceeded.length ? ('run' as const) : profileCheck.exceeded.length ? ('profile' as const) : undefined;
    if (exceeded) {
      const error = budgetExceededError(exceeded, exceeded === 'run' ? runCheck.exceeded : profileCheck.exceeded);
      await this.#append(run, [['budget_exceeded', { stepId: step.stepId, scope: exceeded, usage: exceeded === 'run' ? state.usage : profileUsedBefore, reserved, error: error.toJSON(), ...(profileUsedBefore ? { profileUsedBefore } : {}) }]]);
      return;
    }
    if (runCheck.warnings.length) entries.push(['budget_warning', { scope: 'run', dimensions: runCheck.warnings, usage: addUsage(state.usage, reserved), budget: state.inputs.budget }]);
    if (profileCheck.warnings.length) entries.push(['budget_warning', { scope: 'profile', dimensions: profileCheck.warnings, usage: addUsage(profileUsedBefore!, reserved), budget: state.inputs.profileBudget }]);

    const rerun = step.status === 'started';
    const attempt = rerun ? step.attempt : step.nextAttempt;
    const idempotencyKey = `${state.runId}:${step.stepId}`;
    entries.push([
      'tool_call_start',
      {
        stepId: step.stepId,
        index: step.index,
        tool: tool.name,
        input,
        argsHash,
        attempt,
        idempotencyKey,
        worker: step.worker,
        reserved,
        ...(profileUsedBefore ? { profileUsedBefore } : {}),
        ...(rerun ? { rerun: true } : {}),
      },
    ]);
    const [start] = (await this.#append(run, entries, reserved)).slice(-1);

    let output: unknown;
    let failure: CugarError | undefined;
    try {
      const raw = await this.#invoke(run, step, tool, input, { attempt, idempotencyKey });
      output = toJsonData(raw === undefined ? null : raw);
    } catch (thrown) {
      failure = toCugarError(thrown, { code: 'tool_failed', failureMode: 'AGENT' });
    }
    // Durations come from journal times, so replay reproduces them exactly.
    const finishedAt = this.#clock.now();
    const durationMs = Math.max(0, finishedAt - start!.at);

    if (failure) {
      const retry = run.cancelReason === undefined && this.#retry.shouldRetry(failure, attempt) && attempt < state.inputs.retry.maxAttempts;
      const errorEntries: Entry[] = [
        ['tool_call_error', { stepId: step.stepId, attempt, error: failure.toJSON(), retryable: retry, final: !retry, durationMs }, finishedAt],
      ];
      let delay = 0;
      if (retry) {
        const { delayMs, jitter } = createRetryPolicy(state.inputs.retry).delay(attempt, run.random);
        delay = delayMs;
        errorEntries.push(['retry_scheduled', { stepId: step.stepId, attempt: attempt + 1, delayMs, jitter }]);
      }
      await this.#append(run, errorEntries);
      if (delay > 0) await this.#sleep(delay, run.controller.signal);
      return;
    }

    const previous = lastCompleted(state, step);
    const health = this.#health.score({
      durationMs,
      expectedLatencyMs: tool.latency,
      output,
      repeats: state.calls.get(`${tool.name}:${argsHash}`) ?? 0,
      sameOutputAsPrevious: previous !== undefined && canonicalJson(previous.output) === canonicalJson(output),
    });
    const done: Entry[] = [['tool_call_complete', { stepId: step.stepId, attempt, argsHash, output, durationMs, health }, finishedAt]];
    await this.#append(run, done);
    if (health.action === 'reflect') {
      await this.#append(run, [['reflection', { trigger: 'low_health', score: health.score, summary: this.#reflector.summarize(state, state.updatedAt, `health ${health.score} after ${step.stepId}`) }]]);
    } else if (health.action === 'stop') {
      await this.#finish(run, 'repetition_detected', { name: 'RepetitionError', code: 'repetition_detected', message: `the same call to ${tool.name} repeated ${this.#autonomy.maxRepeats} times`, failureMode: 'AGENT', retryable: false });
    }
  }

  async #invoke(run: ActiveRun, step: StepState, tool: ToolDefinition, input: unknown, call: { attempt: number; idempotencyKey: string }): Promise<unknown> {
    const { state } = run;
    const controller = new AbortController();
    const onAbort = () => controller.abort(run.controller.signal.reason);
    run.controller.signal.addEventListener('abort', onAbort, { once: true });
    const timeoutMs = state.inputs.stepTimeoutMs;
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const work = this.coordinator.run({ worker: step.worker!, policy: 'recorded', reason: '' }, tool, input, {
        profile: state.inputs.profile,
        traceId: state.inputs.traceId,
        runId: state.runId,
        stepIndex: step.index,
        signal: controller.signal,
        idempotencyKey: call.idempotencyKey,
        attempt: call.attempt,
      });
      if (timeoutMs === undefined) return await work;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          const error = new ResourceError(`${tool.name} timed out after ${timeoutMs} ms`, { code: 'timeout' });
          controller.abort(error);
          reject(error);
        }, timeoutMs);
      });
      return await Promise.race([work, timeout]);
    } finally {
      if (timer !== undefined) clearTimeout(timer);
      run.controller.signal.removeEventListener('abort', onAbort);
    }
  }

  async #afterFinalFailure(run: ActiveRun, step: StepState): Promise<void> {
    const { state } = run;
    const error = step.error ?? { name: 'CugarError', code: 'step_failed', message: `${step.stepId} failed`, failureMode: 'AGENT', retryable: false };
    const mode = failureModeOf(error);
    const autonomy = state.inputs.autonomy;
    if (mode === 'AGENT' && autonomy.replan && state.replans < autonomy.maxReplans) {
      const failedTools = [...new Set(state.steps.filter((s) => s.status === 'failed').map((s) => s.tool))];
      return this.#plan(run, failedTools, `${step.stepId} (${step.tool}) failed: ${error.code}`);
    }
    return this.#finish(run, error.code === 'approval_rejected' ? 'approval_rejected' : 'failed', error);
  }

  /** Aggregate and complete: reflection, plan terminal state and `run_completed`, in one atomic batch. */
  async #finish(run: ActiveRun, stopReason: string, error?: ErrorInfo): Promise<void> {
    const { state } = run;
    const success = error === undefined;
    const entries: Entry[] = [];
    if (state.stage !== 'aggregate' && state.stage !== 'complete') entries.push(['stage', { stage: 'aggregate' }]);
    const outputs = outputsOf(state);
    const summaryState = { ...state, stopReason };
    entries.push(['reflection', { trigger: 'run_end', summary: this.#reflector.summarize(summaryState, state.updatedAt, success ? 'completed' : 'stopped') }]);
    entries.push(['stage', { stage: 'complete' }]);
    const target: PlanStage = success ? 'COMPLETED' : 'FAILED';
    if (state.plans.length && state.planStage !== target && transitionAllowed(state.planStage, target)) {
      entries.push(['plan_transition', { planId: state.plans.at(-1)!.planId, from: state.planStage, to: target }]);
    }
    const completed = state.steps.filter((s) => s.status === 'completed');
    const partial = success ? undefined : partialResult(completed.map((s) => s.stepId), completed.at(-1)?.output ?? null, failureModeOf(error));
    entries.push(['run_completed', { success, stopReason, outputs, ...(error ? { error } : {}), ...(partial ? { partial } : {}) }]);
    await this.#append(run, entries);
  }

  #outcome(state: RunState): RunOutcome {
    const completed = state.steps.filter((s) => s.status === 'completed');
    const success = state.status === 'completed';
    const pending = state.pendingApprovalId ? state.approvals.get(state.pendingApprovalId) : undefined;
    return {
      runId: state.runId,
      traceId: state.inputs.traceId,
      profile: state.inputs.profile,
      status: state.status,
      success,
      outputs: outputsOf(state),
      ...(state.stopReason ? { stopReason: state.stopReason } : {}),
      ...(state.error ? { error: state.error } : {}),
      ...(state.status === 'failed' ? { partial: partialResult(completed.map((s) => s.stepId), completed.at(-1)?.output ?? null, failureModeOf(state.error)) } : {}),
      ...(pending ? { pendingApproval: structuredClone(pending) } : {}),
      usage: { ...state.usage },
      budget: { run: { ...state.inputs.budget }, ...(state.inputs.profileBudget ? { profile: { ...state.inputs.profileBudget } } : {}) },
      head: { ...state.head },
    };
  }
}

function transitionAllowed(from: PlanStage, to: PlanStage): boolean {
  try {
    return transitionPlan(from, to);
  } catch {
    return false;
  }
}

/** The first step that has not completed. Steps complete in order, so the search resumes where it last stopped (reset by every new plan). */
function nextStep(state: RunState): StepState | undefined {
  const steps = state.steps;
  let i = state.cursor;
  while (i < steps.length && steps[i]!.status === 'completed') i++;
  state.cursor = i;
  return steps[i];
}

/** The completed step just before `step`, if any. */
function lastCompleted(state: RunState, step: StepState): StepState | undefined {
  const index = state.steps.indexOf(step);
  for (let i = index - 1; i >= 0; i--) if (state.steps[i]!.status === 'completed') return state.steps[i];
  return undefined;
}

function hasReferences(input: Record<string, unknown>): boolean {
  for (const key in input) if (isStepReference(input[key])) return true;
  return false;
}

export { ZERO_USAGE };
