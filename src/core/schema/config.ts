import * as z from 'zod';
import { ProfileNameSchema } from './common.ts';
import { parseOrThrow } from './validate.ts';

/** The runtime configuration after parsing, with every default filled in. */
export const ConfigSchema = z.object({
  /** Most steps a plan may have; clamped to 1..50. */
  plannerMaxSteps: z.number().int().min(1).max(50),
  /** Sampling temperature handed to an optional model; clamped to 0..2. */
  modelTemperature: z.number().min(0).max(2),
  /** Embedding dimension of the hashing embedder; 8..65536. */
  embeddingDim: z.number().int().min(8).max(65536),
  /** Whether the embedder adds word bigrams. */
  embeddingBigrams: z.boolean(),
  /** Least goal/tool similarity for a tool to be planned at all; 0..1. */
  plannerMinSimilarity: z.number().min(0).max(1),
  /** Profile used when a caller names none. */
  defaultProfile: z.string().min(1),
  /** Seed for the deterministic random port. */
  randomSeed: z.number().int(),
  /** Most answered model calls of one agent run (`max_llm_calls`); 1..1000. */
  maxLlmCalls: z.number().int().min(1).max(1000),
  /** Most tokens of one model answer; 0 leaves it to the provider. */
  modelMaxOutputTokens: z.number().int().min(0).max(10_000_000),
  /**
   * Phase 0 of planning: a goal that writes its tool calls out (`add(a=1, b=2)`) runs them as
   * a pattern plan, without a model, even when one is configured.
   */
  detectToolCallsFromText: z.boolean(),
  /** Phase 1 of planning: agent runs first ask the model to classify the goal; trivial ones are answered at once. */
  useLlmPrePlan: z.boolean(),
  /** Agent runs have each answer checked by the model before they complete. */
  reviewAnswers: z.boolean(),
  /**
   * Memory in the loop: every run recalls the reflections of the profile's earlier runs before
   * it plans and writes its goal, plan, results and reflection when it ends (lexical and agent
   * runs alike).
   */
  memoryInLoop: z.boolean(),
  /** With a model configured, each run's reflection is written by the model (one more journaled call per run). */
  reflectWithModel: z.boolean(),
  /** Profiles whose agents an agent run may hand a sub-goal to through the `delegate` tool; empty: no delegation. */
  delegationProfiles: z.array(ProfileNameSchema).max(64),
  /** How deep delegated sub-runs may nest; 1..4. */
  delegationMaxDepth: z.number().int().min(1).max(4),
  /** Agent runs may propose tools written at run time (`propose_tool`), where the host runs them; each waits for a person's approval. */
  proposeTools: z.boolean(),
});
export type Config = z.infer<typeof ConfigSchema>;

/** Defaults used for every key that is absent or invalid. */
export const DEFAULT_CONFIG: Readonly<Config> = Object.freeze({
  plannerMaxSteps: 10,
  modelTemperature: 0,
  embeddingDim: 256,
  embeddingBigrams: true,
  plannerMinSimilarity: 0.12,
  defaultProfile: 'demo',
  randomSeed: 1,
  maxLlmCalls: 8,
  modelMaxOutputTokens: 0,
  detectToolCallsFromText: true,
  useLlmPrePlan: false,
  reviewAnswers: false,
  memoryInLoop: true,
  reflectWithModel: true,
  delegationProfiles: [],
  delegationMaxDepth: 2,
  proposeTools: true,
});

/** An env-like record: names to raw string values. Never `process.env` itself inside the core. */
export const EnvRecordSchema = z.record(z.string(), z.string().optional());
export type EnvRecord = z.infer<typeof EnvRecordSchema>;

/** A parsed configuration and what was wrong with the input. */
export interface ConfigParseResult {
  config: Config;
  /** One line per key that was invalid (fell back) or out of range (clamped). */
  warnings: string[];
}

type NumberKey =
  | 'plannerMaxSteps'
  | 'modelTemperature'
  | 'embeddingDim'
  | 'plannerMinSimilarity'
  | 'randomSeed'
  | 'maxLlmCalls'
  | 'modelMaxOutputTokens'
  | 'delegationMaxDepth';

const NUMBER_KEYS: ReadonlyArray<{ env: string; key: NumberKey; min: number; max: number; integer: boolean }> = [
  { env: 'PLANNER_MAX_STEPS', key: 'plannerMaxSteps', min: 1, max: 50, integer: true },
  { env: 'MODEL_TEMPERATURE', key: 'modelTemperature', min: 0, max: 2, integer: false },
  { env: 'EMBEDDING_DIM', key: 'embeddingDim', min: 8, max: 65536, integer: true },
  { env: 'PLANNER_MIN_SIMILARITY', key: 'plannerMinSimilarity', min: 0, max: 1, integer: false },
  { env: 'CUGAR_RANDOM_SEED', key: 'randomSeed', min: -(2 ** 31), max: 2 ** 31 - 1, integer: true },
  { env: 'MAX_LLM_CALLS', key: 'maxLlmCalls', min: 1, max: 1000, integer: true },
  { env: 'MODEL_MAX_OUTPUT_TOKENS', key: 'modelMaxOutputTokens', min: 0, max: 10_000_000, integer: true },
  { env: 'CUGAR_DELEGATION_DEPTH', key: 'delegationMaxDepth', min: 1, max: 4, integer: true },
];

const TRUE_WORDS = new Set(['1', 'true', 'yes', 'on']);
const FALSE_WORDS = new Set(['0', 'false', 'no', 'off']);

/**
 * Parse an env-like record into a {@link Config}. Never throws for bad values: an
 * unparsable value falls back to its default (`base`'s value: the configuration file's, when a
 * host lays the environment over one) and an out-of-range one is clamped, each with a
 * warning. Throws a `ValidationError` only when `env` is not a record of strings.
 *
 * @example
 * const { config, warnings } = parseConfig({ PLANNER_MAX_STEPS: '99' });
 * config.plannerMaxSteps; // 50
 * warnings; // ['PLANNER_MAX_STEPS=99 is above 50; clamped to 50']
 */
export function parseConfig(env: EnvRecord = {}, base: Readonly<Config> = DEFAULT_CONFIG): ConfigParseResult {
  const record = parseOrThrow(EnvRecordSchema, env, 'environment record');
  const config: Config = { ...parseOrThrow(ConfigSchema, base, 'base configuration') };
  const fallback = base === DEFAULT_CONFIG ? 'the default' : 'the configured';
  const warnings: string[] = [];

  for (const { env: name, key, min, max, integer } of NUMBER_KEYS) {
    const raw = record[name]?.trim();
    if (raw === undefined || raw === '') continue;
    const value = Number(raw);
    if (!Number.isFinite(value) || (integer && !Number.isInteger(value))) {
      warnings.push(`${name}=${JSON.stringify(raw)} is not a${integer ? 'n integer' : ' finite number'}; using ${fallback} ${config[key]}`);
      continue;
    }
    if (value < min) {
      warnings.push(`${name}=${raw} is below ${min}; clamped to ${min}`);
      config[key] = min;
    } else if (value > max) {
      warnings.push(`${name}=${raw} is above ${max}; clamped to ${max}`);
      config[key] = max;
    } else {
      config[key] = value;
    }
  }

  for (const [name, key] of [
    ['EMBEDDING_BIGRAMS', 'embeddingBigrams'],
    ['DETECT_TOOL_CALLS_FROM_TEXT', 'detectToolCallsFromText'],
    ['USE_LLM_PRE_PLAN', 'useLlmPrePlan'],
    ['REVIEW_ANSWERS', 'reviewAnswers'],
    ['CUGAR_MEMORY_IN_LOOP', 'memoryInLoop'],
    ['REFLECT_WITH_MODEL', 'reflectWithModel'],
    ['PROPOSE_TOOLS', 'proposeTools'],
  ] as const) {
    const word = record[name]?.trim().toLowerCase();
    if (word === undefined || word === '') continue;
    if (TRUE_WORDS.has(word)) config[key] = true;
    else if (FALSE_WORDS.has(word)) config[key] = false;
    else warnings.push(`${name}=${JSON.stringify(word)} is not a boolean; using ${fallback} ${config[key]}`);
  }

  const profile = record['CUGAR_PROFILE']?.trim();
  if (profile !== undefined && profile !== '') {
    if (ProfileNameSchema.safeParse(profile).success) config.defaultProfile = profile;
    else warnings.push(`CUGAR_PROFILE=${JSON.stringify(profile)} is not a valid profile name; using ${fallback} ${config.defaultProfile}`);
  }

  const delegation = record['CUGAR_DELEGATION_PROFILES'];
  if (delegation !== undefined && delegation.trim() !== '') {
    const names = [
      ...new Set(
        delegation
          .split(',')
          .map((name) => name.trim())
          .filter(Boolean),
      ),
    ];
    const bad = names.filter((name) => !ProfileNameSchema.safeParse(name).success);
    if (bad.length || names.length > 64)
      warnings.push(
        `CUGAR_DELEGATION_PROFILES=${JSON.stringify(delegation)} ${bad.length ? `has invalid profile names (${bad.join(', ')})` : 'names more than 64 profiles'}; using ${fallback} ${JSON.stringify(config.delegationProfiles)}`,
      );
    else config.delegationProfiles = names;
  }

  return { config: ConfigSchema.parse(config), warnings };
}
