import * as z from 'zod';
import { PROFILE_NAME_PATTERN } from './common.ts';

// The orchestrator's configuration file (`configs/orchestrator.yaml`): the keys of the seed's
// `retry`, `approval`, `audit`, `routing` and `budget` sections, plus the host's planner,
// embedding, model, MCP, OpenTelemetry, profile, token and secret settings. Every object is
// strict (an unknown key is an error), every key optional (absent keeps the default), and
// `null` is the same as absent. Durations are in seconds, as the seed writes them.

/** An environment variable's name, as a `*_env` key or a `${env:NAME}` reference names it. */
export const EnvNameSchema = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, 'environment variable names are letters, digits and "_"');

const opt = <S extends z.ZodType>(schema: S) => schema.nullish();
const seconds = (max: number) => z.number().min(0).max(max);
const Ceiling = z.number().min(0).max(Number.MAX_SAFE_INTEGER);

/** `retry`: how failed tool calls are tried again. */
export const RetryFileSchema = z.strictObject({
  /** `exponential`, `linear` or `none`. */
  strategy: opt(z.enum(['exponential', 'linear', 'none'])),
  /** Total attempts including the first. */
  max_attempts: opt(z.number().int().min(1).max(100)),
  /** First delay, in seconds. */
  base_delay: opt(seconds(3600)),
  /** Longest delay, in seconds. */
  max_delay: opt(seconds(3600)),
  multiplier: opt(z.number().min(1).max(100)),
  /** Fraction of each delay randomised (±), from the seeded random port. */
  jitter: opt(z.number().min(0).max(1)),
});

/** `approval`: when a person decides, and what a request becomes when nobody does. */
export const ApprovalFileSchema = z.strictObject({
  /** `true`: every tool call asks; a list: these tools ask too; `false`: only tools that declare it. */
  require_approval: opt(z.union([z.boolean(), z.array(z.string().min(1).max(128)).max(1024)])),
  /** Seconds a request waits before `on_timeout` decides it; `0` waits for a person forever. */
  auto_approve_timeout: opt(seconds(365 * 24 * 3600)),
  /** What a request that waited `auto_approve_timeout` becomes: `approve` (the default) or `reject`. */
  on_timeout: opt(z.enum(['approve', 'reject'])),
  /** Where pending approvals live: the host's store (SQLite on Node). */
  backend: opt(z.literal('sqlite', { error: 'approvals live in the host store: the only backend is "sqlite"' })),
  /** The seed's spelling of `backend`. */
  approval_backend: opt(z.literal('sqlite', { error: 'approvals live in the host store: the only backend is "sqlite"' })),
});

/** `audit`: where journals live and how long finished ones are kept. */
export const AuditFileSchema = z.strictObject({
  backend: opt(z.literal('sqlite', { error: 'journals live in the host store: the only backend is "sqlite"' })),
  /** The SQLite file, relative to the working directory; default `<data dir>/cugar.db`. */
  db_path: opt(z.string().min(1).max(4096)),
  /** Journals of finished runs older than this many days are deleted (their heads stay in the log); `0` keeps them all. */
  retention_days: opt(z.number().int().min(0).max(36_500)),
});

/** `routing`: which worker of the pool runs each step. */
export const RoutingFileSchema = z.strictObject({
  /** `round_robin`, `capability_based` (alias `capability`) or `load_balanced`. */
  policy: opt(z.enum(['round_robin', 'capability_based', 'capability', 'load_balanced'])),
  /** Workers in the pool (`worker-1` …); 1 keeps the single `local` worker. */
  worker_pool_size: opt(z.number().int().min(1).max(256)),
});

/** A budget: ceilings (absent: no limit) and the fraction at which a warning is raised. */
export const BudgetFileSchema = z.strictObject({
  cost_ceiling: opt(Ceiling),
  call_ceiling: opt(Ceiling.int()),
  token_ceiling: opt(Ceiling.int()),
  warn_threshold: opt(z.number().min(0).max(1)),
});

/** `planner`: the lexical planner's settings. */
export const PlannerFileSchema = z.strictObject({
  max_steps: opt(z.number().int().min(1).max(50)),
  min_similarity: opt(z.number().min(0).max(1)),
  detect_tool_calls_from_text: opt(z.boolean()),
});

/** `embedding`: the hashing embedder's settings. */
export const EmbeddingFileSchema = z.strictObject({
  dim: opt(z.number().int().min(8).max(65536)),
  bigrams: opt(z.boolean()),
});

/** `models`: an OpenAI-compatible API agent runs call, and how they call it. */
export const ModelsFileSchema = z.strictObject({
  /** Base URL (`http://127.0.0.1:11434/v1`); absent: no model, runs use the lexical planner. */
  url: opt(z.url({ protocol: /^https?$/ })),
  /** Model ids in fallback order. */
  names: opt(z.array(z.string().min(1).max(200)).min(1).max(8)),
  /** The API key, by reference only: `${env:NAME}`. */
  api_key: opt(z.string().max(8000)),
  /** The API key, as the name of the environment variable that holds it. */
  api_key_env: opt(EnvNameSchema),
  stream: opt(z.boolean()),
  /** Longest wait for one model call, in seconds. */
  timeout: opt(z.number().min(0.001).max(3600)),
  /** Dollars per million tokens, by model id. */
  prices: opt(z.record(z.string().min(1), z.strictObject({ input_per_million: z.number().min(0), output_per_million: z.number().min(0) }))),
  temperature: opt(z.number().min(0).max(2)),
  max_output_tokens: opt(z.number().int().min(0).max(10_000_000)),
  max_llm_calls: opt(z.number().int().min(1).max(1000)),
  pre_plan: opt(z.boolean()),
  review_answers: opt(z.boolean()),
  /** Each run's reflection is written by the model (one more journaled call per run); `false`: from the journal alone. */
  reflect: opt(z.boolean()),
  /** Agent runs may propose tools written at run time (`propose_tool`), each waiting for a person's approval. */
  propose_tools: opt(z.boolean()),
});

/** `memory`: memory in the loop of every run. */
export const MemoryFileSchema = z.strictObject({
  /** Runs recall earlier runs' reflections before they plan and write their own when they end. */
  in_loop: opt(z.boolean()),
});

/** `delegation`: which profiles' agents an agent run may hand a sub-goal to (the `delegate` tool). */
export const DelegationFileSchema = z.strictObject({
  profiles: opt(z.array(z.string().regex(PROFILE_NAME_PATTERN, 'profile names are letters, digits, "_" and "-"')).max(64)),
  /** How deep sub-runs may nest, 1..4. */
  max_depth: opt(z.number().int().min(1).max(4)),
});

/** `otlp`: live OpenTelemetry export over OTLP/HTTP. */
export const OtlpFileSchema = z.strictObject({
  /** The collector's base URL (`/v1/traces` is appended), as `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  endpoint: opt(z.url({ protocol: /^https?$/ })),
  /** Request headers; secret values by reference (`${env:NAME}`). */
  headers: opt(z.record(z.string().regex(/^[A-Za-z0-9-]{1,100}$/), z.string().max(8000))),
  service_name: opt(z.string().min(1).max(200)),
  max_queue_spans: opt(z.number().int().min(1).max(1_000_000)),
  max_batch_spans: opt(z.number().int().min(1).max(10_000)),
  /** Seconds finished spans wait to be batched. */
  batch_delay: opt(seconds(60)),
  /** Seconds one request may take. */
  timeout: opt(z.number().min(0.1).max(120)),
  max_attempts: opt(z.number().int().min(1).max(10)),
});

/** What a profile allows of MCP servers: the network (HTTP servers) and the stdio commands it may start. */
export const ProfileMcpFileSchema = z.strictObject({ network: opt(z.boolean()), commands: opt(z.array(z.string().min(1).max(1000)).max(64)) });

/** One profile's settings: its shared budget and its MCP permissions. */
export const ProfileFileSchema = z.strictObject({ budget: opt(BudgetFileSchema), mcp: opt(ProfileMcpFileSchema) });

/** One API token: its value in an environment variable, the profiles and scopes it grants. */
export const TokenFileSchema = z.strictObject({
  token_env: EnvNameSchema,
  /** `"*"` for every profile, or a list. */
  profiles: opt(z.union([z.literal('*'), z.array(z.string().regex(PROFILE_NAME_PATTERN)).min(1).max(256)])),
  scopes: opt(z.array(z.string().min(1).max(64)).max(16)),
});

/** A secret tools read by name: a reference to where its value is. */
export const SecretFileSchema = z.union([z.string().max(8000), z.strictObject({ secret_env: EnvNameSchema })]);

/** The whole file. */
export const ConfigFileSchema = z.strictObject({
  retry: opt(RetryFileSchema),
  approval: opt(ApprovalFileSchema),
  audit: opt(AuditFileSchema),
  routing: opt(RoutingFileSchema),
  /** The default budget of each run. */
  budget: opt(BudgetFileSchema),
  planner: opt(PlannerFileSchema),
  embedding: opt(EmbeddingFileSchema),
  /** The profile used when a request names none. */
  default_profile: opt(z.string().regex(PROFILE_NAME_PATTERN)),
  random_seed: opt(
    z
      .number()
      .int()
      .min(-(2 ** 31))
      .max(2 ** 31 - 1),
  ),
  models: opt(ModelsFileSchema),
  memory: opt(MemoryFileSchema),
  delegation: opt(DelegationFileSchema),
  /** MCP servers: the same objects as `CUGAR_MCP_SERVERS` (checked by the host that connects them). */
  mcp: opt(z.strictObject({ servers: opt(z.array(z.record(z.string(), z.unknown())).max(64)) })),
  otlp: opt(OtlpFileSchema),
  profiles: opt(z.record(z.string().regex(PROFILE_NAME_PATTERN, 'profile names are letters, digits, "_" and "-"'), ProfileFileSchema)),
  tokens: opt(z.array(TokenFileSchema).max(256)),
  /** Secrets tools read by name (`context.secret('SLACK_TOKEN')`), by reference. */
  secrets: opt(z.record(z.string().regex(/^[A-Z][A-Z0-9_]{0,63}$/, 'secret names are upper-case letters, digits and "_"'), SecretFileSchema)),
});
export type ConfigFile = z.output<typeof ConfigFileSchema>;
