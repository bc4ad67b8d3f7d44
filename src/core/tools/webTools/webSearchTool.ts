import * as z from 'zod';
import { PolicyViolationError, ValidationError } from '../../errors.ts';
import { defineTool, type ToolSpec } from '../tool.ts';
import { searchSearxng, type WebSearchResult } from './searxng.ts';
import type { WebToolsDeps } from './webToolsDeps.ts';
import type { WebToolsSettings } from './webSettings.ts';

/** Inputs of `web_search`. */
export const WebSearchInputSchema = z.object({
  query: z.string().trim().min(1).max(500).describe('what to search for'),
  k: z.number().int().min(1).max(20).default(5).describe('how many results'),
  source: z
    .enum(['auto', 'corpus', 'web'])
    .default('auto')
    .describe(
      'corpus: the profile’s ingested documents; web: the configured SearXNG engine; auto: the web when the profile allows it and an engine is configured',
    ),
});

/** What `web_search` returns. */
export interface WebSearchOutput {
  source: 'corpus' | 'searxng';
  query: string;
  results: WebSearchResult[];
}

const basename = (path: string) => path.split(/[\\/]/).filter(Boolean).at(-1) ?? path;

/**
 * The `web_search` tool: structured results `{ title, url | path, snippet, score }`. By default
 * over the profile's own ingested corpus (the RAG retriever, hybrid ranking); over SearXNG's
 * JSON API when the profile allows the network and an endpoint is configured. It declares no
 * network use itself, so it runs in every profile; the web branch checks the profile's policy.
 */
export function webSearchTool(deps: WebToolsDeps, settings: WebToolsSettings): ToolSpec<typeof WebSearchInputSchema> {
  return defineTool({
    description:
      'Web search: find pages or documents about a topic and list their titles, links or paths, snippets and scores (the profile’s documents, or the web when allowed).',
    parameters: WebSearchInputSchema,
    cost: 0.3,
    latency: 300,
    capabilities: ['search'],
    idempotent: true,
    handler: async ({ query, k, source }, context): Promise<WebSearchOutput> => {
      const online = deps.networkAllowed?.(context.profile) ?? false;
      const engine = settings.searxngUrl && deps.transportFor ? { url: settings.searxngUrl, transportFor: deps.transportFor } : undefined;
      if (source === 'web' || (source === 'auto' && online && engine)) {
        if (!online) {
          throw new PolicyViolationError(`web search needs the network, which profile "${context.profile}" does not allow`, {
            code: 'network_not_allowed',
            details: { profile: context.profile, tool: 'web_search' },
          });
        }
        if (!engine) throw new ValidationError('no search engine is configured on this host (CUGAR_SEARXNG_URL)', { code: 'search_not_configured' });
        const results = await searchSearxng(engine.url, query, {
          k: Math.min(k, settings.maxResults),
          transportFor: engine.transportFor,
          timeoutMs: settings.timeoutMs,
          maxBytes: settings.maxBytes,
          signal: context.signal,
        });
        return { source: 'searxng', query, results };
      }
      const hits = await deps.retriever.search(context.profile, query, { k });
      return { source: 'corpus', query, results: hits.map((hit) => ({ title: basename(hit.path), path: hit.path, snippet: hit.snippet, score: hit.score })) };
    },
  });
}
