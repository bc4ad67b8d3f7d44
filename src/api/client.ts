// The one HTTP client of CUGAr's API, derived from the server's routes (Hono's `hc`): the
// dashboard, the CLI and the widget call the API through it, so a changed route breaks their
// build, not their users. Only types come from the server side; what ships is `hc` and a
// small server-sent-event reader.
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { hc, type ClientResponse } from 'hono/client';
import type { SuccessStatusCode } from 'hono/utils/http-status';
import type { z } from 'zod';
import type { AppType } from './app.ts';
import type {
  ApprovalSchema,
  PlanResponseSchema,
  RagHitSchema,
  RunAcceptedSchema,
  RunOutcomeSchema,
  RunSummarySchema,
  ToolInfoSchema,
  TraceRecordSchema,
} from './schemas.ts';

/** The typed client: `client.v1.runs.$post({ json })`, `client.v1.runs[':runId'].$get({ param })`, … */
export type ApiClient = ReturnType<typeof hc<AppType>>;

/** A run as its journal stands. */
export type RunOutcome = z.output<typeof RunOutcomeSchema>;
/** The answer to a run that is still running: its id and where to follow it. */
export type RunAccepted = z.output<typeof RunAcceptedSchema>;
export type RunSummary = z.output<typeof RunSummarySchema>;
export type Approval = z.output<typeof ApprovalSchema>;
export type TraceRecord = z.output<typeof TraceRecordSchema>;
export type ToolInfo = z.output<typeof ToolInfoSchema>;
export type Plan = z.output<typeof PlanResponseSchema>;
export type RagHit = z.output<typeof RagHitSchema>;

/** A failed API call: the HTTP status and the `{ error: { code, message } }` of the body. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** Options of {@link createClient}. */
export interface ClientOptions {
  /** The server's origin; default the page's (relative URLs). */
  baseUrl?: string;
  /** The bearer token sent with every request. */
  token: string;
  /** The transport: default `fetch`; local mode passes the in-tab app's. */
  fetch?: (input: string, init: RequestInit) => Promise<Response>;
}

/**
 * A typed client for the API at `baseUrl`. Path parameters are sent as given: pass ids
 * through `encodeURIComponent`.
 *
 * @example
 * const client = createClient({ baseUrl: 'http://127.0.0.1:8787', token });
 * const accepted = await unwrap(client.v1.runs.$post({ json: { goal: 'add 2 and 3', profile: 'demo' } }));
 */
export function createClient(options: ClientOptions): ApiClient {
  const transport = options.fetch;
  return hc<AppType>(options.baseUrl?.replace(/\/$/, '') ?? '', {
    headers: { authorization: `Bearer ${options.token}` },
    ...(transport
      ? { fetch: (input: RequestInfo | URL, init?: RequestInit) => transport(input instanceof Request ? input.url : String(input), init ?? {}) }
      : {}),
  });
}

/** The body type of a response's success statuses. */
type SuccessBody<R> = R extends ClientResponse<infer T, infer S, infer F> ? (S extends SuccessStatusCode ? (F extends 'json' ? T : never) : never) : never;

/** The error a non-2xx response stands for. */
export async function errorOf(response: { status: number; json(): Promise<unknown> }): Promise<ApiError> {
  const payload = (await response.json().catch(() => ({}))) as { error?: { code?: string; message?: string } };
  return new ApiError(response.status, payload.error?.code ?? `http_${response.status}`, payload.error?.message ?? `HTTP ${response.status}`);
}

/** Await a client call: its success body, typed by the route, or an {@link ApiError}. */
export async function unwrap<R extends ClientResponse<unknown, number, string>>(call: Promise<R>): Promise<SuccessBody<R>> {
  const response = await call;
  if (!response.ok) throw await errorOf(response);
  return (await response.json()) as SuccessBody<R>;
}

/** One server-sent event: `id` is a journal event's `seq` on a run's stream. */
export type ServerEvent = EventSourceMessage;

/**
 * Read the server-sent events of `response` until the stream ends or `onEvent` returns
 * `false` (then the stream is cancelled).
 */
export async function readEvents(response: { body: ReadableStream<Uint8Array> | null }, onEvent: (event: ServerEvent) => boolean | void): Promise<void> {
  if (!response.body) return;
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let stop = false;
  const parser = createParser({ onEvent: (event) => void (stop ||= onEvent(event) === false) });
  try {
    while (!stop) {
      const { value, done } = await reader.read();
      if (done) break;
      parser.feed(decoder.decode(value, { stream: true }));
    }
  } finally {
    if (stop) await reader.cancel().catch(() => undefined);
    else reader.releaseLock();
  }
}

/** Journal events after which a run waits for someone, or is over. */
const SETTLED = new Set(['run_completed', 'run_cancelled', 'run_paused']);

/**
 * Follow a run's events until it completes, fails, is cancelled or pauses for an approval,
 * then return it (with `after`, the events after that sequence number: a paused run is followed
 * until it moves on and settles again). `onEvent` sees every journal event type and its sequence number as it lands;
 * a dropped stream is reopened after the last event seen.
 */
export async function followRun(
  client: ApiClient,
  runId: string,
  options: { onEvent?: (type: string, seq: number) => void; signal?: AbortSignal; after?: number } = {},
): Promise<RunOutcome> {
  const param = { runId: encodeURIComponent(runId) };
  // `after`: the last event already seen (a paused run's head), so only what follows counts.
  let last = options.after ?? -1;
  for (;;) {
    let settled = false;
    const response = await client.v1.runs[':runId'].events.$get(
      { param, query: {}, header: {} },
      {
        headers: { accept: 'text/event-stream', ...(last >= 0 ? { 'last-event-id': String(last) } : {}) },
        ...(options.signal ? { init: { signal: options.signal } } : {}),
      },
    );
    if (!response.ok) throw await errorOf(response);
    await readEvents(response, (event) => {
      last = Number(event.id ?? last);
      options.onEvent?.(event.event ?? 'message', last);
      settled = SETTLED.has(event.event ?? '');
      return !settled;
    });
    const outcome = await unwrap(client.v1.runs[':runId'].$get({ param }));
    if (settled || outcome.status !== 'running') return outcome;
  }
}
