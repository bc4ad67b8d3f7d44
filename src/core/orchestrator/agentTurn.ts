import { ResourceError, toCugarError, type CugarError } from '../errors.ts';
import type { ModelProvider } from '../models/model.ts';
import { callModel, type ModelAnswer } from '../models/modelCall.ts';
import { classifyModelError } from '../models/modelErrors.ts';
import type { Clock } from '../ports.ts';
import type { BudgetUsage } from '../schema/budget.ts';
import type { JournalEvent } from '../schema/journalEvent.ts';
import type { ActiveRun } from './runSession.ts';
import { agentStop, nextModelCall, settleAnswer, settleModelFailure } from './stages/agentStage.ts';
import { modelRequest } from './stages/agentPrompt.ts';
import { entry, type Entry, type Stop } from './stages/entry.ts';

/** What an agent turn needs from the run session that drives it. */
export interface AgentTurnPorts {
  clock: Clock;
  models?: ModelProvider;
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  append(run: ActiveRun, entries: ReadonlyArray<Entry>, usage?: BudgetUsage): Promise<JournalEvent[]>;
  finish(run: ActiveRun, stop: Stop): Promise<void>;
  /** Text deltas of streamed answers as they arrive (never journaled). */
  onDelta?: (runId: string, delta: string) => void;
}

/**
 * One turn of an agent run, driven by the run session: stop when the model has answered or a
 * limit is reached; otherwise journal `model_call_start` (durable before the request leaves),
 * call the model under the call timeout and the run's cancellation, and journal the answer or
 * the failure. A call whose answer was lost in a crash is re-issued as the next attempt.
 */
export async function agentTurn(run: ActiveRun, ports: AgentTurnPorts): Promise<void> {
  const { state } = run;
  const stop = agentStop(state);
  if (stop) return ports.finish(run, stop);
  const call = nextModelCall(state);
  const { callId, turn, model, attempt, rerun, purpose } = call;
  const request = modelRequest(state, run.context.registry, model, purpose);
  const ref = { callId, turn, model, attempt, ...(purpose ? { purpose } : {}) };
  const [start] = await ports.append(run, [
    entry('model_call_start', { ...ref, requestHash: request.requestHash, request: request.record, ...(rerun ? { rerun: true as const } : {}) }),
  ]);

  let answer: ModelAnswer | undefined;
  let thrown: unknown;
  try {
    answer = await invoke(run, ports, model, request);
  } catch (error) {
    thrown = error;
  }
  // The clock is read once per event (replay feeds recorded times back in that order).
  const finishedAt = ports.clock.now();
  const failure: CugarError | undefined = answer ? undefined : classifyModelError(thrown, model, finishedAt);
  const timing = { finishedAt, durationMs: Math.max(0, finishedAt - start!.at) };
  if (answer) {
    const settled = settleAnswer(state, run.context, ref, answer, timing);
    await ports.append(run, settled.entries, settled.usage);
    return;
  }
  const settled = settleModelFailure(state, ref, failure!, timing, run.cancelReason !== undefined, run.random);
  await ports.append(run, settled.entries);
  if (settled.delayMs > 0) await ports.sleep(settled.delayMs, run.controller.signal);
}

async function invoke(run: ActiveRun, ports: AgentTurnPorts, model: string, request: ReturnType<typeof modelRequest>): Promise<ModelAnswer> {
  const settings = run.state.inputs.agent!;
  if (!ports.models) throw new ResourceError('no model is configured on this host', { code: 'model_not_configured', retryable: false });
  let instance;
  try {
    instance = ports.models.model(model);
  } catch (thrown) {
    throw toCugarError(thrown, { code: 'model_not_configured', failureMode: 'SYSTEM' });
  }
  const controller = new AbortController();
  const onAbort = () => controller.abort(run.controller.signal.reason);
  run.controller.signal.addEventListener('abort', onAbort, { once: true });
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const error = new ResourceError(`${model} did not answer within ${settings.callTimeoutMs} ms`, { code: 'model_timeout', details: { model } });
        controller.abort(error);
        reject(error);
      }, settings.callTimeoutMs);
    });
    const onDelta = ports.onDelta;
    const work = callModel(
      instance,
      {
        prompt: request.prompt,
        ...(request.tools.length ? { tools: request.tools, toolChoice: { type: 'auto' as const } } : {}),
        ...(request.json ? { responseFormat: { type: 'json' as const } } : {}),
        ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
        ...(request.maxOutputTokens !== undefined ? { maxOutputTokens: request.maxOutputTokens } : {}),
        abortSignal: controller.signal,
      },
      settings.stream,
      onDelta ? (delta) => onDelta(run.state.runId, delta) : undefined,
    );
    // A call that loses the race to the timeout still settles later; nothing waits for it then.
    work.catch(() => undefined);
    return await Promise.race([work, timeout]);
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    run.controller.signal.removeEventListener('abort', onAbort);
  }
}
