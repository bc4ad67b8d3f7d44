import * as z from 'zod';
import { NotFoundError } from '../errors.ts';
import type { MemoryManager } from '../memory/memoryManager.ts';
import type { RagRetriever } from '../rag/ragRetriever.ts';
import { defineTool } from './tool.ts';
import type { ToolRegistry } from './toolRegistry.ts';

/**
 * Register the memory tools in `profile` (default `demo`): `remember` (keep a note for
 * semantic recall), `search_memory` (semantic search of notes), `rag_query` (hybrid search
 * of ingested documents) and `send_message` (queue a message in the profile's `outbox`
 * facts, only after a person approves it). Each reads and writes only the profile of the
 * call's context.
 */
export function registerMemoryTools(registry: ToolRegistry, deps: { memory: MemoryManager; retriever: RagRetriever }, profile = 'demo'): string[] {
  registry.register(
    profile,
    'remember',
    defineTool({
      description: 'Remember, note or save a piece of information for later recall.',
      parameters: z.object({ text: z.string().min(1).max(10_000).describe('what to remember') }),
      cost: 0.2,
      latency: 5,
      capabilities: ['memory'],
      handler: async ({ text }, context) => ({
        id: await deps.memory.storeText(context.profile, text, { source: 'remember', traceId: context.traceId }, `note:${context.idempotencyKey}`),
        remembered: text,
      }),
      // Keyed by the idempotency key, so a re-run rewrites the same note instead of adding one.
      idempotent: true,
    }),
  );
  registry.register(
    profile,
    'search_memory',
    defineTool({
      description: 'Search memory: recall remembered notes similar to a question.',
      parameters: z.object({ query: z.string().min(1).max(2_000), k: z.number().int().min(1).max(20).default(3) }),
      cost: 0.1,
      latency: 5,
      capabilities: ['memory'],
      idempotent: true,
      handler: async ({ query, k }, context) =>
        (await deps.memory.semanticSearch(context.profile, query, k)).map((hit) => ({ text: hit.text, score: Math.round(hit.score * 1000) / 1000 })),
    }),
  );
  registry.register(
    profile,
    'rag_query',
    defineTool({
      description: 'Answer from documents: find the passages of ingested documents and files that match a question.',
      parameters: z.object({ query: z.string().min(1).max(2_000), k: z.number().int().min(1).max(20).default(3) }),
      cost: 0.3,
      latency: 10,
      capabilities: ['memory'],
      idempotent: true,
      handler: async ({ query, k }, context) => {
        const hits = await deps.retriever.search(context.profile, query, { k });
        // Nothing to search is not an answer: say so, rather than answer [] as if nothing matched.
        if (hits.length === 0 && (await deps.retriever.chunkCount(context.profile)) === 0)
          throw new NotFoundError(`profile ${context.profile} has no ingested documents to search: ingest some first (the Memory page, or POST /v1/ingest)`, {
            code: 'no_documents',
          });
        return hits.map(({ path, chunk, score, snippet }) => ({ path, chunk, score, snippet }));
      },
    }),
  );
  registry.register(
    profile,
    'send_message',
    defineTool({
      description: 'Send a message to a recipient: it is queued in the outbox once a person approves it.',
      parameters: z.object({ to: z.string().min(1).max(200).describe('recipient'), text: z.string().min(1).max(10_000).describe('message text') }),
      cost: 0.5,
      latency: 5,
      capabilities: ['memory'],
      requiresApproval: true,
      handler: async ({ to, text }, context) => {
        const fact = await deps.memory.storeFact(context.profile, 'outbox', { to, text, runId: context.runId }, { key: context.idempotencyKey });
        return { queued: true, to, id: fact.id };
      },
    }),
  );
  return ['rag_query', 'remember', 'search_memory', 'send_message'];
}
