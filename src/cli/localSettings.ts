import type { HostSettings } from './hostConfig.ts';
import type { Output } from './output.ts';

/**
 * The configuration `cugar serve` and the CLI's local commands work with: the file
 * (`CUGAR_CONFIG`, else `configs/orchestrator.yaml` under the working directory) with the
 * environment over it, so a run made with `cugar run` on a data directory gets the retry,
 * routing, worker pool, budgets, approvals, database file, MCP servers, models and secrets a
 * server on that directory would use. An invalid file fails the command (exit 2). Warnings not
 * already printed for the environment (a bad variable, against the defaults) are printed once.
 */
export async function loadLocalSettings(output: Output, printed: readonly string[]): Promise<HostSettings> {
  const { loadHostSettings } = await import('./hostConfig.ts');
  const settings = await loadHostSettings({ env: process.env });
  const reported = new Set(printed.map((w) => w.split(' ')[0]));
  for (const warning of settings.warnings.filter((w) => !reported.has(w.split(' ')[0]))) output.err(`warning: ${warning}`);
  return settings;
}
