import type { MemoryManager } from '../../memory/memoryManager.ts';
import type { HttpTransport } from '../../net/guardedFetch.ts';
import type { SsrfGuard } from '../../net/ssrfGuard.ts';
import type { HtmlParser } from './htmlExtract.ts';
import type { RagRetriever } from '../../rag/ragRetriever.ts';
import type { SummaryModel } from './modelSummary.ts';
import type { WebToolsSettingsInput } from './webSettings.ts';

/** What a host hands the web tools: its retriever and memory, how it reaches the network, and the profile policy. */
export interface WebToolsDeps {
  /** The profile's ingested corpus, searched by `web_search` by default. */
  retriever: RagRetriever;
  /** Where `internet_extract` keeps a page when asked to (`store: true`); absent, storing is refused. */
  memory?: MemoryManager;
  /**
   * The HTTP transport behind a guard: `nodeTransport(guard)` on Node (resolves, checks every
   * address and pins the connection), `fetchTransport()` on a Worker or in a browser (URL checks only).
   * Absent, the web tools never reach the network.
   */
  transportFor?: (guard: SsrfGuard) => HttpTransport;
  /** Turns fetched HTML into a document: `linkedomParser` (src/edge) on Node and Workers, a native `DOMParser` in a browser. */
  parseHtml: HtmlParser;
  /** Whether `profile` allows the network (the host's `PolicyEnforcer`); default: no profile does. */
  networkAllowed?: (profile: string) => boolean;
  /** SearXNG endpoint, allow-list and limits (`webSettingsFromEnv`). */
  settings?: WebToolsSettingsInput;
  /** The model `internet_extract` summarises pages with, when the host has one; absent, summaries are extractive. */
  summaryModel?: SummaryModel;
}
