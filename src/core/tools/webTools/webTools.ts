import type { ToolRegistry } from '../toolRegistry.ts';
import { internetExtractTool } from './internetExtractTool.ts';
import { webSearchTool } from './webSearchTool.ts';
import { parseWebToolsSettings } from './webSettings.ts';
import type { WebToolsDeps } from './webToolsDeps.ts';

/**
 * Register the web tools in `profile` (default `demo`): `web_search` (the profile's corpus, or
 * SearXNG when the profile allows the network and an endpoint is configured) and
 * `internet_extract` (one page behind the SSRF guard, main text and extractive summary;
 * declares `allowNetwork`). Returns the names registered. Invalid settings throw a typed error
 * before anything is registered.
 *
 * @example
 * registerWebTools(registry, { retriever, memory, parseHtml: linkedomParser, transportFor: () => fetchTransport(), networkAllowed: (p) => policy.policyFor(p).allowNetwork });
 */
export function registerWebTools(registry: ToolRegistry, deps: WebToolsDeps, profile = 'demo'): string[] {
  const settings = parseWebToolsSettings(deps.settings);
  registry.register(profile, 'web_search', webSearchTool(deps, settings));
  registry.register(profile, 'internet_extract', internetExtractTool(deps, settings));
  return ['internet_extract', 'web_search'];
}
