import { createRoute } from '@hono/zod-openapi';
import * as z from 'zod';
import { streamSSE } from 'hono/streaming';
import { redact, toCugarError, type JsonValue } from '../../core/index.ts';
import { createRouter } from '../errors.ts';
import type { Runtime } from '../runtime.ts';
import { FactBody, FactSchema, IngestBody, IngestReportSchema, Profile, QueryBody, RagHitSchema, errorResponses, jsonBody, jsonResponse } from '../schemas.ts';
import { requireProfile } from '../security.ts';

/** Memory and RAG: ingest documents, query them, and read or store facts. */
export function memoryRoutes(runtime: Runtime) {
  return createRouter()
    .openapi(
      createRoute({
        method: 'post',
        path: '/v1/ingest',
        request: { body: jsonBody(IngestBody) },
        responses: {
          200: {
            description: 'What was ingested, or with Accept: text/event-stream, `progress` events and a final `done` (or `error`) event',
            content: {
              'application/json': { schema: IngestReportSchema },
              'text/event-stream': { schema: z.string().openapi({ example: 'event: progress\ndata: {"done":1,"total":2,"path":"a.md","chunks":3}\n\n' }) },
            },
          },
          ...errorResponses,
        },
      }),
      async (c) => {
        const { profile, documents } = c.req.valid('json');
        requireProfile(c, profile);
        if (c.req.header('accept')?.includes('text/event-stream')) {
          return streamSSE(c, async (stream) => {
            try {
              const report = await runtime.loader.ingest(profile, documents, {
                onProgress: (p) => void stream.writeSSE({ event: 'progress', data: JSON.stringify(redact(p)) }),
              });
              await stream.writeSSE({ event: 'done', data: JSON.stringify(redact(report)) });
            } catch (error) {
              const typed = toCugarError(error);
              await stream.writeSSE({ event: 'error', data: JSON.stringify({ error: { code: typed.code, message: redact(typed.message) } }) });
            }
          });
        }
        return c.json(redact(await runtime.loader.ingest(profile, documents)), 200);
      },
    )
    .openapi(
      createRoute({
        method: 'post',
        path: '/v1/query',
        request: { body: jsonBody(QueryBody) },
        responses: { 200: jsonResponse(z.object({ hits: z.array(RagHitSchema) }), 'Scored passages'), ...errorResponses },
      }),
      async (c) => {
        const { profile, query, k, mode } = c.req.valid('json');
        requireProfile(c, profile);
        return c.json({ hits: redact(await runtime.retriever.search(profile, query, { k, mode })) }, 200);
      },
    )
    .openapi(
      createRoute({
        method: 'get',
        path: '/v1/memory/facts',
        request: { query: z.object({ profile: Profile, namespace: z.string().optional(), limit: z.coerce.number().int().min(1).max(1000).default(50) }) },
        responses: { 200: jsonResponse(z.object({ facts: z.array(FactSchema), namespaces: z.array(z.string()) }), 'Facts, newest first'), ...errorResponses },
      }),
      async (c) => {
        const { profile, namespace, limit } = c.req.valid('query');
        requireProfile(c, profile);
        const facts = namespace ? await runtime.memory.query(profile, namespace, { limit }) : await runtime.memory.recallRecent(profile, { limit });
        return c.json({ facts: redact(facts), namespaces: await runtime.memory.namespaces(profile) }, 200);
      },
    )
    .openapi(
      createRoute({
        method: 'post',
        path: '/v1/memory/facts',
        request: { body: jsonBody(FactBody) },
        responses: { 200: jsonResponse(FactSchema, 'The stored fact'), ...errorResponses },
      }),
      async (c) => {
        const { profile, namespace, value, key } = c.req.valid('json');
        requireProfile(c, profile);
        // The memory manager checks that the value is plain JSON.
        return c.json(redact(await runtime.memory.storeFact(profile, namespace, value as JsonValue, key === undefined ? {} : { key })), 200);
      },
    )
    .openapi(
      createRoute({
        method: 'get',
        path: '/v1/documents',
        request: { query: z.object({ profile: Profile }) },
        responses: { 200: jsonResponse(z.object({ documents: z.array(DocumentInfoSchema) }), 'The ingested documents, by path'), ...errorResponses },
      }),
      async (c) => {
        const { profile } = c.req.valid('query');
        requireProfile(c, profile);
        return c.json({ documents: redact(await runtime.documents.list(profile)) }, 200);
      },
    )
    .openapi(
      createRoute({
        method: 'delete',
        path: '/v1/documents',
        request: { query: z.object({ profile: Profile, path: z.string().min(1).max(1024) }) },
        responses: {
          200: jsonResponse(
            z.object({ path: z.string(), chunks: z.number().int() }),
            'The document is gone from retrieval; journals keep what runs read of it',
          ),
          ...errorResponses,
        },
      }),
      async (c) => {
        const { profile, path } = c.req.valid('query');
        requireProfile(c, profile);
        return c.json(await runtime.documents.remove(profile, path), 200);
      },
    )
    .openapi(
      createRoute({
        method: 'get',
        path: '/v1/memory/notes',
        request: {
          query: z.object({
            profile: Profile,
            q: z.string().min(1).max(2000).optional().openapi({ description: 'Most similar first; newest first without it' }),
            limit: z.coerce.number().int().min(1).max(1000).default(50),
          }),
        },
        responses: {
          200: jsonResponse(z.object({ notes: z.array(NoteInfoSchema) }), 'Notes kept in memory (by remember, or tools that store what they read)'),
          ...errorResponses,
        },
      }),
      async (c) => {
        const { profile, q, limit } = c.req.valid('query');
        requireProfile(c, profile);
        if (q === undefined) return c.json({ notes: redact(await runtime.documents.notes(profile, { limit })) }, 200);
        // Similar notes: the memory's semantic search, over notes only (document chunks have paths; runs' reflections a namespace).
        const hits = (await runtime.memory.semanticSearch(profile, q, Math.min(limit * 4, 1000))).filter(
          (hit) => hit.metadata['path'] === undefined && hit.metadata['namespace'] !== 'reflection',
        );
        const notes = hits.slice(0, limit).map((hit) => ({
          id: hit.id,
          text: hit.text,
          score: Math.round(hit.score * 1000) / 1000,
          ...(typeof hit.metadata['source'] === 'string' ? { source: hit.metadata['source'] } : {}),
          ...(typeof hit.metadata['timestamp'] === 'string' ? { timestamp: hit.metadata['timestamp'] } : {}),
        }));
        return c.json({ notes: redact(notes) }, 200);
      },
    )
    .openapi(
      createRoute({
        method: 'delete',
        path: '/v1/memory/notes/{noteId}',
        request: { params: z.object({ noteId: z.string().min(1).max(256) }), query: z.object({ profile: Profile }) },
        responses: { 200: jsonResponse(z.object({ id: z.string() }), 'The note is forgotten'), ...errorResponses },
      }),
      async (c) => {
        const { profile } = c.req.valid('query');
        requireProfile(c, profile);
        return c.json(await runtime.documents.removeNote(profile, c.req.valid('param').noteId), 200);
      },
    );
}

const DocumentInfoSchema = z.object({ path: z.string(), chunks: z.number().int(), characters: z.number().int() }).openapi('Document');
const NoteInfoSchema = z
  .object({
    id: z.string(),
    text: z.string(),
    score: z.number().optional(),
    source: z.string().optional(),
    timestamp: z.string().optional(),
    traceId: z.string().optional(),
  })
  .openapi('Note');
