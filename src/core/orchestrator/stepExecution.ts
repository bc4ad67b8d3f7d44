import { RepetitionError, ResourceError, ToolExecutionError, toCugarError } from '../errors.ts';
import type { CugarError } from '../errors.ts';
import { canonicalJson } from '../journal/canonicalJson.ts';
import { secretAccess, type Secrets } from '../policy/secrets.ts';
import type { Clock } from '../ports.ts';
import type { Coordinator } from '../routing/coordinator.ts';
import type { BudgetUsage } from '../schema/budget.ts';
import type { JournalEvent } from '../schema/journalEvent.ts';
import type { ToolDefinition } from '../tools/tool.ts';
import type { Reflector } from './autonomy.ts';
import type { ActiveRun } from './runSession.ts';
import type { StepState } from './runState.ts';
import { entry, type Entry, type Stop } from './stages/entry.ts';
import { afterFinalFailure } from './stages/finishStage.ts';
import { pauseForSubRun } from './subRunWait.ts';
import { settleFailure, settleSuccess } from './stages/settleCall.ts';
import { approvalGate, prepareInput, reserveCall, stepLimit, waveMembers } from './stages/stepGate.ts';

/** What executing steps needs from the session driving the run. */
export interface StepPorts {
  append(run: ActiveRun, entries: ReadonlyArray<Entry>, usage?: BudgetUsage): Promise<JournalEvent[]>;
  finish(run: ActiveRun, stop: Stop): Promise<void>;
  replan(run: ActiveRun, exclude: readonly string[], reason: string): Promise<void>;
  clock: Clock;
  coordinator: Coordinator;
  reflector: Reflector;
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  readProfileUsage: (profile: string, runId: string) => Promise<BudgetUsage>;
  recordedRetry?: (stepId: string, attempt: number) => boolean | undefined;
  secrets?: Secrets;
}

/** A step cleared to run: its durable start is appended. */
interface Cleared {
  step: StepState;
  tool: ToolDefinition;
  input: Record<string, unknown>;
  argsHash: string;
  attempt: number;
  idempotencyKey: string;
  startedAt: number;
}

/** What one call gave: its output (and canonical text) or its failure. */
type CallResult = { output: unknown; outputJson: string; failure?: undefined } | { failure: CugarError };

/**
 * Execute the run's next step (`step`) — or, in a run with `parallel` above 1, the next wave: the step
 * and the consecutive steps after it that may run beside it (see `waveMembers`), each cleared
 * and started in plan order, called at once on their routed workers, and settled in plan order.
 * Whatever order the calls finish in, the journal is the same.
 */
export async function executeNext(run: ActiveRun, step: StepState, ports: StepPorts): Promise<void> {
  const { state, context } = run;
  const first = await clear(run, step, ports, undefined);
  if (!first) return;
  const wave = [first];
  const parallel = state.agent ? 1 : (state.inputs.parallel ?? 1);
  if (parallel > 1 && first.tool.idempotent) {
    // Placed but not yet running: counted as load so the wave spreads over the workers.
    const placed = new Map<string, number>([[first.step.worker!, 1]]);
    for (const member of waveMembers(state, context, first.step, parallel - 1)) {
      const cleared = await clear(run, member, ports, placed);
      if (!cleared) break;
      wave.push(cleared);
      placed.set(member.worker!, (placed.get(member.worker!) ?? 0) + 1);
    }
  }
  const results = wave.length === 1 ? [await invokeCall(run, first, ports)] : await Promise.all(wave.map((call) => invokeCall(run, call, ports)));
  // Each call's finish time is read as it is settled, in plan order, so the clock is read in
  // journal order (a replay feeds recorded times back in that order). In a wave a call's
  // recorded duration therefore runs until the wave is settled.
  let delayMs = 0;
  const actions: Array<{ call: Cleared; score: number; action: string }> = [];
  for (let i = 0; i < wave.length; i++) {
    const call = wave[i]!;
    const result = results[i]!;
    const finishedAt = ports.clock.now();
    const timing = { finishedAt, durationMs: Math.max(0, finishedAt - call.startedAt) };
    if (result.failure) {
      // A delegated sub-run waits for a person: the run pauses with this call started, and re-runs it when the sub-run ends.
      const pause = pauseForSubRun(result.failure, finishedAt);
      if (pause) {
        await ports.append(run, [pause]);
        return;
      }
      const recorded = ports.recordedRetry?.(call.step.stepId, call.attempt);
      const settled = settleFailure(state, call.step, call.attempt, result.failure, timing, run.cancelReason !== undefined, run.random, recorded);
      await ports.append(run, settled.entries);
      delayMs = Math.max(delayMs, settled.delayMs);
      continue;
    }
    const settled = settleSuccess(state, call.step, call.tool, call.attempt, call.argsHash, result.output, timing, result.outputJson);
    await ports.append(run, settled.entries);
    if (settled.health.action !== 'continue') actions.push({ call, score: settled.health.score, action: settled.health.action });
  }
  if (delayMs > 0) await ports.sleep(delayMs, run.controller.signal);
  for (const { call, score, action } of actions) {
    if (action === 'reflect') {
      const summary = ports.reflector.summarize(state, state.updatedAt, `health ${score} after ${call.step.stepId}`);
      await ports.append(run, [entry('reflection', { trigger: 'low_health', score, summary })]);
    } else if (action === 'stop') {
      return ports.finish(run, { stopReason: 'repetition_detected', error: new RepetitionError(call.tool.name, state.inputs.autonomy.maxRepeats).toJSON() });
    }
  }
}

/**
 * Take `step` through routing (parallel runs route each step when it is ready, by live load and
 * `placed`), the step limit, input checks, the approval gate and the budget gate, and append its
 * durable start. A gate that decides otherwise appends its events and the turn ends (undefined).
 * A wave member (`placed` given) joins only if every gate lets it start: otherwise nothing more
 * is appended for it and it waits for its own turn.
 */
async function clear(run: ActiveRun, step: StepState, ports: StepPorts, placed: Map<string, number> | undefined): Promise<Cleared | undefined> {
  const { state, context } = run;
  const joining = placed !== undefined;
  if (step.worker === undefined) {
    if (!state.inputs.parallel || state.agent) {
      await ports.append(run, [entry('stage', { stage: 'route' })]);
      return undefined;
    }
    const tool = context.registry.resolve(state.inputs.profile, step.tool);
    let decision: ReturnType<Coordinator['route']>;
    try {
      decision = ports.coordinator.route(step.stepId, tool, placed);
    } catch (thrown) {
      if (!joining)
        await ports.append(run, [
          entry('tool_call_error', { stepId: step.stepId, attempt: step.attempt, error: toCugarError(thrown).toJSON(), retryable: false, final: true }),
        ]);
      return undefined;
    }
    await ports.append(run, [entry('route_decision', { stepId: step.stepId, worker: decision.worker, policy: decision.policy, reason: decision.reason })]);
  }
  if (step.status === 'failed') {
    if (joining) return undefined;
    const next = afterFinalFailure(state, step);
    await ('replan' in next ? ports.replan(run, next.replan.exclude, next.replan.reason) : ports.finish(run, next.stop));
    return undefined;
  }
  const limit = stepLimit(state, step);
  if (limit) {
    if (!joining) await ports.finish(run, limit);
    return undefined;
  }
  const tool = context.registry.resolve(state.inputs.profile, step.tool);
  if (joining && !tool.idempotent) return undefined;
  const prepared = prepareInput(state, step, tool, context);
  if (!prepared.ok) {
    if (!joining) await ports.append(run, prepared.entries);
    return undefined;
  }
  const { input, argsHash } = prepared;
  const approval = approvalGate(state, step, tool, input, argsHash, context);
  if (approval) {
    if (!joining) await ports.append(run, approval);
    return undefined;
  }
  const profileUsedBefore = state.inputs.profileBudget ? await ports.readProfileUsage(state.inputs.profile, state.runId) : undefined;
  const call = reserveCall(state, step, tool, input, argsHash, profileUsedBefore);
  if ('refused' in call) {
    if (!joining) await ports.append(run, call.refused);
    return undefined;
  }
  const [start] = (await ports.append(run, call.entries, call.reserved)).slice(-1);
  return { step, tool, input, argsHash, attempt: call.attempt, idempotencyKey: call.idempotencyKey, startedAt: start!.at };
}

/** Run one cleared call and check its result; never throws (a failure is a result). Durations come from journal times. */
async function invokeCall(run: ActiveRun, call: Cleared, ports: StepPorts): Promise<CallResult> {
  try {
    const raw = await invoke(run, call, ports);
    const outputJson = canonicalJson(raw === undefined ? null : raw);
    const output: unknown = JSON.parse(outputJson);
    // The tool's own check of its result: a result that fails it is a failed attempt.
    const verdict = call.tool.verify ? call.tool.verify(output, call.input) : true;
    if (verdict !== true)
      throw new ToolExecutionError(`the result of ${call.tool.name} failed its check: ${verdict}`, { code: 'verification_failed', retryable: true });
    return { output, outputJson };
  } catch (thrown) {
    return { failure: toCugarError(thrown, { code: 'tool_failed', failureMode: 'AGENT' }) };
  }
}

/** Run one call on its routed worker under the step timeout; the run's cancellation aborts it. */
async function invoke(run: ActiveRun, call: Cleared, ports: StepPorts): Promise<unknown> {
  const { state } = run;
  const { step, tool, input } = call;
  const timeoutMs = state.inputs.stepTimeoutMs;
  // Without a step timeout the run's own signal is the call's; with one, a controller of the
  // call's own lets the timeout abort this call without cancelling the run.
  const controller = timeoutMs === undefined ? undefined : new AbortController();
  const onAbort = () => controller?.abort(run.controller.signal.reason);
  if (controller) run.controller.signal.addEventListener('abort', onAbort, { once: true });
  const signal = controller ? controller.signal : run.controller.signal;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    // Secrets reach the handler by name only; its result and error are scrubbed of them before settling.
    const secrets = secretAccess(tool, ports.secrets);
    const work = secrets.guard(
      ports.coordinator.run({ worker: step.worker!, policy: 'recorded', reason: '' }, tool, input, {
        profile: state.inputs.profile,
        traceId: state.inputs.traceId,
        runId: state.runId,
        stepIndex: step.index,
        signal,
        idempotencyKey: call.idempotencyKey,
        attempt: call.attempt,
        secret: secrets.secret,
      }),
    );
    if (timeoutMs === undefined) return await work;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const error = new ResourceError(`${tool.name} timed out after ${timeoutMs} ms`, { code: 'timeout' });
        controller!.abort(error);
        reject(error);
      }, timeoutMs);
    });
    return await Promise.race([work, timeout]);
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    if (controller) run.controller.signal.removeEventListener('abort', onAbort);
  }
}
