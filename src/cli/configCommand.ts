import { resolve } from 'node:path';
import { stringify } from 'yaml';
import { CugarError, RetryPolicyConfigSchema, ToolBudgetSchema, parseModelSettings, redact } from '../core/index.ts';
import { ConfigFileError, formatConfigIssue } from '../core/schema/configText.ts';
import { loadHostSettings, type HostSettings } from './hostConfig.ts';
import { paint, type Output } from './output.ts';

/** Options of {@link configCommand}. */
export interface ConfigCommandOptions {
  file?: string | undefined;
  json: boolean;
  'data-dir'?: string | undefined;
}

/**
 * The effective configuration as `cugar serve` would run with it: defaults, then the file,
 * then the environment. Secret values never appear: keys and headers are masked by the
 * redaction policy, tokens are shown by the variable they come from, secrets by name.
 */
function effectiveView(settings: HostSettings, dataDir: string): Record<string, unknown> {
  const { orchestrator } = settings;
  const { settings: model, key } = parseModelSettings(settings.modelEnv);
  const view = {
    file: settings.file ?? null,
    config: settings.config,
    retry: RetryPolicyConfigSchema.parse(orchestrator.retry ?? {}),
    approval: {
      requireApproval: orchestrator.requireApproval ?? false,
      timeoutMs: settings.approval?.timeoutMs ?? null,
      onTimeout: settings.approval?.timeoutMs === undefined ? null : (settings.approval.onTimeout ?? 'reject'),
      backend: 'sqlite',
    },
    audit: {
      backend: 'sqlite',
      dbPath: resolve(orchestrator.dbPath ?? `${dataDir}/cugar.db`),
      retentionDays: orchestrator.retentionDays ?? null,
    },
    routing: { policy: orchestrator.routing ?? 'round_robin', workerPoolSize: orchestrator.workerPoolSize ?? 1 },
    budget: orchestrator.budget ? ToolBudgetSchema.parse(orchestrator.budget) : null,
    profileBudgets: settings.profileBudgets ?? {},
    models: model ? { ...model, apiKey: key ?? null } : null,
    mcp: { servers: settings.mcp.servers, allow: settings.mcp.allow },
    otlp: settings.otlp ?? null,
    tokens: settings.tokenSources,
  };
  // Secret names are not secrets; the redaction policy would blank them under a key named `secrets`.
  return { ...redact(view), secrets: [...settings.secrets.names()].sort() };
}

/**
 * `cugar config check [--file F] [--json]`: validate the configuration file (see
 * `hostConfig.ts` for which one) and print the effective configuration with secrets masked,
 * or every error with its line and key path. Exit 0 when it can be used (warnings included),
 * 2 when it cannot, 3 when a named file does not exist.
 */
export async function configCommand(args: readonly string[], options: ConfigCommandOptions, output: Output): Promise<number> {
  if (args[0] !== 'check' || args.length > 1) throw new CugarError('usage: cugar config check [--file F] [--json]', { code: 'usage', failureMode: 'USER' });
  const dataDir = options['data-dir'] ?? process.env['CUGAR_DATA_DIR'] ?? '.cugar';
  let settings: HostSettings;
  try {
    settings = await loadHostSettings({ ...(options.file ? { file: options.file } : {}), env: process.env });
  } catch (error) {
    if (!(error instanceof ConfigFileError)) throw error;
    const source = (error.details as { source: string }).source;
    if (options.json) output.out(JSON.stringify(redact({ ok: false, file: source, errors: error.issues })));
    else {
      output.err(`${paint(output, 'red', 'invalid')}: ${source} (${error.issues.length} error${error.issues.length === 1 ? '' : 's'})`);
      for (const issue of error.issues) output.err(`  ${formatConfigIssue(issue)}`);
    }
    return 2;
  }
  const view = effectiveView(settings, dataDir);
  if (options.json) output.out(JSON.stringify({ ok: true, warnings: settings.warnings, effective: view }));
  else {
    for (const warning of settings.warnings) output.err(`warning: ${warning}`);
    output.err(`${paint(output, 'green', 'valid')}: ${settings.file ?? 'no configuration file (the environment and the defaults)'}`);
    output.out(stringify(view).trimEnd());
  }
  return 0;
}
