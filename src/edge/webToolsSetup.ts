import type { HttpTransport, SsrfGuard, WebToolsSettingsInput } from '../core/index.ts';
import type { Runtime } from '../api/runtime.ts';
import { registerRuntimeWebTools } from '../api/webTools.ts';
import { linkedomParser } from './linkedomParser.ts';

/**
 * Register `web_search` and `internet_extract` on a server host (`registerRuntimeWebTools`),
 * with this host's transport (Node: resolved and pinned; Worker: `fetch` with manual redirects)
 * and linkedom for HTML. Hosts call this after `createRuntime`, so the API runtime — and the
 * widget's in-page runtime — carry none of linkedom's code.
 */
export function registerHostWebTools(runtime: Runtime, transportFor: (guard: SsrfGuard) => HttpTransport, settings: WebToolsSettingsInput): string[] {
  return registerRuntimeWebTools(runtime, transportFor, linkedomParser, settings);
}
