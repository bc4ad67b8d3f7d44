import type { LanguageModelV2, LanguageModelV2CallOptions, LanguageModelV2Content } from '@ai-sdk/provider';
import { MockLanguageModelV2 } from 'ai/test';

/** One scripted answer: text and/or tool calls, with usage; or an error to throw. */
export type ScriptedTurn =
  | {
      text?: string;
      calls?: Array<{ tool: string; input: unknown; id?: string }>;
      tokens?: { input: number; output: number };
      finishReason?: 'stop' | 'tool-calls';
    }
  | { error: Error };

/** An error shaped like the AI SDK's APICallError (status, headers, retryability), without importing provider code. */
export function apiCallError(statusCode: number, headers: Record<string, string> = {}): Error {
  return Object.assign(new Error(`HTTP ${statusCode}`), {
    name: 'AI_APICallError',
    statusCode,
    responseHeaders: headers,
    responseBody: '',
    isRetryable: statusCode === 429 || statusCode >= 500,
  });
}

/**
 * The AI SDK's MockLanguageModelV2 answering from a script, one turn per call, and keeping every
 * request it got. Past the script it throws, so a test that calls the model too often fails.
 */
export function scriptedModel(turns: readonly ScriptedTurn[], modelId = 'scripted'): LanguageModelV2 & { calls: LanguageModelV2CallOptions[] } {
  const calls: LanguageModelV2CallOptions[] = [];
  const model = new MockLanguageModelV2({
    modelId,
    doGenerate: async (options) => {
      calls.push(options);
      const turn = turns[calls.length - 1];
      if (!turn) throw new Error(`the script has no turn ${calls.length}`);
      if ('error' in turn) throw turn.error;
      const content: LanguageModelV2Content[] = [];
      if (turn.text) content.push({ type: 'text', text: turn.text });
      (turn.calls ?? []).forEach((call, i) =>
        content.push({
          type: 'tool-call',
          toolCallId: call.id ?? `call_${calls.length}_${i}`,
          toolName: call.tool,
          input: typeof call.input === 'string' ? call.input : JSON.stringify(call.input),
        }),
      );
      const tokens = turn.tokens ?? { input: 10, output: 5 };
      return {
        content,
        finishReason: turn.finishReason ?? (turn.calls?.length ? 'tool-calls' : 'stop'),
        usage: { inputTokens: tokens.input, outputTokens: tokens.output, totalTokens: tokens.input + tokens.output },
        warnings: [],
      };
    },
  });
  return Object.assign(model, { calls });
}
