import * as z from 'zod';
import { ValidationError, errorFromInfo } from '../errors.ts';
import { canonicalJson } from '../journal/canonicalJson.ts';
import { verifyJournal } from '../journal/journal.ts';
import { deriveEvent, derivedFromOf, type DerivedFrom } from '../journal/redactedJournal.ts';
import { ZERO_USAGE } from '../planning/planningAuthority.ts';
import { RecordedPlanner } from '../planning/recordedPlanner.ts';
import type { Clock } from '../ports.ts';
import { Worker } from '../routing/coordinator.ts';
import type { RoutingPolicy } from '../routing/routingAuthority.ts';
import type { BudgetUsage } from '../schema/budget.ts';
import type { JournalEvent } from '../schema/journalEvent.ts';
import { PolicyEnforcer } from '../policy/policyEnforcer.ts';
import { ToolRegistry } from '../tools/toolRegistry.ts';
import type { ToolVersionSource } from '../tools/versions/toolVersionSource.ts';
import { Orchestrator } from './orchestrator.ts';
import { InMemoryStore } from '../store/inMemoryStore.ts';
import type { AppendBatch } from '../store/store.ts';
import { recordedMemory, recordedModels } from './recordedModel.ts';
import { registerDelegateTool } from './delegation.ts';
import { subRunWaiting } from './subRunWait.ts';
import { registerProposeTool } from '../tools/versions/proposeTool.ts';

/** Where a replay first differed from the recording. */
export interface Divergence {
  seq: number;
  expected: JournalEvent | undefined;
  actual: JournalEvent | undefined;
}

/** What {@link replay} found. */
export type ReplayResult =
  { ok: true; events: number; head: { seq: number; hash: string } | undefined } | { ok: false; events: number; divergence: Divergence };

class Interrupt extends Error {}
class Diverged extends Error {
  constructor(readonly divergence: Divergence) {
    super(`replay diverged at seq ${divergence.seq}`);
  }
}
class Exhausted extends Error {}

/** Feeds the recorded times back, one per event, rewinding when the recording was interrupted. */
class ReplayClock implements Clock {
  cursor = 0;
  constructor(private readonly recorded: readonly JournalEvent[]) {}
  now(): number {
    const event = this.recorded[this.cursor++];
    // Past the end, time stands still at the last recorded instant.
    return event ? event.at : (this.recorded.at(-1)?.at ?? 0);
  }
}

/** A store that checks every batch against the recording before keeping it. */
class ReplayStore extends InMemoryStore {
  written = 0;
  /** A derived (redacted) recording is compared with the replay derived the same way, event by event. */
  readonly #derived: JournalEvent[] = [];
  constructor(
    private readonly recorded: readonly JournalEvent[],
    private readonly clock: ReplayClock,
    private readonly derivedFrom?: DerivedFrom,
  ) {
    super();
  }

  override async append(batch: AppendBatch): Promise<void> {
    const first = batch.events[0]!;
    // The recording ends here (it was exported mid-run): everything before matched.
    if (first.seq >= this.recorded.length) throw new Exhausted();
    const expected = this.recorded[first.seq];
    // The recording resumed here: the original process stopped before writing this batch.
    if ((expected?.type === 'run_resumed' || expected?.type === 'run_cancelled') && first.type !== expected.type) {
      this.clock.cursor = first.seq;
      throw new Interrupt();
    }
    for (const event of batch.events) {
      const want = this.recorded[event.seq];
      const actual = this.derivedFrom ? (this.#derived[event.seq] = deriveEvent(this.#derived[event.seq - 1], event, this.derivedFrom)) : event;
      if (!want || want.hash !== actual.hash) throw new Diverged({ seq: event.seq, expected: want, actual });
    }
    await super.append(batch);
    this.written = batch.events.at(-1)!.seq + 1;
  }
}

/** Route every step to the worker the recording chose. */
class RecordedRouting implements RoutingPolicy {
  readonly name = 'recorded';
  constructor(private readonly decisions: ReadonlyMap<string, { worker: string; policy: string; reason: string }>) {}
  select(request: { stepId: string }) {
    const decision = this.decisions.get(request.stepId);
    if (!decision) throw new Exhausted();
    return decision;
  }
}

const ReplayOptionsSchema = z.object({
  registry: z.instanceof(ToolRegistry),
  verifyTools: z.boolean().default(false),
  policy: z.instanceof(PolicyEnforcer).optional(),
  toolVersions: z.custom<ToolVersionSource>((value) => typeof value === 'object' && value !== null && 'spec' in value).optional(),
});

/** Options of {@link replay}. */
export interface ReplayOptions {
  /**
   * Run idempotent tools for real instead of feeding back their recorded results, so a tool
   * whose behaviour changed since the recording shows up as a divergence at its
   * `tool_call_complete`. Default false: every result comes from the recording.
   */
  verifyTools?: boolean;
  /**
   * The profile policies the run was recorded under (a profile allowed the network, say).
   * Default: the default policy, which refuses tools that declare `allowNetwork`.
   */
  policy?: PolicyEnforcer;
  /** Where the tool versions the run recorded (`toolVersions` in its inputs) are found; their metadata and schemas are replayed, never their code. */
  toolVersions?: ToolVersionSource;
}

/**
 * Re-run the orchestrator against a recorded journal: the same inputs, the recorded times,
 * routing, tool results, model answers, approvals, resumptions and cancellations, with the tools' real
 * schemas and policies from `registry`. Every event the orchestrator produces must hash the
 * same as the recording; the first one that does not is reported with both events.
 *
 * @example
 * const result = await replay(await store.readJournal(runId), registry);
 * if (!result.ok) console.log(result.divergence.seq);
 */
export async function replay(journal: readonly JournalEvent[], registry: ToolRegistry, options: ReplayOptions = {}): Promise<ReplayResult> {
  const { verifyTools, policy, toolVersions } = parseOptions(registry, options);
  const verified = verifyJournal(journal);
  if (!verified.ok)
    throw new ValidationError(`the journal does not verify at seq ${verified.seq}: ${verified.reason}`, {
      code: 'journal_invalid',
      details: { seq: verified.seq },
    });
  const first = journal[0];
  if (!first) return { ok: true, events: 0, head: undefined };
  if (first.type !== 'stage' || !first.data.inputs)
    throw new ValidationError('the journal does not start with a run', { code: 'journal_invalid', details: { seq: 0 } });
  const inputs = first.data.inputs;
  const runId = first.runId;

  const decisions = new Map<string, { worker: string; policy: string; reason: string }>();
  for (const event of journal) {
    if (event.type === 'route_decision') decisions.set(event.data.stepId, { worker: event.data.worker, policy: event.data.policy, reason: event.data.reason });
  }
  const workerIds = [...new Set([...decisions.values()].map((d) => d.worker))];

  const clock = new ReplayClock(journal);
  // A redacted export replays too: the replay is redacted and re-sealed as the export was, and
  // must hash the same. It reproduces only where the redacted inputs are the inputs the run had.
  const store = new ReplayStore(journal, clock, derivedFromOf(journal));
  // Tools keep their schemas and metadata; handlers return what the recording says they returned.
  const recordedRegistry = new ToolRegistry();
  const recorded = (_input: unknown, context: { attempt: number; runId: string; idempotencyKey: string }) => {
    const stepId = context.idempotencyKey.slice(runId.length + 1);
    // The call's sub-run waited for a person: the run paused here, and the call ran again later.
    const next = journal[store.written];
    if (next?.type === 'run_paused' && next.data.waitingFor) throw subRunWaiting(next.data.waitingFor.runId, next.data.waitingFor.approvalId);
    const result = journal.find(
      (e): e is JournalEvent & { type: 'tool_call_complete' | 'tool_call_error' } =>
        e.seq >= store.written &&
        (e.type === 'tool_call_complete' || e.type === 'tool_call_error') &&
        e.data.stepId === stepId &&
        e.data.attempt === context.attempt,
    );
    if (!result) throw new Exhausted();
    if (result.type === 'tool_call_error') throw errorFromInfo(result.data.error);
    return result.data.output;
  };
  // The exact tool versions the run recorded, whatever is active now: their code is never run again.
  for (const [name, hash] of Object.entries(inputs.toolVersions ?? {})) {
    const spec = toolVersions?.spec(inputs.profile, name, hash);
    if (!spec) throw new ValidationError(`the run uses tool version ${name}@${hash}, which this host does not have`, { code: 'unknown_tool_version' });
    recordedRegistry.register(inputs.profile, name, { ...spec, handler: recorded });
  }
  for (const tool of registry.definitions(inputs.profile)) {
    if (recordedRegistry.has(inputs.profile, tool.name)) continue;
    recordedRegistry.register(inputs.profile, tool.name, { ...tool, handler: verifyTools && tool.idempotent ? tool.handler : recorded });
  }
  // A run that could delegate replays its delegations from the recording: no sub-run is started.
  registerDelegateTool(recordedRegistry, inputs, recorded);
  // Proposals too: a replay proposes nothing.
  registerProposeTool(recordedRegistry, inputs, recorded);
  const profileUsage = async (): Promise<BudgetUsage> => {
    for (const e of journal) {
      if (e.seq >= store.written && (e.type === 'tool_call_start' || e.type === 'budget_exceeded') && e.data.profileUsedBefore !== undefined)
        return e.data.profileUsedBefore;
    }
    return { ...ZERO_USAGE };
  };
  const orchestrator = new Orchestrator({
    registry: recordedRegistry,
    store,
    clock,
    workers: (workerIds.length ? workerIds : ['local']).map((id) => new Worker({ id })),
    routing: new RecordedRouting(decisions),
    ...(policy ? { policy } : {}),
    retry: inputs.retry,
    approval: { onTimeout: inputs.approval.onTimeout, ...(inputs.approval.timeoutMs !== undefined ? { timeoutMs: inputs.approval.timeoutMs } : {}) },
    autonomy: inputs.autonomy,
    sleep: async () => undefined,
    readProfileUsage: profileUsage,
    recordedRetry: (stepId, attempt) =>
      journal.find(
        (e): e is JournalEvent & { type: 'tool_call_error' } =>
          e.seq >= store.written && e.type === 'tool_call_error' && e.data.stepId === stepId && e.data.attempt === attempt,
      )?.data.retryable,
    ...(inputs.stepTimeoutMs !== undefined ? { stepTimeoutMs: inputs.stepTimeoutMs } : {}),
    // Model answers come from the recording: no provider is contacted.
    ...(inputs.agent || inputs.memory?.summaryModel
      ? {
          models: recordedModels(
            journal,
            inputs.agent?.models ?? [inputs.memory!.summaryModel!],
            () => store.written,
            () => new Exhausted(),
          ),
        }
      : {}),
    // What was recalled comes from the recording too; nothing is written.
    ...(inputs.agent || inputs.memory ? { memory: recordedMemory(journal) } : {}),
    config: { plannerMaxSteps: inputs.maxSteps },
    // Plans come from the recording too: a planner that has changed since does not make the run diverge.
    planner: new RecordedPlanner(journal, { ids: { next: (prefix = 'id') => `${prefix}_replay` }, maxSteps: inputs.maxSteps }),
  });

  const settle = async (action: () => Promise<unknown>): Promise<ReplayResult | undefined> => {
    try {
      await action();
    } catch (error) {
      if (error instanceof Diverged) return { ok: false, events: store.written, divergence: error.divergence };
      if (error instanceof Exhausted) return { ok: true, events: store.written, head: headOf(journal, store.written) };
      if (!(error instanceof Interrupt) && !isExpectedConflict(error)) throw error;
    }
    return undefined;
  };

  let outcome = await settle(() => orchestrator.startRecorded(runId, inputs));
  // Feed the recorded external inputs (approvals, resumptions, cancellations) until the recording ends.
  for (let guard = 0; outcome === undefined && guard < journal.length + 1; guard++) {
    if (store.written >= journal.length) return { ok: true, events: store.written, head: headOf(journal, store.written) };
    const next = journal[store.written]!;
    const before = store.written;
    switch (next.type) {
      case 'approval_received': {
        const { approvalId, decision, args, reason, by, principal } = next.data;
        outcome = await settle(() =>
          orchestrator.resolveApproval(approvalId, { decision, ...(decision === 'edit' ? { args } : {}), reason, by, ...(principal ? { principal } : {}) }),
        );
        break;
      }
      case 'approval_timeout': {
        const { approvalId } = next.data;
        outcome = await settle(() => orchestrator.resolveApproval(approvalId, { decision: 'approve', reason: '', by: 'replay' }));
        break;
      }
      case 'run_resumed':
        outcome = await settle(() => orchestrator.resume(runId));
        break;
      case 'run_cancelled':
        outcome = await settle(() => orchestrator.cancel(runId, next.data.reason));
        break;
      default: {
        // The orchestrator stopped but the recording goes on with something it would have produced itself.
        const state = await store.readJournal(runId);
        return { ok: false, events: store.written, divergence: { seq: store.written, expected: next, actual: state[store.written] } };
      }
    }
    if (outcome === undefined && store.written === before) {
      return { ok: false, events: store.written, divergence: { seq: store.written, expected: next, actual: undefined } };
    }
  }
  return outcome ?? { ok: true, events: store.written, head: headOf(journal, store.written) };
}

function parseOptions(registry: unknown, options: ReplayOptions): z.output<typeof ReplayOptionsSchema> {
  const parsed = ReplayOptionsSchema.safeParse({ registry, ...options });
  if (!parsed.success) throw new ValidationError('replay needs the ToolRegistry the run used', { code: 'invalid_replay_options' });
  return parsed.data;
}

function headOf(journal: readonly JournalEvent[], written: number): { seq: number; hash: string } | undefined {
  const last = journal[written - 1];
  return last ? { seq: last.seq, hash: last.hash } : undefined;
}

function isExpectedConflict(error: unknown): boolean {
  // resolveApproval reports an expired approval after writing its timeout: that is the recording too.
  return typeof error === 'object' && error !== null && (error as { code?: string }).code === 'approval_expired';
}

/** Whether two journals are identical event for event (same hashes). */
export function sameJournal(a: readonly JournalEvent[], b: readonly JournalEvent[]): boolean {
  return a.length === b.length && a.every((event, i) => event.hash === b[i]!.hash && canonicalJson(event) === canonicalJson(b[i]));
}
