import { ResourceError } from '../errors.ts';
import { ModelCallError } from './modelErrors.ts';
import type { ModelToolCall, ModelUsage } from '../schema/agent.ts';
import type { Model, ModelCallOptions, ModelContent, ModelProviderUsage } from './model.ts';

/** A model's answer, assembled and normalised for the journal. */
export interface ModelAnswer {
  text: string;
  toolCalls: ModelToolCall[];
  finishReason: string;
  usage: ModelUsage;
}

function count(value: number | undefined): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.round(value) : 0;
}

/** Provider usage with every unreported number as 0 (total falls back to input + output). */
export function normaliseUsage(usage: ModelProviderUsage | undefined): ModelUsage {
  const inputTokens = count(usage?.inputTokens);
  const outputTokens = count(usage?.outputTokens);
  return { inputTokens, outputTokens, totalTokens: count(usage?.totalTokens) || inputTokens + outputTokens };
}

/** Tool-call arguments: the parsed JSON, or the raw text when it is not JSON (the engine then rejects the call). */
export function parseToolInput(input: string): unknown {
  if (input.trim() === '') return {};
  try {
    return JSON.parse(input) as unknown;
  } catch {
    return input;
  }
}

function fromContent(content: readonly ModelContent[], finishReason: string, usage: ModelProviderUsage | undefined): ModelAnswer {
  let text = '';
  const toolCalls: ModelToolCall[] = [];
  for (const part of content) {
    if (part.type === 'text') text += part.text;
    else if (part.type === 'tool-call' && !part.providerExecuted)
      toolCalls.push({ toolCallId: part.toolCallId, toolName: part.toolName, input: parseToolInput(part.input) });
  }
  return { text, toolCalls, finishReason, usage: normaliseUsage(usage) };
}

/** Read a `doStream` answer to its end and assemble it; `onDelta` sees text as it arrives. */
async function assemble(model: Model, options: ModelCallOptions, onDelta?: (delta: string) => void): Promise<ModelAnswer> {
  const { stream } = await model.doStream(options);
  const content: ModelContent[] = [];
  let text = '';
  let finishReason = 'unknown';
  let usage: ModelProviderUsage | undefined;
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    switch (value.type) {
      case 'text-delta':
        text += value.delta;
        onDelta?.(value.delta);
        break;
      case 'tool-call':
        content.push(value);
        break;
      case 'finish':
        finishReason = value.finishReason;
        usage = value.usage;
        break;
      case 'error':
        throw value.error instanceof Error
          ? value.error
          : new ResourceError(`the model's stream failed: ${String(value.error)}`, { code: 'model_stream_failed' });
      default:
        break;
    }
  }
  return fromContent([{ type: 'text', text }, ...content], finishReason, usage);
}

/** Most characters of text, and most tool calls, one answer may bring into the journal. */
export const MAX_ANSWER_CHARS = 1_000_000;
export const MAX_ANSWER_TOOL_CALLS = 64;

/** An answer larger than a journal should hold fails as `model_answer_too_large` (not retried: the same prompt would bring it again). */
function checkSize(answer: ModelAnswer, model: Model): ModelAnswer {
  const argsChars = answer.toolCalls.reduce(
    (n, call) => n + (typeof call.input === 'string' ? call.input.length : JSON.stringify(call.input ?? null).length),
    0,
  );
  if (answer.text.length + argsChars > MAX_ANSWER_CHARS || answer.toolCalls.length > MAX_ANSWER_TOOL_CALLS)
    throw new ModelCallError(
      `${model.modelId}: the answer is too large (${answer.text.length + argsChars} characters, ${answer.toolCalls.length} tool calls)`,
      {
        code: 'model_answer_too_large',
        failureMode: 'AGENT',
        retryable: false,
        details: { model: model.modelId },
      },
    );
  return answer;
}

/** Call a model once (`doGenerate`, or `doStream` assembled) and normalise its answer. */
export async function callModel(model: Model, options: ModelCallOptions, stream: boolean, onDelta?: (delta: string) => void): Promise<ModelAnswer> {
  if (stream) return checkSize(await assemble(model, options, onDelta), model);
  const result = await model.doGenerate(options);
  return checkSize(fromContent(result.content, result.finishReason, result.usage), model);
}
