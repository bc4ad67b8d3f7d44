import { ResourceError } from '../errors.ts';
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

/** Call a model once (`doGenerate`, or `doStream` assembled) and normalise its answer. */
export async function callModel(model: Model, options: ModelCallOptions, stream: boolean, onDelta?: (delta: string) => void): Promise<ModelAnswer> {
  if (stream) return assemble(model, options, onDelta);
  const result = await model.doGenerate(options);
  return fromContent(result.content, result.finishReason, result.usage);
}
