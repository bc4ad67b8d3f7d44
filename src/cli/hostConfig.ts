import { existsSync, readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type * as z from 'zod';
import {
  NotFoundError,
  SECRET_ENV_PREFIX,
  SecretNameSchema,
  Worker,
  registerSecretValues,
  staticSecrets,
  type ApprovalPolicy,
  type Config,
  type Secrets,
  type ToolBudgetInput,
} from '../core/index.ts';
// Imported by path, not from the core's entry: the YAML parser stays out of every bundle of `cugar`.
import type { ConfigFile } from '../core/schema/configFile.ts';
import { orchestratorSettingsFrom, layeredEnv, parseLayeredConfig, type OrchestratorFileSettings } from '../core/schema/configSettings.ts';
import {
  ConfigFileError,
  MAX_CONFIG_TEXT,
  formatConfigIssue,
  formatConfigPath,
  parseConfigText,
  type ConfigIssue,
  type ConfigLocator,
} from '../core/schema/configText.ts';
import { parseApprovalPolicy } from '../api/approvalSettings.ts';
import { OtlpSettingsSchema, otlpSettingsFromEnv, type OtlpSettings } from '../api/otlpExport.ts';
import type { RuntimeOptions } from '../api/runtime.ts';
import type { TokenMap } from '../api/security.ts';
import { parseTokenMap } from '../api/tokens.ts';
import { McpProfileAllowSchema, McpServerConfigSchema, checkAllowed, parseMcpAllow, parseMcpServers, type McpAllow } from '../mcp/config.ts';
import type { McpHostSettings } from '../mcp/hostSetup.ts';

/** Where the configuration file is looked for when `CUGAR_CONFIG` names none. */
export const DEFAULT_CONFIG_PATH = 'configs/orchestrator.yaml';

/** Env is a record of strings; `process.env` fits. */
type Env = Readonly<Record<string, string | undefined>>;

/**
 * The file to read: `--file`, else `CUGAR_CONFIG`, else `configs/orchestrator.yaml` under the
 * working directory when it exists (else none: the environment alone configures the host). A
 * file named explicitly must exist.
 */
export function configFilePath(explicit: string | undefined, env: Env, cwd = process.cwd()): string | undefined {
  const named = explicit ?? (env['CUGAR_CONFIG']?.trim() || undefined);
  if (named) {
    const path = resolve(cwd, named);
    if (!existsSync(path) || !statSync(path).isFile()) throw new NotFoundError(`no configuration file at ${named}`);
    return path;
  }
  const fallback = resolve(cwd, DEFAULT_CONFIG_PATH);
  return existsSync(fallback) && statSync(fallback).isFile() ? fallback : undefined;
}

/** Everything the Node host takes from its configuration file and environment together. */
export interface HostSettings {
  /** The file read, if any. */
  file?: string;
  config: Config;
  orchestrator: OrchestratorFileSettings;
  /** Bearer tokens (values are secrets); empty: the host generates a local token. */
  tokens: TokenMap;
  /** Where each token came from, for `cugar config check` (never the value). */
  tokenSources: Array<{ from: string; profiles: unknown; scopes?: readonly string[] }>;
  approval?: ApprovalPolicy;
  profileBudgets?: Record<string, ToolBudgetInput>;
  otlp?: OtlpSettings;
  mcp: McpHostSettings;
  /** The environment the model settings are read from: the file's `models` keys under the process environment. */
  modelEnv: Record<string, string | undefined>;
  secrets: Secrets;
  /** Warnings: missing references, environment values that fell back. */
  warnings: string[];
}

/** A token's grant as profiles and scopes. */
function grantOf(grant: TokenMap[string]): { profiles: unknown; scopes?: readonly string[] } {
  if (typeof grant === 'object' && 'profiles' in grant) return { profiles: grant.profiles, ...(grant.scopes ? { scopes: grant.scopes } : {}) };
  return { profiles: grant };
}

function fail(file: string, issues: ConfigIssue[]): never {
  throw new ConfigFileError(file, issues);
}

/** The file's MCP servers, each checked as `CUGAR_MCP_SERVERS` checks it; issues carry the file's lines. */
function fileMcpServers(file: ConfigFile, locate: ConfigLocator, issues: ConfigIssue[]): McpHostSettings['servers'] {
  const servers = file.mcp?.servers ?? [];
  const seen = new Set<string>();
  return servers.flatMap((server, i) => {
    const parsed = McpServerConfigSchema.safeParse(server);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        const path = ['mcp', 'servers', i, ...(issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0]!] : issue.path)];
        const message = issue.code === 'unrecognized_keys' ? `unknown key${issue.keys.length > 1 ? `s ${issue.keys.join(', ')}` : ''}` : issue.message;
        issues.push({ path: formatConfigPath(path), ...locate(path), message, code: issue.code === 'unrecognized_keys' ? 'unknown_key' : issue.code });
      }
      return [];
    }
    if (seen.has(parsed.data.name)) {
      const path = ['mcp', 'servers', i, 'name'];
      issues.push({ path: formatConfigPath(path), ...locate(path), message: `the server name "${parsed.data.name}" is used twice`, code: 'duplicate' });
    }
    seen.add(parsed.data.name);
    return [server as z.input<typeof McpServerConfigSchema>];
  });
}

/** The file's tokens, each read from its variable; an unset or short one is left out with a warning. */
function fileTokens(file: ConfigFile, env: Env, warnings: string[]): { tokens: TokenMap; sources: HostSettings['tokenSources'] } {
  const tokens: TokenMap = {};
  const sources: HostSettings['tokenSources'] = [];
  for (const [i, entry] of (file.tokens ?? []).entries()) {
    const value = env[entry.token_env]?.trim();
    if (!value || value.length < 16) {
      warnings.push(`tokens[${i}] — ${entry.token_env} is ${value ? 'shorter than 16 characters' : 'not set'}; this token is left out`);
      continue;
    }
    const profiles = entry.profiles ?? '*';
    tokens[value] = entry.scopes?.length ? { profiles, scopes: entry.scopes } : profiles;
    sources.push({ from: entry.token_env, profiles, ...(entry.scopes?.length ? { scopes: entry.scopes } : {}) });
  }
  return { tokens, sources };
}

/** Secrets from the file (by reference) with every `CUGAR_SECRET_<NAME>` of the environment over them. */
function hostSecrets(file: ConfigFile, env: Env, warnings: string[]): Secrets {
  const values: Record<string, string> = {};
  for (const [name, reference] of Object.entries(file.secrets ?? {})) {
    const value = typeof reference === 'string' ? reference : env[reference.secret_env];
    if (value) values[name] = value;
    else if (typeof reference !== 'string') warnings.push(`secrets.${name} — ${reference.secret_env} is not set; the secret is left out`);
  }
  for (const [key, value] of Object.entries(env))
    if (key.startsWith(SECRET_ENV_PREFIX) && value !== undefined && SecretNameSchema.safeParse(key.slice(SECRET_ENV_PREFIX.length)).success)
      values[key.slice(SECRET_ENV_PREFIX.length)] = value;
  return staticSecrets(values);
}

/** The OTLP exporter's settings: the `OTEL_*` variables over the file's `otlp` keys. */
function hostOtlp(file: ConfigFile, layered: Env): OtlpSettings | undefined {
  const base = otlpSettingsFromEnv(layered);
  if (!base) return undefined;
  const o = file.otlp;
  const ms = (seconds: number | null | undefined) => (seconds == null ? undefined : Math.round(seconds * 1000));
  return OtlpSettingsSchema.parse({
    ...base,
    ...(o?.max_queue_spans != null ? { maxQueueSpans: o.max_queue_spans } : {}),
    ...(o?.max_batch_spans != null ? { maxBatchSpans: o.max_batch_spans } : {}),
    ...(o?.batch_delay != null ? { batchDelayMs: ms(o.batch_delay) } : {}),
    ...(o?.timeout != null ? { timeoutMs: ms(o.timeout) } : {}),
    ...(o?.max_attempts != null ? { maxAttempts: o.max_attempts } : {}),
  });
}

/** The approval policy: timeout and outcome from the variables over the file, extra calls from `require_approval`. */
function hostApproval(orchestrator: OrchestratorFileSettings, layered: Env): ApprovalPolicy | undefined {
  const timing = parseApprovalPolicy(layered);
  const required = orchestrator.requireApproval;
  const requires: ApprovalPolicy['requires'] | undefined = required === true ? () => true : required ? ({ tool }) => required.includes(tool.name) : undefined;
  if (!timing && !requires) return undefined;
  return { ...timing, ...(requires ? { requires } : {}) };
}

/** The file's profile MCP permissions, when it names any. */
function fileMcpAllow(file: ConfigFile): McpAllow {
  return Object.fromEntries(
    Object.entries(file.profiles ?? {}).flatMap(([name, profile]) =>
      profile.mcp ? [[name, McpProfileAllowSchema.parse({ network: profile.mcp.network ?? false, commands: profile.mcp.commands ?? [] })]] : [],
    ),
  );
}

/**
 * Read the configuration file (see {@link configFilePath}) and lay the environment over it.
 * Throws a {@link ConfigFileError} listing every error with its line and key path (syntax,
 * unknown keys, wrong types, inline secrets, bad MCP servers), a `NotFoundError` for a named
 * file that does not exist; a `${env:NAME}` or `*_env` naming an unset variable, and an
 * environment value that is not valid, are warnings and fall back. Secret values read through
 * references are registered for redaction.
 */
export async function loadHostSettings(options: { file?: string; env: Env; cwd?: string }): Promise<HostSettings> {
  // A plain copy: `process.env` is no plain object, and the core's parsers check their input as records.
  const env: Record<string, string | undefined> = { ...options.env };
  const path = configFilePath(options.file, env, options.cwd);
  const warnings: string[] = [];
  let file: ConfigFile = {};
  const issues: ConfigIssue[] = [];
  let servers: McpHostSettings['servers'] = [];
  if (path) {
    const text = readFileSync(path, 'utf8');
    if (text.length > MAX_CONFIG_TEXT) fail(path, [{ path: '(root)', message: `the file is larger than ${MAX_CONFIG_TEXT} characters`, code: 'too_big' }]);
    const result = parseConfigText(text, { env });
    if (!result.ok) fail(path, result.errors);
    file = result.file;
    registerSecretValues(result.secretValues);
    // Printed like the errors (formatConfigIssue): a dash after the path, which redaction leaves alone.
    for (const warning of result.warnings) warnings.push(formatConfigIssue(warning));
    servers = fileMcpServers(file, result.locate, issues);
    if (issues.length) fail(path, issues);
  }
  const layered = layeredEnv(file, env);
  const { config, warnings: configWarnings } = parseLayeredConfig(file, env);
  warnings.push(...configWarnings);
  const orchestrator = orchestratorSettingsFrom(file);
  const fromFile = fileTokens(file, env, warnings);
  const envTokens = env['CUGAR_TOKENS']?.trim();
  const tokens = envTokens ? parseTokenMap(envTokens) : fromFile.tokens;
  registerSecretValues(Object.keys(tokens));
  const { parseProfileBudgets } = await import('../edge/nodeServer.ts');
  const profileBudgets = parseProfileBudgets(env['CUGAR_PROFILE_BUDGETS']) ?? orchestrator.profileBudgets;
  const approval = hostApproval(orchestrator, layered);
  const otlp = hostOtlp(file, layered);
  if (otlp?.headers) registerSecretValues(Object.values(otlp.headers));
  const mcp: McpHostSettings = {
    servers: env['CUGAR_MCP_SERVERS']?.trim() ? parseMcpServers(env['CUGAR_MCP_SERVERS']) : servers,
    allow: env['CUGAR_MCP_ALLOW']?.trim() ? parseMcpAllow(env['CUGAR_MCP_ALLOW']) : fileMcpAllow(file),
  };
  // A server its profile does not allow is left out when the host starts: say so now.
  for (const server of mcp.servers) {
    try {
      checkAllowed(McpServerConfigSchema.parse(server), mcp.allow[server.profile]);
    } catch (error) {
      warnings.push(`mcp server ${server.name} — ${(error as Error).message}; it will be left out`);
    }
  }
  return {
    ...(path ? { file: path } : {}),
    config,
    orchestrator,
    tokens,
    tokenSources: envTokens ? Object.values(tokens).map((grant) => ({ from: 'CUGAR_TOKENS', ...grantOf(grant) })) : fromFile.sources,
    ...(approval ? { approval } : {}),
    ...(profileBudgets ? { profileBudgets } : {}),
    ...(otlp ? { otlp } : {}),
    mcp,
    modelEnv: layered,
    secrets: hostSecrets(file, env, warnings),
    warnings,
  };
}

/** The runtime's orchestrator options from the file: retry, routing, the worker pool and the default run budget. */
export function orchestratorOptionsOf(settings: OrchestratorFileSettings): NonNullable<RuntimeOptions['orchestrator']> {
  return {
    ...(settings.retry ? { retry: settings.retry } : {}),
    ...(settings.routing ? { routing: settings.routing } : {}),
    // A pool of N: N workers to route among, up to N independent steps of a run at once, and up
    // to N sandbox workers per tool written at run time.
    ...(settings.workerPoolSize
      ? { workers: Array.from({ length: settings.workerPoolSize }, (_, i) => new Worker({ id: `worker-${i + 1}` })), parallelSteps: settings.workerPoolSize }
      : {}),
    ...(settings.budget ? { budget: settings.budget } : {}),
  };
}
