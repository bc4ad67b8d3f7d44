import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import {
  NotFoundError,
  REDACTED,
  agentSettingsFrom,
  parseModelSettings,
  registerSecretValues,
  type AgentSettings,
  type Config,
  type Model,
  type ModelHostSettings,
  type ModelProvider,
} from '../core/index.ts';

/** What a host hands its runtime when a model is configured. */
export interface HostModels {
  models: ModelProvider;
  agent: Omit<AgentSettings, 'models'>;
  settings: ModelHostSettings;
}

/** A thrown value with every occurrence of `key` replaced, keeping the fields the engine classifies by. */
function scrub(error: unknown, key: string | undefined): unknown {
  if (!key || typeof error !== 'object' || error === null) return error;
  const clean = (value: unknown) => (typeof value === 'string' ? value.split(key).join(REDACTED) : value);
  const source = error as Record<string, unknown>;
  if (![source['message'], source['responseBody'], source['url']].some((v) => typeof v === 'string' && v.includes(key))) return error;
  return Object.assign(new Error(clean(source['message']) as string), {
    name: source['name'],
    statusCode: source['statusCode'],
    responseHeaders: source['responseHeaders'],
    responseBody: clean(source['responseBody']),
    isRetryable: source['isRetryable'],
  });
}

/** A model whose failures never carry the key, whatever the provider put in them. */
function keySafe(model: Model, key: string | undefined): Model {
  return {
    specificationVersion: model.specificationVersion,
    provider: model.provider,
    modelId: model.modelId,
    get supportedUrls() {
      return model.supportedUrls;
    },
    doGenerate: async (options) => {
      try {
        return await model.doGenerate(options);
      } catch (error) {
        throw scrub(error, key);
      }
    },
    doStream: async (options) => {
      try {
        return await model.doStream(options);
      } catch (error) {
        throw scrub(error, key);
      }
    },
  };
}

/**
 * The default model adapter: an OpenAI-compatible chat API (OpenAI, Ollama, llama.cpp's server,
 * vLLM, LM Studio) through the AI SDK's `@ai-sdk/openai-compatible`. The key goes into the
 * `Authorization` header only, and is registered for literal redaction on every channel.
 */
export function openAICompatibleModels(settings: ModelHostSettings, key?: string, fetchImpl?: typeof fetch): ModelProvider {
  if (key) registerSecretValues([key]);
  const provider = createOpenAICompatible({
    name: 'openai-compatible',
    baseURL: settings.url,
    ...(key ? { apiKey: key } : {}),
    includeUsage: true,
    ...(fetchImpl ? { fetch: fetchImpl } : {}),
  });
  const models = new Map(settings.models.map((id) => [id, keySafe(provider.chatModel(id), key)]));
  return {
    models: [...settings.models],
    model(id) {
      const model = models.get(id);
      if (!model) throw new NotFoundError(`no model "${id}" is configured`, { code: 'unknown_model' });
      return model;
    },
  };
}

/**
 * A host's models from its environment (`CUGAR_MODEL_URL`, `CUGAR_MODEL`, `CUGAR_MODEL_KEY`, …)
 * and configuration, or undefined when none is configured (runs then use the lexical planner).
 * Warnings go to `log`; none contains the key.
 */
export function hostModels(
  env: Record<string, string | undefined>,
  config: Config,
  log?: (line: string) => void,
  fetchImpl?: typeof fetch,
): HostModels | undefined {
  const { settings, key, warnings } = parseModelSettings(env);
  for (const warning of warnings) log?.(warning);
  if (!settings) return undefined;
  return { models: openAICompatibleModels(settings, key, fetchImpl), agent: agentSettingsFrom(settings, config), settings };
}
