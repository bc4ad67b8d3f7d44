import { createRoute } from '@hono/zod-openapi';
import * as z from 'zod';
import type { Context } from 'hono';
import { JournalPager, derivationAt, redact, redactText, traceRecordPages, type RunOutcome } from '../../core/index.ts';
import { journalView, otlpView, redactedListView } from '../largeViews.ts';
import { FEEDBACK_FILTERS, feedbackByRun, feedbackMatches, feedbackOf } from '../feedback.ts';
import { RUN_SORTS, pageRuns } from '../runPages.ts';
import { HttpError, createRouter } from '../errors.ts';
import { waitUntilOf } from '../executionContext.ts';
import type { KeepAlive, RunStarter, StartedRun } from '../runStarter.ts';
import type { Runtime } from '../runtime.ts';
import {
  JournalEventResponseSchema,
  OtlpExportSchema,
  Profile,
  RunAcceptedSchema,
  RunBody,
  RunOutcomeSchema,
  RunParam,
  RunSummarySchema,
  TraceRecordSchema,
  errorResponse,
  errorResponses,
  idempotencyMismatch,
  jsonBody,
  jsonResponse,
} from '../schemas.ts';
import { RAW_JOURNAL_SCOPE, hasScope, mayUse, principalOf, requireProfile } from '../security.ts';

/** A run outcome as the API shows it: redacted. */
export function outcomeBody(outcome: RunOutcome): RunOutcome {
  return redact({ ...outcome });
}

/** Where a run and its event stream live. */
export function runLinks(runId: string): { self: string; events: string } {
  const self = `/v1/runs/${encodeURIComponent(runId)}`;
  return { self, events: `${self}/events` };
}

/**
 * The run's summary, if the caller may see its profile. A run of another profile answers
 * exactly as a run that does not exist (404), so ids cannot be probed for what exists.
 */
export async function loadRun(runtime: Runtime, c: Context, runId: string) {
  const summary = await runtime.store.getRun(runId);
  if (!summary || !mayUse(principalOf(c), summary.profile)) throw new HttpError(404, 'unknown_run', `no run ${runId}`);
  return summary;
}

/** The seconds a caller asked to wait, from `?wait=N` or `Prefer: wait=N` (RFC 7240); 0 when neither. */
function requestedWait(c: Context, query: number | undefined): number {
  if (query !== undefined) return query;
  const match = /(?:^|[,;\s])wait=(\d+)/i.exec(c.req.header('prefer') ?? '');
  return match ? Number(match[1]) : 0;
}

/** `outcome` if it settles within `ms`, else undefined. */
async function settleWithin(outcome: Promise<RunOutcome>, ms: number): Promise<RunOutcome | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([outcome, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** The outcome of a run driven elsewhere (another process, or before a restart), polled from the store until it leaves `running` or `ms` pass. */
async function pollWithin(runtime: Runtime, runId: string, ms: number): Promise<RunOutcome | undefined> {
  const deadline = Date.now() + ms;
  for (;;) {
    const outcome = await runtime.orchestrator.getRun(runId);
    if (outcome.status !== 'running') return outcome;
    const left = deadline - Date.now();
    if (left <= 0) return undefined;
    await new Promise((resolve) => setTimeout(resolve, Math.min(200, left)));
  }
}

const JournalQuery = z.object({
  format: z.enum(['json', 'ndjson']).default('json'),
  raw: z
    .enum(['true', 'false'])
    .default('false')
    .transform((value) => value === 'true')
    .openapi({ description: 'The journal as recorded, secrets included (needs the `journal:raw` scope); default a redacted, re-sealed derivation' }),
});

const StartQuery = z.object({
  wait: z.coerce
    .number()
    .int()
    .min(0)
    .optional()
    .openapi({ description: 'Seconds to wait for the run to complete, fail or pause before answering 202 (also `Prefer: wait=N`); capped' }),
});

/**
 * A run's outcome outlives the request that started it: on a Worker only `waitUntil` keeps
 * the isolate alive for it (the Node host and the browser tab keep running anyway, see
 * `PROCESS_LIFETIME_CONTEXT`); a failure is logged, redacted, since nobody awaits it.
 */
function keepAliveFor(c: Context, log: (line: string) => void, exporter?: { flush(): Promise<void> }): KeepAlive {
  const waitUntil = waitUntilOf(c);
  return (runId, outcome) => {
    const reported = outcome.catch((error: unknown) =>
      log(`run ${runId} stopped with an error: ${redactText(error instanceof Error ? error.message : String(error))}`),
    );
    // On a Worker the isolate may stop once these settle: the run's spans are sent before.
    waitUntil?.(exporter ? reported.then(() => exporter.flush()) : reported);
  };
}

/**
 * Runs: start one (`202 Accepted` with its events URL, or its outcome when the caller asks to
 * wait), list them, and read one as an outcome, a journal, a trace or OTLP; resume and cancel.
 * `maxWaitSeconds` caps `Prefer: wait` below the request timeout.
 */
export function runRoutes(runtime: Runtime, starter: RunStarter, { maxWaitSeconds, log }: { maxWaitSeconds: number; log: (line: string) => void }) {
  /** What to answer for a started run: its outcome if it settled within the wait, else 202. */
  const settle = async (started: StartedRun, waitSeconds: number): Promise<RunOutcome | undefined> => {
    if (!started.outcome) {
      // Found, not started here: a duplicate sees the run as it stands.
      const current = await runtime.orchestrator.getRun(started.runId);
      if (current.status !== 'running' || waitSeconds === 0) return current.status === 'running' ? undefined : current;
      return pollWithin(runtime, started.runId, waitSeconds * 1000);
    }
    return waitSeconds > 0 ? settleWithin(started.outcome, waitSeconds * 1000) : undefined;
  };

  return createRouter()
    .openapi(
      createRoute({
        method: 'post',
        path: '/v1/runs',
        request: {
          body: jsonBody(RunBody),
          query: StartQuery,
          headers: z.object({
            'idempotency-key': z.string().min(1).max(200).optional(),
            prefer: z.string().max(200).optional().openapi({ description: '`wait=N`: wait up to N seconds for the outcome', example: 'wait=10' }),
          }),
        },
        responses: {
          200: jsonResponse(
            RunOutcomeSchema,
            'The run completed, failed or paused within the requested wait (or, for a repeated Idempotency-Key, already had)',
          ),
          202: { ...jsonResponse(RunAcceptedSchema, 'The run is durable and running; follow links.events'), headers: z.object({ Location: z.string() }) },
          ...errorResponses,
          422: idempotencyMismatch,
        },
      }),
      async (c) => {
        const request = c.req.valid('json');
        requireProfile(c, request.profile);
        const started = await starter.start(principalOf(c), request, c.req.header('idempotency-key'), keepAliveFor(c, log, runtime.exporter));
        const wait = Math.min(requestedWait(c, c.req.valid('query').wait), maxWaitSeconds);
        const outcome = await settle(started, wait);
        if (wait > 0) c.header('Preference-Applied', `wait=${wait}`);
        if (outcome) return c.json(outcomeBody(outcome), 200);
        const links = runLinks(started.runId);
        c.header('Location', links.self);
        return c.json({ runId: started.runId, traceId: started.traceId, status: 'running' as const, links }, 202);
      },
    )
    .openapi(
      createRoute({
        method: 'get',
        path: '/v1/runs',
        request: {
          query: z.object({
            status: z.enum(['running', 'paused', 'completed', 'failed', 'cancelled']).optional(),
            profile: Profile.optional(),
            tool: z.string().min(1).max(200).optional().openapi({ description: 'Only runs whose plans call this tool' }),
            since: z.coerce.number().int().min(0).optional().openapi({ description: 'Only runs created at or after this time (ms since the epoch)' }),
            until: z.coerce.number().int().min(0).optional().openapi({ description: 'Only runs created before this time (ms since the epoch)' }),
            q: z.string().min(1).max(500).optional().openapi({ description: 'Only runs whose goal or id contains this (case-insensitive)' }),
            feedback: z
              .enum(FEEDBACK_FILTERS)
              .optional()
              .openapi({ description: 'Only runs whose feedback is on the whole positive or negative, runs with any, or runs with none' }),
            sort: z.enum(RUN_SORTS).default('created').openapi({ description: 'created, updated, duration (updated − created), cost or tokens' }),
            order: z.enum(['desc', 'asc']).default('desc'),
            cursor: z.string().min(1).max(2048).optional().openapi({ description: 'The nextCursor of the page before' }),
            limit: z.coerce.number().int().min(1).max(1000).default(100),
          }),
        },
        responses: {
          200: jsonResponse(
            z.object({ runs: z.array(RunSummarySchema), nextCursor: z.string().optional().openapi({ description: 'Absent on the last page' }) }),
            'A page of runs, newest first unless sorted otherwise',
          ),
          ...errorResponses,
        },
      }),
      async (c) => {
        const { status, profile, tool, since, until, limit, q, sort, order, cursor, feedback } = c.req.valid('query');
        const needle = q?.toLowerCase();
        if (profile) requireProfile(c, profile);
        const principal = principalOf(c);
        const runs = (await runtime.store.listRuns({ ...(status ? { status } : {}), ...(profile ? { profile } : {}) })).filter(
          (r) =>
            mayUse(principal, r.profile) &&
            (!tool || (r.tools ?? []).includes(tool)) &&
            (since === undefined || r.createdAt >= since) &&
            (until === undefined || r.createdAt < until) &&
            // The goal as the list shows it: a search is no oracle for a redacted secret.
            (!needle || redactText(r.goal).toLowerCase().includes(needle) || r.runId.toLowerCase().includes(needle)),
        );
        // Feedback is kept per profile: read it for the profiles of the runs listed.
        let scored = runs;
        if (feedback) {
          const totals = new Map<string, number>();
          for (const name of new Set(runs.map((r) => r.profile)))
            for (const [id, total] of feedbackByRun(await feedbackOf(runtime.memory, name))) totals.set(id, total);
          scored = runs.filter((r) => feedbackMatches(feedback, totals.get(r.runId)));
        }
        const page = pageRuns(scored, { sort, order, limit, cursor });
        return c.json({ ...page, runs: redact(page.runs) }, 200);
      },
    )
    .openapi(
      createRoute({
        method: 'get',
        path: '/v1/runs/{runId}',
        request: { params: RunParam },
        responses: { 200: jsonResponse(RunOutcomeSchema, 'The run as its journal stands'), ...errorResponses },
      }),
      async (c) => {
        const { runId } = c.req.valid('param');
        await loadRun(runtime, c, runId);
        return c.json(outcomeBody(await runtime.orchestrator.getRun(runId)), 200);
      },
    )
    .openapi(
      createRoute({
        method: 'delete',
        path: '/v1/runs/{runId}',
        request: { params: RunParam },
        responses: {
          200: jsonResponse(
            z.object({ runId: z.string(), head: z.object({ seq: z.number().int(), hash: z.string() }) }),
            "The run's journal is deleted; the signed log of heads keeps its final head (a pruned entry), so audits show it deleted on purpose and an export made before still verifies against it",
          ),
          ...errorResponses,
          501: errorResponse('This host keeps every journal (only the Node host deletes runs)'),
        },
      }),
      async (c) => {
        const { runId } = c.req.valid('param');
        await loadRun(runtime, c, runId);
        const store = runtime.store as { pruneRun?: (runId: string) => { seq: number; hash: string } };
        if (typeof store.pruneRun !== 'function')
          throw new HttpError(501, 'unsupported_host', 'this host keeps every journal: deleting a run is offered by the Node host');
        const entry = store.pruneRun(runId);
        return c.json({ runId, head: { seq: entry.seq, hash: entry.hash } }, 200);
      },
    )
    .openapi(
      createRoute({
        method: 'get',
        path: '/v1/runs/{runId}/journal',
        request: { params: RunParam, query: JournalQuery },
        responses: {
          200: {
            description:
              'The hash-chained journal, redacted: a derived journal whose first event names the source head (`data.derivedFrom`) and that verifies on its own. ' +
              '`raw=true` (tokens with the `journal:raw` scope) gives the journal as recorded. JSON, or one event per line with format=ndjson.',
            content: {
              'application/json': { schema: z.object({ events: z.array(JournalEventResponseSchema) }) },
              'application/x-ndjson': { schema: z.string() },
            },
          },
          ...errorResponses,
        },
      }),
      async (c) => {
        const { runId } = c.req.valid('param');
        const { format, raw } = c.req.valid('query');
        const summary = await loadRun(runtime, c, runId);
        if (raw && !hasScope(principalOf(c), RAW_JOURNAL_SCOPE))
          throw new HttpError(403, 'raw_export_forbidden', `a raw journal holds secrets verbatim: this token needs the "${RAW_JOURNAL_SCOPE}" scope`);
        // Read page by page up to the head the summary names (largeViews.ts): the first bytes leave before the rest is read.
        const journal = await JournalPager.open(runtime.store, runId, summary.head);
        const head = journal.head;
        // The summary's signature attests the head it was made at; it names the source only if that is still the head.
        const signature = summary.signature && head && summary.head.seq === head.seq && summary.head.hash === head.hash ? summary.signature : undefined;
        c.header('x-cugar-journal', raw ? 'raw' : 'redacted');
        // The one cast in the routes: @hono/zod-openapi types a streamed body as no JSON response.
        // Large journals are streamed, derived slice by slice (largeViews.ts).
        return journalView(c, journal, format, raw || !head ? undefined : derivationAt(runId, head, signature)) as never;
      },
    )
    .openapi(
      createRoute({
        method: 'get',
        path: '/v1/runs/{runId}/trace',
        request: { params: RunParam },
        responses: { 200: jsonResponse(z.object({ records: z.array(TraceRecordSchema) }), 'Trace records with timestamps and durations'), ...errorResponses },
      }),
      async (c) => {
        const { runId } = c.req.valid('param');
        const summary = await loadRun(runtime, c, runId);
        return redactedListView(c, 'records', traceRecordPages(await JournalPager.open(runtime.store, runId, summary.head))) as never;
      },
    )
    .openapi(
      createRoute({
        method: 'get',
        path: '/v1/runs/{runId}/otlp',
        request: { params: RunParam },
        responses: { 200: jsonResponse(OtlpExportSchema, 'OTLP/HTTP JSON following the GenAI conventions'), ...errorResponses },
      }),
      async (c) => {
        const { runId } = c.req.valid('param');
        const summary = await loadRun(runtime, c, runId);
        return otlpView(c, await JournalPager.open(runtime.store, runId, summary.head)) as never;
      },
    )
    .openapi(
      createRoute({
        method: 'post',
        path: '/v1/runs/{runId}/resume',
        request: { params: RunParam },
        responses: { 200: jsonResponse(RunOutcomeSchema, 'The resumed run'), ...errorResponses },
      }),
      async (c) => {
        const { runId } = c.req.valid('param');
        await loadRun(runtime, c, runId);
        return c.json(outcomeBody(await runtime.orchestrator.resume(runId)), 200);
      },
    )
    .openapi(
      createRoute({
        method: 'post',
        path: '/v1/runs/{runId}/cancel',
        request: { params: RunParam },
        responses: { 200: jsonResponse(RunOutcomeSchema, 'The cancelled run'), ...errorResponses },
      }),
      async (c) => {
        const { runId } = c.req.valid('param');
        await loadRun(runtime, c, runId);
        return c.json(outcomeBody(await runtime.orchestrator.cancel(runId, 'cancelled through the API')), 200);
      },
    );
}
