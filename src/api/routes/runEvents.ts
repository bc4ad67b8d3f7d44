import { createRoute } from '@hono/zod-openapi';
import * as z from 'zod';
import { streamSSE } from 'hono/streaming';
import { JournalPager, redact, type JournalEvent } from '../../core/index.ts';
import { createRouter } from '../errors.ts';
import type { Runtime } from '../runtime.ts';
import { RunParam, errorResponses } from '../schemas.ts';
import { loadRun } from './runs.ts';

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

/**
 * `GET /v1/runs/{runId}/events`: the run's journal events as server-sent events (`id` is the
 * event's `seq`, `event` its type, `data` the redacted event), from `Last-Event-ID` on, live
 * until the run completes, fails or is cancelled. A streamed model answer also arrives piece
 * by piece as `model_delta` events (no id, `{ runId, delta }`), before its `model_call_complete`.
 */
export function runEventRoutes(runtime: Runtime) {
  return createRouter().openapi(
    createRoute({
      method: 'get',
      path: '/v1/runs/{runId}/events',
      request: {
        params: RunParam,
        query: z.object({
          lastEventId: z.string().max(20).optional().openapi({ description: 'Same as the Last-Event-ID header, for clients that cannot set headers' }),
        }),
        headers: z.object({ 'last-event-id': z.string().max(20).optional() }),
      },
      responses: {
        200: {
          description: 'Journal events after Last-Event-ID, then live ones until the run ends',
          content: {
            'text/event-stream': {
              schema: z.string().openapi({ example: 'id: 4\nevent: tool_call_start\ndata: {"runId":"run_…","seq":4,"type":"tool_call_start",…}\n\n' }),
            },
          },
        },
        ...errorResponses,
      },
    }),
    async (c) => {
      const { runId } = c.req.valid('param');
      const summary = await loadRun(runtime, c, runId);
      const lastId = Number(c.req.header('last-event-id') ?? c.req.valid('query').lastEventId ?? -1);
      const after = Number.isInteger(lastId) ? lastId : -1;
      return streamSSE(c, async (stream) => {
        const queue: Array<JournalEvent | { delta: string }> = [];
        let wake: (() => void) | undefined;
        const unsubscribeEvents = runtime.orchestrator.subscribe((event) => {
          if (event.runId !== runId) return;
          queue.push(event);
          wake?.();
        });
        // Streamed model text, live only: the journal keeps each answer assembled.
        const unsubscribeDeltas = runtime.orchestrator.subscribeModelDeltas((deltaRunId, delta) => {
          if (deltaRunId !== runId) return;
          queue.push({ delta });
          wake?.();
        });
        const unsubscribe = () => (unsubscribeEvents(), unsubscribeDeltas());
        stream.onAbort(unsubscribe);
        let sent = after;
        const send = async (event: JournalEvent | { delta: string }) => {
          // A delta has no id: a reconnecting client resumes from the journal, where the answer is whole.
          if ('delta' in event) return stream.writeSSE({ event: 'model_delta', data: JSON.stringify({ runId, delta: event.delta }) });
          if (event.seq <= sent) return;
          sent = event.seq;
          await stream.writeSSE({ id: String(event.seq), event: event.type, data: JSON.stringify(redact(event)) });
        };
        const finished = async () => {
          const run = await runtime.store.getRun(runId);
          return !run || TERMINAL.has(run.status);
        };
        try {
          // What the client missed, read page by page up to the head the summary names (the first
          // events leave before the rest is read), then live events as they are appended.
          const from = Math.max(0, after + 1);
          const missed = runtime.store.readJournalPage
            ? (await JournalPager.open(runtime.store, runId, summary.head)).pages(from)
            : [await runtime.store.readJournal(runId, from)];
          for await (const page of missed) for (const event of page) await send(event);
          while (!stream.aborted && !(queue.length === 0 && (await finished()))) {
            if (queue.length === 0) await new Promise<void>((resolve) => ((wake = resolve), setTimeout(resolve, 1000)));
            wake = undefined;
            while (queue.length) await send(queue.shift()!);
            // Events appended by another process or isolate reach this stream through the store.
            for (const event of await runtime.store.readJournal(runId, sent + 1)) await send(event);
          }
          for (const event of await runtime.store.readJournal(runId, sent + 1)) await send(event);
        } finally {
          unsubscribe();
        }
      });
    },
  );
}
