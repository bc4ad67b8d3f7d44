// The web tools in the dashboard's local mode, loaded as a chunk of their own: `web_search` over
// the corpus ingested in this tab (and the tab's SearXNG, when set and the profile may use the
// network), and `internet_extract` for profiles this tab lets use the network (the Network page).
// A tab cannot resolve names or see the address it connects to: the SSRF guard checks each URL's
// spelling (schemes, `localhost`, private, loopback, link-local and metadata address literals),
// the browser's CORS decides which pages answer at all, and a redirect is refused because the
// browser hides its target (`redirect_not_visible`).
import { fetchTransport, webSettingsFromEnv, type WebToolsSettings } from '../../core/index.ts';
import type { Runtime } from '../../api/runtime.ts';
import { registerRuntimeWebTools } from '../../api/webTools.ts';

/** Where this tab keeps its network settings (the Network page). */
export const NETWORK_PROFILES_KEY = 'cugar.network.profiles';
export const NETWORK_ALLOW_KEY = 'cugar.network.allow';
export const SEARXNG_URL_KEY = 'cugar.network.searxng';

/** The profiles this tab lets use the network, from its storage. */
export function networkProfiles(): string[] {
  return (localStorage.getItem(NETWORK_PROFILES_KEY) ?? '')
    .split(',')
    .map((profile) => profile.trim())
    .filter(Boolean);
}

/** The tab's web tool settings (allow-list, SearXNG); invalid stored values throw a typed error. */
export function localWebSettings(): WebToolsSettings {
  return webSettingsFromEnv({
    CUGAR_NET_ALLOW: localStorage.getItem(NETWORK_ALLOW_KEY) ?? undefined,
    CUGAR_SEARXNG_URL: localStorage.getItem(SEARXNG_URL_KEY) ?? undefined,
  });
}

/** Register the web tools in the tab's default profile, with `fetch` and the browser's own HTML parser. */
export function registerLocalWebTools(runtime: Runtime): string[] {
  return registerRuntimeWebTools(
    runtime,
    () => fetchTransport(),
    (html) => new DOMParser().parseFromString(html, 'text/html'),
    localWebSettings(),
  );
}
