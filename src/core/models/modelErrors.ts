import { CugarError, type FailureMode } from '../errors.ts';
import { redactText } from '../policy/redaction.ts';

/** Most characters of a provider's message kept in an error (bodies can be large). */
const MESSAGE_LIMIT = 300;

/** What a failed model call means for the run. */
export interface ModelErrorDetails {
  model: string;
  /** The HTTP status the provider answered, when it answered. */
  status?: number;
  /** How long the provider asked to wait (`Retry-After`), in milliseconds. */
  retryAfterMs?: number;
}

/**
 * A model call failed. `retryable` says whether the same request may succeed later (429, 5xx,
 * timeouts, refused connections, malformed answers); terminal failures (400, 401, 403, a
 * prompt longer than the model's context) are not retried.
 */
export class ModelCallError extends CugarError {
  constructor(message: string, options: { code: string; failureMode: FailureMode; retryable: boolean; details: ModelErrorDetails; cause?: unknown }) {
    super(message, options);
  }
}

/** Most a `Retry-After` is honoured before the call falls to the next model instead. */
export const MAX_RETRY_AFTER_MS = 60_000;

/** `Retry-After` in milliseconds: delta-seconds or an HTTP date (against `now`). */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+(?:\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

interface ProviderErrorShape {
  name?: unknown;
  message?: unknown;
  statusCode?: unknown;
  isRetryable?: unknown;
  responseHeaders?: unknown;
  responseBody?: unknown;
}

function header(headers: unknown, name: string): string | undefined {
  if (typeof headers !== 'object' || headers === null) return undefined;
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === name && typeof value === 'string') return value;
  return undefined;
}

const CONTEXT_TOO_LONG = /context[ _-]?length|context window|maximum context|too many tokens|prompt is too long/i;

function short(text: string): string {
  const clean = redactText(text.replace(/\s+/g, ' ').trim());
  return clean.length > MESSAGE_LIMIT ? `${clean.slice(0, MESSAGE_LIMIT)}…` : clean;
}

/**
 * Turn whatever a provider threw into a {@link ModelCallError}, reading the AI SDK's
 * `APICallError` by its fields (the core does not import provider code). The decision to retry,
 * fall back or stop is taken from this error alone, so a replay that rebuilds it from the
 * journal decides the same.
 */
export function classifyModelError(thrown: unknown, model: string, now: number): CugarError {
  if (thrown instanceof CugarError) return thrown;
  const error = (typeof thrown === 'object' && thrown !== null ? thrown : {}) as ProviderErrorShape;
  const message = typeof error.message === 'string' ? error.message : String(thrown);
  const status = typeof error.statusCode === 'number' ? error.statusCode : undefined;
  const make = (code: string, failureMode: FailureMode, retryable: boolean, text: string, extra: Partial<ModelErrorDetails> = {}) =>
    new ModelCallError(`${model}: ${text}`, {
      code,
      failureMode,
      retryable,
      details: { model, ...(status !== undefined ? { status } : {}), ...extra },
    });
  if (error.name === 'AbortError' || error.name === 'TimeoutError') return make('model_timeout', 'RESOURCE', true, 'the call was aborted');
  if (status !== undefined && status < 400) return make('model_invalid_response', 'RESOURCE', true, `the answer could not be read: ${short(message)}`);
  if (status !== undefined) {
    const body = typeof error.responseBody === 'string' ? error.responseBody : '';
    if (status === 429) {
      const retryAfterMs = parseRetryAfter(header(error.responseHeaders, 'retry-after'), now);
      return make('model_rate_limited', 'RESOURCE', true, `rate limited (429)`, retryAfterMs !== undefined ? { retryAfterMs } : {});
    }
    if (status >= 500 || status === 408) return make('model_unavailable', 'RESOURCE', true, `the provider answered ${status}: ${short(message)}`);
    if (status === 401 || status === 403) return make('model_unauthorized', 'USER', false, `the provider refused the credentials (${status})`);
    if (CONTEXT_TOO_LONG.test(message) || CONTEXT_TOO_LONG.test(body))
      return make('model_context_too_long', 'AGENT', false, `the prompt is longer than the model's context (${status})`);
    return make('model_request_refused', 'SYSTEM', false, `the provider refused the request (${status}): ${short(message)}`);
  }
  if (error.name === 'AI_APICallError' || error.isRetryable === true)
    return make('model_unreachable', 'RESOURCE', true, `the provider could not be reached: ${short(message)}`);
  // Anything else is an answer the adapter could not read (malformed JSON, a broken stream).
  return make('model_invalid_response', 'RESOURCE', true, `the answer could not be read: ${short(message)}`);
}
