import { registerWebTools, type HtmlParser, type HttpTransport, type SsrfGuard, type WebToolsSettingsInput } from '../core/index.ts';
import type { Runtime } from './runtime.ts';

/**
 * Register `web_search` and `internet_extract` in the runtime's default profile, over its
 * retriever and memory, with the host's transport and HTML parser: a profile may use the network
 * when the runtime's policy allows it, and with a model configured `internet_extract` summarises
 * pages with its first model. Every host registers them this way (Node, the Worker, the CLI, the
 * dashboard's local mode); only the transport, the parser and the settings differ.
 */
export function registerRuntimeWebTools(
  runtime: Runtime,
  transportFor: (guard: SsrfGuard) => HttpTransport,
  parseHtml: HtmlParser,
  settings: WebToolsSettingsInput,
): string[] {
  const { policy, models } = runtime;
  return registerWebTools(
    runtime.registry,
    {
      retriever: runtime.retriever,
      memory: runtime.memory,
      transportFor,
      parseHtml,
      networkAllowed: (profile) => policy?.policyFor(profile).allowNetwork ?? false,
      settings,
      ...(models ? { summaryModel: { provider: models.models, model: models.settings.models[0]!, timeoutMs: models.settings.callTimeoutMs } } : {}),
    },
    runtime.config.defaultProfile,
  );
}
