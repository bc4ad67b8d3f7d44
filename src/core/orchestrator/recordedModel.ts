import { errorFromInfo } from '../errors.ts';
import type { Model, ModelContent, ModelProvider, ModelStreamPart } from '../models/model.ts';
import type { RunMemory } from '../memory/runMemory.ts';
import type { JournalEvent, JournalEventOf } from '../schema/journalEvent.ts';

type ModelResult = JournalEventOf<'model_call_complete' | 'model_call_error'>;

/** The answer a recorded call gave, as a provider's content parts (text-mode calls stay text). */
function contentOf(event: JournalEventOf<'model_call_complete'>): ModelContent[] {
  const { text, toolCalls, toolCallMode } = event.data;
  const calls: ModelContent[] =
    toolCallMode === 'native'
      ? toolCalls.map((call) => ({
          type: 'tool-call' as const,
          toolCallId: call.toolCallId,
          toolName: call.toolName,
          input: typeof call.input === 'string' ? call.input : JSON.stringify(call.input),
        }))
      : [];
  return [...(text ? [{ type: 'text' as const, text }] : []), ...calls];
}

/**
 * Models that answer from a journal instead of a provider: each call gets the first recorded
 * answer (or failure) after what the replay has written so far, so a run interrupted between a
 * call and its answer replays its resumption too. Past the recording, `exhausted()` is thrown.
 */
export function recordedModels(journal: readonly JournalEvent[], ids: readonly string[], written: () => number, exhausted: () => Error): ModelProvider {
  const next = (): ModelResult => {
    const from = written();
    const result = journal.find((e): e is ModelResult => e.seq >= from && (e.type === 'model_call_complete' || e.type === 'model_call_error'));
    if (!result) throw exhausted();
    if (result.type === 'model_call_error') throw errorFromInfo(result.data.error);
    return result;
  };
  const model = (modelId: string): Model => ({
    specificationVersion: 'v2',
    provider: 'cugar.recorded',
    modelId,
    supportedUrls: {},
    async doGenerate() {
      const result = next() as JournalEventOf<'model_call_complete'>;
      const { finishReason, usage } = result.data;
      return { content: contentOf(result), finishReason: finishReason as never, usage, warnings: [] };
    },
    async doStream() {
      const result = next() as JournalEventOf<'model_call_complete'>;
      return { stream: streamOf(contentOf(result), result.data.finishReason as never, result.data.usage) };
    },
  });
  return { models: [...ids], model };
}

/** A whole answer as the stream a provider would have sent: its text, its tool calls, then the finish. */
export function streamOf(
  content: readonly ModelContent[],
  finishReason: Extract<ModelStreamPart, { type: 'finish' }>['finishReason'],
  usage: Extract<ModelStreamPart, { type: 'finish' }>['usage'],
): ReadableStream<ModelStreamPart> {
  const parts: ModelStreamPart[] = [];
  for (const part of content) {
    if (part.type === 'text') parts.push({ type: 'text-start', id: 't' }, { type: 'text-delta', id: 't', delta: part.text }, { type: 'text-end', id: 't' });
    else if (part.type === 'tool-call') parts.push(part);
  }
  parts.push({ type: 'finish', finishReason, usage });
  return new ReadableStream<ModelStreamPart>({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
      controller.close();
    },
  });
}

/**
 * Memory that recalls what the journal says was recalled, and keeps nothing (a replay has no
 * effects); a read or a write the recording shows failing (`memory_warning`) fails again the same way.
 */
export function recordedMemory(journal: readonly JournalEvent[]): RunMemory {
  const failure = (operation: 'recall' | 'remember') =>
    journal.find((e): e is JournalEventOf<'memory_warning'> => e.type === 'memory_warning' && e.data.operation === operation);
  return {
    async recall() {
      const failed = failure('recall');
      if (failed) throw errorFromInfo(failed.data.error);
      const recalled = journal.find((e): e is JournalEventOf<'memory_recalled'> => e.type === 'memory_recalled');
      return recalled ? recalled.data.notes : [];
    },
    async remember() {
      const failed = failure('remember');
      if (failed) throw errorFromInfo(failed.data.error);
    },
  };
}
