import type { RoutingPolicyName } from '../routing/routingAuthority.ts';
import type { ToolBudgetInput } from './budget.ts';
import { parseConfig, type ConfigParseResult, type EnvRecord } from './config.ts';
import type { ConfigFile } from './configFile.ts';
import type { RetryPolicyInput } from './retry.ts';

// From a validated configuration file to what a host hands its runtime. Settings that also
// exist as environment variables become those variables first, and the environment is laid
// over them: one parser (`parseConfig`, `parseModelSettings`, the approval and OTLP readers)
// decides both, so a variable overrides its key and a bad variable warns and falls back
// exactly as it did before there was a file.

type Budget = NonNullable<ConfigFile['budget']>;

/** A file budget as the core's budget input; undefined when it sets no ceiling (no budget at all). */
export function budgetFrom(budget: Budget | null | undefined): ToolBudgetInput | undefined {
  if (!budget) return undefined;
  const ceilings = {
    ...(budget.cost_ceiling != null ? { costCeiling: budget.cost_ceiling } : {}),
    ...(budget.call_ceiling != null ? { callCeiling: budget.call_ceiling } : {}),
    ...(budget.token_ceiling != null ? { tokenCeiling: budget.token_ceiling } : {}),
  };
  if (Object.keys(ceilings).length === 0) return undefined;
  return { ...ceilings, ...(budget.warn_threshold != null ? { warnThreshold: budget.warn_threshold } : {}) };
}

const defined = <T>(value: T | null | undefined, text: (v: T) => string): string | undefined => (value == null ? undefined : text(value));

/**
 * The environment variables the file's keys stand for (`planner.max_steps` →
 * `PLANNER_MAX_STEPS`, `models.url` → `CUGAR_MODEL_URL`, `approval.auto_approve_timeout` →
 * `CUGAR_APPROVAL_TIMEOUT_MS`, `otlp.endpoint` → `OTEL_EXPORTER_OTLP_ENDPOINT`, …). `env` gives
 * the values of `*_env` keys (`models.api_key_env`). Keys the file leaves out are absent.
 */
export function configFileEnv(file: ConfigFile, env: EnvRecord = {}): Record<string, string> {
  const { planner, embedding, models, approval, otlp, memory, delegation } = file;
  const key = models?.api_key ?? (models?.api_key_env ? env[models.api_key_env] : undefined);
  const timeout = approval?.auto_approve_timeout;
  const entries: Array<[string, string | undefined]> = [
    ['PLANNER_MAX_STEPS', defined(planner?.max_steps, String)],
    ['PLANNER_MIN_SIMILARITY', defined(planner?.min_similarity, String)],
    ['DETECT_TOOL_CALLS_FROM_TEXT', defined(planner?.detect_tool_calls_from_text, String)],
    ['EMBEDDING_DIM', defined(embedding?.dim, String)],
    ['EMBEDDING_BIGRAMS', defined(embedding?.bigrams, String)],
    ['CUGAR_PROFILE', defined(file.default_profile, String)],
    ['CUGAR_RANDOM_SEED', defined(file.random_seed, String)],
    ['MODEL_TEMPERATURE', defined(models?.temperature, String)],
    ['MODEL_MAX_OUTPUT_TOKENS', defined(models?.max_output_tokens, String)],
    ['MAX_LLM_CALLS', defined(models?.max_llm_calls, String)],
    ['USE_LLM_PRE_PLAN', defined(models?.pre_plan, String)],
    ['REVIEW_ANSWERS', defined(models?.review_answers, String)],
    ['REFLECT_WITH_MODEL', defined(models?.reflect, String)],
    ['PROPOSE_TOOLS', defined(models?.propose_tools, String)],
    ['CUGAR_MEMORY_IN_LOOP', defined(memory?.in_loop, String)],
    ['CUGAR_DELEGATION_PROFILES', defined(delegation?.profiles, (profiles) => profiles.join(','))],
    ['CUGAR_DELEGATION_DEPTH', defined(delegation?.max_depth, String)],
    ['CUGAR_MODEL_URL', defined(models?.url, String)],
    ['CUGAR_MODEL', defined(models?.names, (names) => names.join(','))],
    ['CUGAR_MODEL_KEY', key || undefined],
    ['CUGAR_MODEL_STREAM', defined(models?.stream, (stream) => (stream ? '1' : '0'))],
    ['CUGAR_MODEL_TIMEOUT_MS', defined(models?.timeout, (seconds) => String(Math.max(1, Math.round(seconds * 1000))))],
    [
      'CUGAR_MODEL_PRICES',
      defined(models?.prices, (prices) =>
        JSON.stringify(
          Object.fromEntries(Object.entries(prices).map(([id, p]) => [id, { inputPerMillion: p.input_per_million, outputPerMillion: p.output_per_million }])),
        ),
      ),
    ],
    // A timeout of 0 waits for a person: the variable is left out, as when it is unset.
    ['CUGAR_APPROVAL_TIMEOUT_MS', timeout ? String(Math.max(1, Math.round(timeout * 1000))) : undefined],
    ['CUGAR_APPROVAL_ON_TIMEOUT', timeout ? (approval?.on_timeout ?? 'approve') : undefined],
    ['OTEL_EXPORTER_OTLP_ENDPOINT', defined(otlp?.endpoint, String)],
    [
      'OTEL_EXPORTER_OTLP_HEADERS',
      defined(otlp?.headers, (headers) =>
        Object.entries(headers)
          .map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`)
          .join(','),
      ),
    ],
    ['OTEL_SERVICE_NAME', defined(otlp?.service_name, String)],
  ];
  return Object.fromEntries(entries.filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== ''));
}

/** The file's keys under the environment: each variable that is set (non-empty) wins over its key. */
export function layeredEnv(file: ConfigFile | undefined, env: EnvRecord): Record<string, string | undefined> {
  const layered: Record<string, string | undefined> = file ? configFileEnv(file, env) : {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined && value !== '') layered[name] = value;
  return layered;
}

/**
 * {@link parseConfig} over the file's keys and the environment: a set variable overrides its
 * key; a bad one warns and falls back to the file's value (or the default, when the file has none).
 */
export function parseLayeredConfig(file: ConfigFile | undefined, env: EnvRecord): ConfigParseResult {
  const fromFile = parseConfig(file ? configFileEnv(file, env) : {}).config;
  return parseConfig(env, fromFile);
}

/** What the file says of the orchestrator beyond {@link parseConfig}'s keys, with units converted (seconds → milliseconds). */
export interface OrchestratorFileSettings {
  retry?: RetryPolicyInput;
  routing?: RoutingPolicyName;
  /** Workers in the pool; absent keeps the single `local` worker. */
  workerPoolSize?: number;
  /** The default budget of each run. */
  budget?: ToolBudgetInput;
  /** Shared budgets by profile. */
  profileBudgets?: Record<string, ToolBudgetInput>;
  /** `true`: every tool call asks a person; a list: these tools ask too. */
  requireApproval?: true | string[];
  /** The SQLite file, as written (relative to the working directory). */
  dbPath?: string;
  /** Days finished runs' journals are kept; absent or 0 keeps them all. */
  retentionDays?: number;
}

/** The orchestrator's settings from the file's `retry`, `routing`, `budget`, `profiles`, `approval` and `audit` sections. */
export function orchestratorSettingsFrom(file: ConfigFile): OrchestratorFileSettings {
  const { retry, routing, approval, audit } = file;
  const ms = (seconds: number) => Math.round(seconds * 1000);
  const retryInput: RetryPolicyInput = {
    ...(retry?.strategy != null ? { strategy: retry.strategy } : {}),
    ...(retry?.max_attempts != null ? { maxAttempts: retry.max_attempts } : {}),
    ...(retry?.base_delay != null ? { baseDelay: ms(retry.base_delay) } : {}),
    ...(retry?.max_delay != null ? { maxDelay: ms(retry.max_delay) } : {}),
    ...(retry?.multiplier != null ? { multiplier: retry.multiplier } : {}),
    ...(retry?.jitter != null ? { jitter: retry.jitter } : {}),
  };
  const profileBudgets = Object.fromEntries(
    Object.entries(file.profiles ?? {}).flatMap(([name, profile]) => {
      const budget = budgetFrom(profile.budget);
      return budget ? [[name, budget]] : [];
    }),
  );
  const budget = budgetFrom(file.budget);
  const policy = routing?.policy === 'capability_based' ? 'capability' : routing?.policy;
  const required = approval?.require_approval;
  return {
    ...(Object.keys(retryInput).length ? { retry: retryInput } : {}),
    ...(policy ? { routing: policy } : {}),
    ...(routing?.worker_pool_size != null && routing.worker_pool_size > 1 ? { workerPoolSize: routing.worker_pool_size } : {}),
    ...(budget ? { budget } : {}),
    ...(Object.keys(profileBudgets).length ? { profileBudgets } : {}),
    ...(required === true ? { requireApproval: true as const } : Array.isArray(required) && required.length ? { requireApproval: required } : {}),
    ...(audit?.db_path ? { dbPath: audit.db_path } : {}),
    ...(audit?.retention_days ? { retentionDays: audit.retention_days } : {}),
  };
}
