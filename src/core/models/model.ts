import type {
  LanguageModelV2,
  LanguageModelV2CallOptions,
  LanguageModelV2Content,
  LanguageModelV2FunctionTool,
  LanguageModelV2Prompt,
  LanguageModelV2StreamPart,
  LanguageModelV2Usage,
} from '@ai-sdk/provider';
import { NotFoundError } from '../errors.ts';

// The core imports only the types of @ai-sdk/provider: any AI SDK 5 provider model
// (`LanguageModelV2`) plugs in unchanged, and no provider code is bundled with the core.

/** The model port: the Vercel AI SDK's `LanguageModelV2` (AI SDK 5), so any of its providers plugs in. */
export type Model = LanguageModelV2;
export type ModelCallOptions = LanguageModelV2CallOptions;
export type ModelPrompt = LanguageModelV2Prompt;
export type ModelTool = LanguageModelV2FunctionTool;
export type ModelContent = LanguageModelV2Content;
export type ModelStreamPart = LanguageModelV2StreamPart;
export type ModelProviderUsage = LanguageModelV2Usage;

/**
 * The models a host offers, by id: an agent run records the ids it may use (in fallback order)
 * and asks for each by id when it calls it. Replay substitutes one that answers from the journal.
 */
export interface ModelProvider {
  /** The ids new agent runs use, in fallback order. */
  readonly models: readonly string[];
  /** The model with `id`; throws a typed error for an id the host does not offer. */
  model(id: string): Model;
}

/** A provider over fixed model instances, keyed by id in fallback order (for tests and embedding). */
export function staticModels(models: ReadonlyArray<readonly [id: string, model: Model]>): ModelProvider {
  const byId = new Map(models);
  return {
    models: models.map(([id]) => id),
    model(id) {
      const model = byId.get(id);
      if (!model) throw new NotFoundError(`no model "${id}" is configured`, { code: 'unknown_model' });
      return model;
    },
  };
}
