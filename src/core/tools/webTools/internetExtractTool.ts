import * as z from 'zod';
import { PolicyViolationError, ValidationError } from '../../errors.ts';
import { MAX_MEMORY_TEXT } from '../../memory/memoryManager.ts';
import { MAX_URL_LENGTH, SsrfGuard } from '../../net/ssrfGuard.ts';
import { guardedFetch } from '../../net/guardedFetch.ts';
import { defineTool, type ToolSpec } from '../tool.ts';
import { summarizeExtractive } from './extractiveSummary.ts';
import { extractMainText } from './htmlExtract.ts';
import { summarizeWithModel } from './modelSummary.ts';
import type { WebToolsSettings } from './webSettings.ts';
import type { WebToolsDeps } from './webToolsDeps.ts';

/** The media types `internet_extract` reads. */
export const EXTRACT_CONTENT_TYPES = ['text/html', 'application/xhtml+xml', 'text/plain'] as const;

/** Inputs of `internet_extract`. */
export const InternetExtractInputSchema = z.object({
  url: z.string().trim().min(1).max(MAX_URL_LENGTH).describe('the http or https URL of the page'),
  sentences: z.number().int().min(1).max(10).default(3).describe('sentences in the summary'),
  maxChars: z.number().int().min(200).max(100_000).default(20_000).describe('longest main text returned'),
  store: z.boolean().default(false).describe('also keep the page’s text in the profile’s memory'),
});

/** What `internet_extract` returns. */
export interface InternetExtractOutput {
  /** The URL that answered, after redirects. */
  url: string;
  title: string;
  /** The page's main text, cut at `maxChars`. */
  text: string;
  truncated: boolean;
  /** Written by the host's model when it has one (`summarySource: 'model'`), else sentences of the page itself. */
  summary: string;
  summarySource: 'model' | 'extractive';
  /** The model asked for the summary, when the host has one. */
  summaryModel?: string;
  /** Why the model's summary was not used (a typed error code), when it was asked and failed. */
  summaryError?: string;
  words: number;
  bytes: number;
  contentType: string;
  redirects: string[];
  /** The memory id of the stored text, when `store` was asked. */
  stored?: string;
}

/**
 * The `internet_extract` tool: fetch one page behind the SSRF guard (every redirect re-checked;
 * size, time and content-type limits), keep its main text, summarise it extractively, and
 * optionally store the text in the profile's memory. Declares `allowNetwork`, so the policy
 * refuses it in profiles without the network before it runs.
 */
export function internetExtractTool(deps: WebToolsDeps, settings: WebToolsSettings): ToolSpec<typeof InternetExtractInputSchema> {
  const guard = new SsrfGuard(settings.allow);
  return defineTool({
    description: 'Fetch a web page by its URL, extract its main text without menus or ads, and summarise it.',
    parameters: InternetExtractInputSchema,
    cost: 1,
    latency: 1500,
    capabilities: ['net:http', 'text'],
    allowNetwork: true,
    idempotent: true,
    handler: async ({ url, sentences, maxChars, store }, context): Promise<InternetExtractOutput> => {
      // The policy checked this already when the orchestrator runs the tool; a direct call is checked here too.
      if (!(deps.networkAllowed?.(context.profile) ?? false) || !deps.transportFor) {
        throw new PolicyViolationError(`internet_extract needs the network, which profile "${context.profile}" does not allow on this host`, {
          code: 'network_not_allowed',
          details: { profile: context.profile, tool: 'internet_extract' },
        });
      }
      if (store && !deps.memory) throw new ValidationError('this host gives the web tools no memory to store pages in', { code: 'memory_unavailable' });
      const fetched = await guardedFetch(url, {
        guard,
        transport: deps.transportFor(guard),
        limits: { timeoutMs: settings.timeoutMs, maxBytes: settings.maxBytes, maxRedirects: settings.maxRedirects, accept: EXTRACT_CONTENT_TYPES },
        signal: context.signal,
      });
      const page =
        fetched.contentType === 'text/plain'
          ? { title: '', text: fetched.text.replace(/\r\n?/g, '\n').trim() }
          : await extractMainText(fetched.text, deps.parseHtml);
      const extractive = summarizeExtractive(page.text, { count: sentences, title: page.title }).summary;
      const asked =
        deps.summaryModel && page.text.trim() !== '' ? await summarizeWithModel(deps.summaryModel, page, sentences, context.signal, Date.now) : undefined;
      const summary = asked?.source === 'model' ? asked.summary : extractive;
      const truncated = page.text.length > maxChars;
      const text = truncated ? page.text.slice(0, maxChars) : page.text;
      let stored: string | undefined;
      if (store && deps.memory && page.text.trim() !== '') {
        stored = await deps.memory.storeText(
          context.profile,
          page.text.slice(0, MAX_MEMORY_TEXT),
          { source: 'internet_extract', url: fetched.url, title: page.title, traceId: context.traceId },
          `page:${context.idempotencyKey}`,
        );
      }
      return {
        url: fetched.url,
        title: page.title,
        text,
        truncated,
        summary,
        summarySource: asked?.source ?? 'extractive',
        ...(asked?.model ? { summaryModel: asked.model } : {}),
        ...(asked?.source === 'extractive' && asked.error ? { summaryError: asked.error } : {}),
        words: page.text === '' ? 0 : page.text.split(/\s+/).length,
        bytes: fetched.bytes,
        contentType: fetched.contentType,
        redirects: fetched.redirects,
        ...(stored ? { stored } : {}),
      };
    },
  });
}
