import * as z from 'zod';
import { ModelPriceSchema, type AgentSettings, type ModelPrice } from '../schema/agent.ts';
import type { Config, EnvRecord } from '../schema/config.ts';

/** Where a host's models are and how agent runs call them. The key is kept apart: it is a secret. */
export interface ModelHostSettings {
  /** Base URL of an OpenAI-compatible API (`http://127.0.0.1:11434/v1` for Ollama, `https://api.openai.com/v1`). */
  url: string;
  /** Model ids in fallback order. */
  models: string[];
  /** Whether answers stream (SSE) instead of arriving whole. */
  stream: boolean;
  callTimeoutMs: number;
  prices?: Record<string, ModelPrice>;
}

/** What {@link parseModelSettings} found: settings when a model is configured, the key, and warnings. */
export interface ModelSettingsResult {
  settings?: ModelHostSettings;
  /** `CUGAR_MODEL_KEY`: handed to the adapter only; never journaled, logged or exported. */
  key?: string;
  warnings: string[];
}

const DEFAULT_CALL_TIMEOUT_MS = 120_000;
const PricesSchema = z.record(z.string(), ModelPriceSchema);

/**
 * Read the model settings of a host from its environment: `CUGAR_MODEL_URL`, `CUGAR_MODEL` (one
 * id, or several separated by commas in fallback order), `CUGAR_MODEL_KEY`, and optionally
 * `CUGAR_MODEL_STREAM` (`1`/`0`), `CUGAR_MODEL_TIMEOUT_MS` and `CUGAR_MODEL_PRICES` (JSON: id →
 * `{ inputPerMillion, outputPerMillion }`). No URL means no model: runs use the lexical planner.
 * Bad values never throw; they fall back with a warning that never contains the key.
 */
export function parseModelSettings(env: EnvRecord): ModelSettingsResult {
  const warnings: string[] = [];
  const url = env['CUGAR_MODEL_URL']?.trim();
  const key = env['CUGAR_MODEL_KEY']?.trim() || undefined;
  if (!url) return { ...(key ? { key } : {}), warnings };
  let parsedUrl: URL | undefined;
  try {
    parsedUrl = new URL(url);
  } catch {
    parsedUrl = undefined;
  }
  if (!parsedUrl || !/^https?:$/.test(parsedUrl.protocol)) {
    warnings.push('CUGAR_MODEL_URL is not an http(s) URL; no model is configured');
    return { warnings };
  }
  const models = (env['CUGAR_MODEL'] ?? '')
    .split(',')
    .map((id) => id.trim())
    .filter(Boolean)
    .slice(0, 8);
  if (models.length === 0) {
    warnings.push('CUGAR_MODEL_URL is set but CUGAR_MODEL names no model; no model is configured');
    return { warnings };
  }
  const streamWord = env['CUGAR_MODEL_STREAM']?.trim().toLowerCase();
  const stream = streamWord === undefined || streamWord === '' ? false : ['1', 'true', 'yes', 'on'].includes(streamWord);
  let callTimeoutMs = DEFAULT_CALL_TIMEOUT_MS;
  const timeout = env['CUGAR_MODEL_TIMEOUT_MS']?.trim();
  if (timeout) {
    const value = Number(timeout);
    if (Number.isInteger(value) && value >= 1) callTimeoutMs = value;
    else warnings.push(`CUGAR_MODEL_TIMEOUT_MS=${JSON.stringify(timeout)} is not a positive integer; using ${DEFAULT_CALL_TIMEOUT_MS}`);
  }
  let prices: Record<string, ModelPrice> | undefined;
  const rawPrices = env['CUGAR_MODEL_PRICES']?.trim();
  if (rawPrices) {
    try {
      const parsed = PricesSchema.safeParse(JSON.parse(rawPrices));
      if (parsed.success) prices = parsed.data;
      else warnings.push('CUGAR_MODEL_PRICES is not a map of model ids to { inputPerMillion, outputPerMillion }; models cost 0');
    } catch {
      warnings.push('CUGAR_MODEL_PRICES is not JSON; models cost 0');
    }
  }
  return {
    settings: { url: parsedUrl.href.replace(/\/$/, ''), models, stream, callTimeoutMs, ...(prices ? { prices } : {}) },
    ...(key ? { key } : {}),
    warnings,
  };
}

/** The agent settings new runs record, from the host's model settings and its configuration. */
export function agentSettingsFrom(
  settings: Omit<ModelHostSettings, 'url'>,
  config: Pick<Config, 'maxLlmCalls' | 'modelTemperature' | 'modelMaxOutputTokens'> & Partial<Pick<Config, 'useLlmPrePlan' | 'reviewAnswers'>>,
): Omit<AgentSettings, 'models'> {
  return {
    temperature: config.modelTemperature,
    ...(config.modelMaxOutputTokens > 0 ? { maxOutputTokens: config.modelMaxOutputTokens } : {}),
    maxLlmCalls: config.maxLlmCalls,
    maxInvalidToolCalls: 3,
    callTimeoutMs: settings.callTimeoutMs,
    stream: settings.stream,
    ...(config.useLlmPrePlan ? { prePlan: true } : {}),
    ...(config.reviewAnswers ? { review: true } : {}),
    ...(settings.prices ? { prices: settings.prices } : {}),
  };
}
