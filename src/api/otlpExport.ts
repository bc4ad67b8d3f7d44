import * as z from 'zod';
import { redactText, toOtlp, type JournalEvent, type OtlpTraceExport } from '../core/index.ts';

// Live OpenTelemetry export. Spans come from the journal (`toOtlp`: the same `invoke_agent`,
// `execute_tool` and `chat {model}` spans as the OTLP download, with ids derived from the
// journal), built from the redacted events an orchestrator publishes, and sent over OTLP/HTTP
// JSON as they finish. The sender is written here rather than taken from the official
// exporter: `@opentelemetry/exporter-trace-otlp-http` 0.30x needs Node 22, the 0.2xx line
// exports SDK `ReadableSpan`s through internal delegates with no transport for Workers, and
// these spans are OTLP JSON already — what is left is a bounded queue and a retrying POST,
// the same in a tab, a Worker and Node.

/** The exporter's settings; {@link otlpSettingsFromEnv} reads the standard `OTEL_*` variables. */
export const OtlpSettingsSchema = z.object({
  /** The traces URL (`…/v1/traces`). */
  url: z.url(),
  headers: z.record(z.string(), z.string()).default({}),
  serviceName: z.string().min(1).default('cugar'),
  /** Spans kept while the backend is slow or down; older ones are dropped (and counted) beyond it. */
  maxQueueSpans: z.number().int().min(1).max(1_000_000).default(2048),
  /** Spans per request. */
  maxBatchSpans: z.number().int().min(1).max(10_000).default(512),
  /** How long finished spans wait to be batched, in milliseconds (0: send at once). */
  batchDelayMs: z.number().int().min(0).max(60_000).default(1000),
  /** Per-request time limit, in milliseconds. */
  timeoutMs: z.number().int().min(100).max(120_000).default(10_000),
  /** Attempts per batch (retries on network errors, 429, 502, 503, 504), with exponential backoff. */
  maxAttempts: z.number().int().min(1).max(10).default(4),
  /** Runs followed at once; events of more runs are not exported (and counted). */
  maxRuns: z.number().int().min(1).max(100_000).default(1000),
});
export type OtlpSettings = z.output<typeof OtlpSettingsSchema>;
export type OtlpSettingsInput = z.input<typeof OtlpSettingsSchema>;

/** Parse `k1=v1,k2=v2` (values URL-encoded), as `OTEL_EXPORTER_OTLP_HEADERS` is written. */
function parseHeaders(text: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of (text ?? '').split(',')) {
    const at = pair.indexOf('=');
    if (at <= 0) continue;
    headers[decodeURIComponent(pair.slice(0, at).trim())] = decodeURIComponent(pair.slice(at + 1).trim());
  }
  return headers;
}

/**
 * The exporter's settings from `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` (used as is) or
 * `OTEL_EXPORTER_OTLP_ENDPOINT` (`/v1/traces` appended), `OTEL_EXPORTER_OTLP_HEADERS` and
 * `OTEL_EXPORTER_OTLP_TRACES_HEADERS`, `OTEL_SERVICE_NAME`; undefined when no endpoint is set.
 * A malformed endpoint throws a `ZodError` naming it.
 */
export function otlpSettingsFromEnv(env: Readonly<Record<string, string | undefined>>): OtlpSettings | undefined {
  const traces = env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT']?.trim();
  const base = env['OTEL_EXPORTER_OTLP_ENDPOINT']?.trim();
  if (!traces && !base) return undefined;
  const url = traces || `${base!.replace(/\/+$/, '')}/v1/traces`;
  return OtlpSettingsSchema.parse({
    url,
    headers: { ...parseHeaders(env['OTEL_EXPORTER_OTLP_HEADERS']), ...parseHeaders(env['OTEL_EXPORTER_OTLP_TRACES_HEADERS']) },
    ...(env['OTEL_SERVICE_NAME']?.trim() ? { serviceName: env['OTEL_SERVICE_NAME'].trim() } : {}),
  });
}

type Span = OtlpTraceExport['resourceSpans'][number]['scopeSpans'][number]['spans'][number];

/** What the exporter has done so far. */
export interface OtlpExportStats {
  exported: number;
  dropped: number;
  failedRequests: number;
  queued: number;
}

/** Events that end a span: a tool call, an approval, a stage (the next one starts), the run. */
const CLOSES_A_SPAN: ReadonlySet<string> = new Set([
  'tool_call_complete',
  'tool_call_error',
  'approval_received',
  'approval_timeout',
  'stage',
  'run_completed',
]);

/** Status codes worth another attempt (the OTLP/HTTP specification's list). */
const RETRYABLE = new Set([429, 502, 503, 504]);

/**
 * Follows runs through their journal events and exports each span once, when it finishes:
 * a tool call or model call at its result, a run at `run_completed`. `observe` never blocks
 * and never throws; sending happens on a timer, one request at a time, bounded by the queue.
 */
export class OtlpLiveExporter {
  readonly settings: OtlpSettings;
  readonly #fetch: typeof fetch;
  readonly #log: (line: string) => void;
  readonly #runs = new Map<string, { events: JournalEvent[]; sent: Set<string> }>();
  readonly #dirty = new Set<string>();
  #queue: Span[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  #sending: Promise<void> | undefined;
  #stats: OtlpExportStats = { exported: 0, dropped: 0, failedRequests: 0, queued: 0 };
  #warnedAt = 0;

  constructor(settings: OtlpSettingsInput, options: { fetch?: typeof fetch; log?: (line: string) => void } = {}) {
    this.settings = OtlpSettingsSchema.parse(settings);
    this.#fetch = options.fetch ?? ((input, init) => fetch(input, init));
    this.#log = options.log ?? ((line) => console.error(line));
  }

  /** Take one journal event (as an orchestrator publishes it: durable and redacted). */
  observe(event: JournalEvent): void {
    let run = this.#runs.get(event.runId);
    if (!run) {
      // Spans are projected from a whole journal: a run first seen in its middle (resumed here
      // after a restart) is not followed, rather than kept until it would take every slot.
      if (event.seq !== 0) return;
      if (this.#runs.size >= this.settings.maxRuns) return void this.#drop(1);
      run = { events: [], sent: new Set() };
      this.#runs.set(event.runId, run);
    }
    run.events.push(event);
    if (CLOSES_A_SPAN.has(event.type) || event.type.startsWith('model_call_')) {
      this.#dirty.add(event.runId);
      this.#schedule();
    }
  }

  /** Export what has finished now, and wait until the queue is sent (or given up on). */
  async flush(): Promise<void> {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#collect();
    while (this.#queue.length > 0 || this.#sending) await (this.#sending ?? this.#send());
  }

  stats(): OtlpExportStats {
    return { ...this.#stats, queued: this.#queue.length };
  }

  #schedule(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#collect();
      if (!this.#sending) void this.#send();
    }, this.settings.batchDelayMs);
  }

  /** Turn the finished, not yet exported spans of every run that changed into queued spans. */
  #collect(): void {
    for (const runId of this.#dirty) {
      const run = this.#runs.get(runId);
      if (!run) continue;
      const finished = run.events.some((e) => e.type === 'run_completed');
      const spans = toOtlp(run.events, this.settings.serviceName).resourceSpans[0]?.scopeSpans[0]?.spans ?? [];
      for (const [i, span] of spans.entries()) {
        // The first span is the run's own: it is finished only with the run.
        if ((i === 0 && !finished) || run.sent.has(span.spanId)) continue;
        run.sent.add(span.spanId);
        this.#enqueue(span);
      }
      if (finished) this.#runs.delete(runId);
    }
    this.#dirty.clear();
  }

  #enqueue(span: Span): void {
    this.#queue.push(span);
    const over = this.#queue.length - this.settings.maxQueueSpans;
    if (over > 0) {
      this.#queue.splice(0, over);
      this.#drop(over);
    }
  }

  #drop(count: number): void {
    this.#stats.dropped += count;
    const now = Date.now();
    if (now - this.#warnedAt > 10_000) {
      this.#warnedAt = now;
      this.#log(`OpenTelemetry export: ${this.#stats.dropped} span(s) dropped so far (the backend is slow or unreachable, or too many runs at once)`);
    }
  }

  /** Send queued spans batch by batch, one request at a time; a batch that cannot be delivered is dropped and counted. */
  #send(): Promise<void> {
    if (this.#sending) return this.#sending;
    const drain = async () => {
      while (this.#queue.length > 0) {
        const batch = this.#queue.splice(0, this.settings.maxBatchSpans);
        if (await this.#post(batch)) this.#stats.exported += batch.length;
        else this.#drop(batch.length);
      }
    };
    // Cleared only after it is assigned: `finally` runs on a later turn even when the queue was empty.
    const sending: Promise<void> = drain().finally(() => {
      if (this.#sending === sending) this.#sending = undefined;
    });
    this.#sending = sending;
    return sending;
  }

  async #post(spans: Span[]): Promise<boolean> {
    const body = JSON.stringify({
      resourceSpans: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: this.settings.serviceName } }] },
          scopeSpans: [{ scope: { name: 'cugar', version: '0.1.0' }, spans }],
        },
      ],
    });
    for (let attempt = 1; attempt <= this.settings.maxAttempts; attempt++) {
      let wait = Math.min(500 * 2 ** (attempt - 1), 5000);
      try {
        const response = await this.#fetch(this.settings.url, {
          method: 'POST',
          headers: { ...this.settings.headers, 'content-type': 'application/json' },
          body,
          signal: AbortSignal.timeout(this.settings.timeoutMs),
        });
        await response.body?.cancel();
        if (response.ok) return true;
        this.#stats.failedRequests++;
        if (!RETRYABLE.has(response.status)) {
          this.#log(`OpenTelemetry export refused with ${response.status}; ${spans.length} span(s) dropped`);
          return false;
        }
        const retryAfter = Number(response.headers.get('retry-after'));
        if (Number.isFinite(retryAfter) && retryAfter > 0) wait = Math.min(retryAfter * 1000, 30_000);
      } catch (error) {
        this.#stats.failedRequests++;
        if (attempt === this.settings.maxAttempts)
          this.#log(`OpenTelemetry export failed: ${redactText(error instanceof Error ? error.message : String(error))}`);
      }
      if (attempt < this.settings.maxAttempts) await new Promise((resolve) => setTimeout(resolve, wait));
    }
    return false;
  }
}
