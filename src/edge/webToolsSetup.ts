import { registerWebTools, type HttpTransport, type SsrfGuard, type WebToolsSettingsInput } from '../core/index.ts';
import type { Runtime } from '../api/runtime.ts';
import { linkedomParser } from './linkedomParser.ts';

/**
 * Register `web_search` and `internet_extract` in the runtime's default profile, over its
 * retriever and memory, with this host's transport (Node: resolved and pinned; Worker: `fetch`
 * with manual redirects) and linkedom for HTML. A profile may use the network when the
 * runtime's policy allows it. Hosts call this after `createRuntime`, so the API runtime — and
 * the in-browser runtime of the dashboard and widget — carry none of the web tools' code. With a
 * model configured, `internet_extract` summarises pages with it.
 */
export function registerHostWebTools(runtime: Runtime, transportFor: (guard: SsrfGuard) => HttpTransport, settings: WebToolsSettingsInput): string[] {
  const policy = runtime.policy;
  return registerWebTools(
    runtime.registry,
    {
      retriever: runtime.retriever,
      memory: runtime.memory,
      transportFor,
      parseHtml: linkedomParser,
      networkAllowed: (profile) => policy?.policyFor(profile).allowNetwork ?? false,
      settings,
      // With a model configured, pages are summarised by its first model (extractively when it fails).
      ...(runtime.models
        ? { summaryModel: { provider: runtime.models.models, model: runtime.models.settings.models[0]!, timeoutMs: runtime.models.settings.callTimeoutMs } }
        : {}),
    },
    runtime.config.defaultProfile,
  );
}
