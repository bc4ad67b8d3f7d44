import { redact } from '../policy/redaction.ts';
import type { TraceEvent, TraceEventType } from '../schema/event.ts';

/** A subscriber to trace events. */
export type EventListener = (event: TraceEvent) => void;

/**
 * The structured event bus: every event the core emits passes through `emit`, is redacted
 * there — before any listener, log or exporter sees it — and is then delivered in order to
 * every listener. A throwing listener is isolated: it is reported to `onListenerError` and
 * the others still run.
 */
export class EventBus {
  #listeners = new Set<EventListener>();
  #byTrace = new Map<string, TraceEvent[]>();
  readonly #retainTraces: number;
  readonly #onListenerError: (error: unknown, event: TraceEvent) => void;

  /**
   * @param options.retainTraces how many traces `getTraceHistory` keeps, oldest dropped first (default 1000; 0 keeps none).
   */
  constructor(options: { retainTraces?: number; onListenerError?: (error: unknown, event: TraceEvent) => void } = {}) {
    this.#retainTraces = Math.max(0, Math.floor(options.retainTraces ?? 1000));
    this.#onListenerError = options.onListenerError ?? (() => undefined);
  }

  /** Redact and deliver `event`; returns the redacted event. */
  emit(event: TraceEvent): TraceEvent {
    const safe = Object.freeze(redact(event));
    if (this.#retainTraces > 0) {
      let history = this.#byTrace.get(safe.traceId);
      if (!history) {
        history = [];
        this.#byTrace.set(safe.traceId, history);
        if (this.#byTrace.size > this.#retainTraces) this.#byTrace.delete(this.#byTrace.keys().next().value!);
      }
      history.push(safe);
    }
    for (const listener of this.#listeners) {
      try {
        listener(safe);
      } catch (error) {
        this.#onListenerError(error, safe);
      }
    }
    return safe;
  }

  /** Listen to every event, or only to `types`; returns the function that unsubscribes. */
  subscribe(listener: EventListener, types?: readonly TraceEventType[]): () => void {
    const filter = types ? new Set<string>(types) : undefined;
    const wrapped: EventListener = filter ? (event) => (filter.has(event.type) ? listener(event) : undefined) : listener;
    this.#listeners.add(wrapped);
    return () => this.#listeners.delete(wrapped);
  }

  /** Every retained event of `traceId`, in emission order. */
  getTraceHistory(traceId: string): TraceEvent[] {
    return [...(this.#byTrace.get(traceId) ?? [])];
  }
}
