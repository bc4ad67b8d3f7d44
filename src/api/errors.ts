import { OpenAPIHono, type Hook } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { ApiEnv } from './security.ts';
import {
  ConflictError,
  CugarError,
  NotFoundError,
  PolicyViolationError,
  ResourceError,
  SystemError,
  ValidationError,
  redactText,
  toCugarError,
} from '../core/index.ts';

/** Statuses the API answers errors with. */
export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 415 | 422 | 429 | 500 | 501 | 503 | 504;

/** A typed HTTP failure in the API's error shape, for decisions only the HTTP layer makes (auth, limits, idempotency). */
export class HttpError extends CugarError {
  constructor(
    readonly status: ErrorStatus,
    code: string,
    message: string,
  ) {
    super(message, {
      code,
      failureMode: status >= 500 ? 'SYSTEM' : status === 429 ? 'RESOURCE' : status === 403 ? 'POLICY' : 'USER',
      retryable: status === 429 || status >= 500,
    });
  }
}

/**
 * The HTTP status for a typed error: chosen by its class, in this one place. A plain
 * {@link CugarError} (no subclass) falls back to its `failureMode`.
 */
export function statusFor(error: CugarError): ErrorStatus {
  if (error instanceof HttpError) return error.status;
  if (error instanceof ValidationError) return 400;
  if (error instanceof NotFoundError) return 404;
  if (error instanceof ConflictError) return 409;
  if (error instanceof PolicyViolationError) return 403;
  // A step's own timeout surfaces as a ResourceError; everything else that ran out is temporary.
  if (error instanceof ResourceError) return error.code === 'timeout' ? 504 : 503;
  // A store closing under a request is the host shutting down: worth retrying elsewhere.
  if (error instanceof SystemError) return error.code === 'store_closed' ? 503 : 500;
  switch (error.failureMode) {
    case 'USER':
      return 400;
    case 'POLICY':
      return 403;
    case 'RESOURCE':
      return 503;
    default:
      return 500;
  }
}

/** Codes for Hono's own exceptions (body limit, timeout, a malformed body), which carry only a status. */
function codeForHttpException(status: number): string {
  if (status === 413) return 'body_too_large';
  if (status === 401) return 'unauthorized';
  if (status === 504) return 'timeout';
  return 'malformed_request';
}

/**
 * The body of every error: `{ "error": { "code", "message" } }`. The message is redacted here,
 * once for every error the API answers (a message may echo a path, a goal or a field).
 */
export function errorBody(code: string, message: string): { error: { code: string; message: string } } {
  return { error: { code, message: redactText(message) } };
}

/**
 * The app's `onError`: every failure becomes `{ "error": { "code", "message" } }` with the
 * status its class calls for. A 5xx never shows internals: its message is generic unless the
 * error is one of ours, and every message is redacted.
 */
export function respondToError(error: Error, c: Context): Response {
  if (error instanceof HTTPException) {
    // Middleware that already built a response in the API's shape (bearer auth) keeps it.
    if (error.res) return error.getResponse();
    return c.json(errorBody(codeForHttpException(error.status), error.message || 'malformed request'), error.status as ContentfulStatusCode);
  }
  const ours = error instanceof CugarError;
  const typed = ours ? error : toCugarError(error);
  const status = statusFor(typed);
  const hidden = status >= 500 && !ours;
  return c.json(errorBody(hidden ? 'internal_error' : typed.code, hidden ? 'internal error' : typed.message), status);
}

/** Validation failures of a route's schemas: 400 with the first issue and where it is. */
export const validationHook: Hook<unknown, ApiEnv, string, Response | undefined> = (result, c) => {
  if (result.success) return undefined;
  const issue = result.error.issues[0];
  return c.json(errorBody('validation_failed', `invalid request: ${issue ? `${issue.path.join('.') || '(body)'}: ${issue.message}` : 'invalid'}`), 400);
};

/** A router for one resource, with the API's validation hook. */
export function createRouter(): OpenAPIHono<ApiEnv> {
  return new OpenAPIHono<ApiEnv>({ defaultHook: validationHook });
}
