import { ResourceError, toCugarError } from '../errors.ts';
import { canonicalJson } from '../journal/canonicalJson.ts';
import { sha256Hex } from '../journal/sha256.ts';
import type { ModelPrompt, ModelProvider } from '../models/model.ts';
import { callModel, type ModelAnswer } from '../models/modelCall.ts';
import { classifyModelError } from '../models/modelErrors.ts';
import { redact } from '../policy/redaction.ts';
import type { Clock } from '../ports.ts';
import type { BudgetUsage } from '../schema/budget.ts';
import type { JournalEvent } from '../schema/journalEvent.ts';
import { MAX_REFLECTION_CHARS } from './runReflection.ts';
import type { ActiveRun } from './runSession.ts';
import { entry, type Entry } from './stages/entry.ts';

/** How long the reflection call may take when the run has no agent settings of its own. */
export const REFLECT_TIMEOUT_MS = 60_000;

/** Most output tokens a reflection asks for. */
export const REFLECT_MAX_OUTPUT_TOKENS = 400;

/** What the reflection call needs from the run session. */
export interface ReflectPorts {
  clock: Clock;
  models?: ModelProvider;
  append(run: ActiveRun, entries: ReadonlyArray<Entry>, usage?: BudgetUsage): Promise<JournalEvent[]>;
}

/** The question the reflection model is asked: the journal's own account of the run, to be turned into a note for later runs. */
export function reflectPrompt(profile: string, journalSummary: string): ModelPrompt {
  return [
    {
      role: 'system',
      content: [
        `You keep the notes of the CUGAr profile "${profile}" for its later runs.`,
        'From the account of a finished run, write a short note in plain text (at most five sentences):',
        'what was asked, what worked, what failed and why, and what to do differently next time.',
        'Name tools exactly as the account does. Do not invent results the account does not give.',
      ].join(' '),
    },
    { role: 'user', content: [{ type: 'text', text: journalSummary }] },
  ];
}

/**
 * The reflection of a run with `summaryModel`, written by that model as a journaled call
 * (`model_call_start` / `model_call_complete` or `model_call_error` with purpose `reflect`), so
 * replay feeds the recorded answer back. Falls back to `journalSummary` when no model answers
 * (none configured, a failure, an empty answer). A run that already has its reflection's answer
 * in the journal (a process that died before completing) uses it without calling again.
 */
export async function reflectWithModel(run: ActiveRun, ports: ReflectPorts, model: string, journalSummary: string): Promise<string> {
  const { state } = run;
  if (state.reflectAnswer !== undefined) return state.reflectAnswer || journalSummary;
  if (state.reflectFailed) return journalSummary;
  const prompt = reflectPrompt(state.inputs.profile, journalSummary);
  const tuning = { temperature: 0, maxOutputTokens: REFLECT_MAX_OUTPUT_TOKENS };
  const requestHash = sha256Hex(canonicalJson({ model, messages: prompt.map((m) => sha256Hex(canonicalJson(m))), tools: [], ...tuning }));
  const attempt = state.reflectAttempts + 1;
  const ref = { callId: 'reflect', turn: 1, model, attempt, purpose: 'reflect' as const };
  const record = { messages: redact(prompt) as unknown[], tools: [], ...tuning };
  const [start] = await ports.append(run, [
    entry('model_call_start', { ...ref, requestHash, request: record, ...(attempt > 1 ? { rerun: true as const } : {}) }),
  ]);
  let answer: ModelAnswer | undefined;
  let thrown: unknown;
  try {
    answer = await invoke(run, ports.models, model, prompt, tuning);
  } catch (error) {
    thrown = error;
  }
  const finishedAt = ports.clock.now();
  const durationMs = Math.max(0, finishedAt - start!.at);
  if (!answer) {
    const error = classifyModelError(thrown, model, finishedAt).toJSON();
    await ports.append(run, [entry('model_call_error', { ...ref, error, next: 'stop', durationMs }, finishedAt)]);
    return journalSummary;
  }
  const price = state.inputs.agent?.prices?.[model];
  const cost = price ? (answer.usage.inputTokens * price.inputPerMillion + answer.usage.outputTokens * price.outputPerMillion) / 1e6 : 0;
  const text = answer.text.trim().slice(0, MAX_REFLECTION_CHARS);
  await ports.append(
    run,
    [
      entry(
        'model_call_complete',
        { ...ref, text, toolCalls: [], toolCallMode: 'native', finishReason: answer.finishReason, usage: answer.usage, cost, durationMs },
        finishedAt,
      ),
    ],
    { cost, calls: 0, tokens: answer.usage.totalTokens },
  );
  return text || journalSummary;
}

async function invoke(
  run: ActiveRun,
  models: ModelProvider | undefined,
  model: string,
  prompt: ModelPrompt,
  tuning: { temperature: number; maxOutputTokens: number },
): Promise<ModelAnswer> {
  if (!models) throw new ResourceError('no model is configured on this host', { code: 'model_not_configured', retryable: false });
  let instance;
  try {
    instance = models.model(model);
  } catch (thrown) {
    throw toCugarError(thrown, { code: 'model_not_configured', failureMode: 'SYSTEM' });
  }
  const timeoutMs = run.state.inputs.agent?.callTimeoutMs ?? REFLECT_TIMEOUT_MS;
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const error = new ResourceError(`${model} did not answer within ${timeoutMs} ms`, { code: 'model_timeout', details: { model } });
        controller.abort(error);
        reject(error);
      }, timeoutMs);
    });
    const work = callModel(instance, { prompt, ...tuning, abortSignal: controller.signal }, false);
    work.catch(() => undefined);
    return await Promise.race([work, timeout]);
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}
