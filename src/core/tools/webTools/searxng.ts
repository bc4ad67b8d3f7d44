import ipaddr from 'ipaddr.js';
import * as z from 'zod';
import { CugarError } from '../../errors.ts';
import { guardedFetch, type HttpTransport } from '../../net/guardedFetch.ts';
import { FetchFailedError } from '../../net/netErrors.ts';
import { SsrfGuard } from '../../net/ssrfGuard.ts';

/** One search result, from the corpus or from the web. */
export interface WebSearchResult {
  title: string;
  /** The page, for a web result. */
  url?: string;
  /** The ingested document, for a corpus result. */
  path?: string;
  snippet: string;
  /** Higher is better; comparable only within one answer. */
  score: number;
}

/** The part of SearXNG's JSON answer the tool reads; other fields are ignored. */
const SearxngAnswerSchema = z.object({
  results: z
    .array(
      z.object({
        url: z.string().max(4096),
        title: z.string().max(2000).nullish(),
        content: z.string().max(20_000).nullish(),
        score: z.number().nullish(),
      }),
    )
    .max(1000),
});

const SNIPPET_CHARS = 300;

/** A guard that trusts only the configured endpoint: the operator chose it, so it may be on loopback. */
function endpointGuard(endpoint: URL): SsrfGuard {
  const host = endpoint.hostname.replace(/^\[|\]$/g, '');
  return new SsrfGuard(ipaddr.isValid(host) ? { cidrs: [host] } : { hosts: [host] });
}

/**
 * Query SearXNG's JSON API: `GET {endpoint}/search?q=…&format=json`, through `transportFor` with
 * the fetch limits, the answer validated with zod. Only `http(s)` result URLs are kept, at most
 * `k`, each with a snippet of up to 300 characters and SearXNG's score (or `1/(rank+1)` when it
 * gives none). Failures are a {@link FetchFailedError} `search_failed` naming the cause.
 */
export async function searchSearxng(
  endpoint: string,
  query: string,
  options: { k: number; transportFor: (guard: SsrfGuard) => HttpTransport; timeoutMs: number; maxBytes: number; signal?: AbortSignal },
): Promise<WebSearchResult[]> {
  const base = new URL(endpoint);
  const url = new URL(`${base.pathname.replace(/\/+$/, '')}/search`, base);
  url.searchParams.set('q', query);
  url.searchParams.set('format', 'json');
  const guard = endpointGuard(base);
  let body: string;
  try {
    const fetched = await guardedFetch(url.href, {
      guard,
      transport: options.transportFor(guard),
      limits: { timeoutMs: options.timeoutMs, maxBytes: options.maxBytes, maxRedirects: 2, accept: ['application/json'] },
      ...(options.signal ? { signal: options.signal } : {}),
    });
    body = fetched.text;
  } catch (error) {
    const failure = error instanceof CugarError ? error : undefined;
    throw new FetchFailedError(`the search engine at ${base.host} failed: ${failure?.message ?? String(error)}`, {
      code: 'search_failed',
      retryable: failure?.retryable ?? true,
      cause: error,
      details: { endpoint: base.origin, ...(failure ? { reason: failure.code } : {}) },
    });
  }
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch (cause) {
    throw new FetchFailedError(`the search engine at ${base.host} did not answer JSON (is format=json enabled in its settings?)`, {
      code: 'search_failed',
      retryable: false,
      cause,
    });
  }
  const parsed = SearxngAnswerSchema.safeParse(json);
  if (!parsed.success) {
    throw new FetchFailedError(`the search engine at ${base.host} answered JSON without a valid results list`, {
      code: 'search_failed',
      retryable: false,
      details: { issues: parsed.error.issues.slice(0, 3).map((issue) => `${issue.path.join('.')}: ${issue.message}`) },
    });
  }
  return parsed.data.results
    .filter((result) => /^https?:\/\//i.test(result.url))
    .slice(0, options.k)
    .map((result, rank) => {
      const content = (result.content ?? '').replace(/\s+/g, ' ').trim();
      return {
        title: (result.title ?? '').trim() || result.url,
        url: result.url,
        snippet: content.length > SNIPPET_CHARS ? `${content.slice(0, SNIPPET_CHARS - 1)}…` : content,
        score: Math.round((result.score ?? 1 / (rank + 1)) * 1e6) / 1e6,
      };
    });
}
