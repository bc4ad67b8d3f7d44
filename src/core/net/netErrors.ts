import { CugarError, PolicyViolationError, ResourceError } from '../errors.ts';

/** Why the SSRF guard refused a URL or an address. */
export type UrlRefusal =
  | 'invalid_url'
  | 'scheme'
  | 'credentials'
  | 'forbidden_host'
  | 'forbidden_address'
  | 'unresolved'
  | 'redirect_without_location'
  | 'redirect_not_visible'
  | 'too_many_redirects';

/**
 * The SSRF guard refused a request: a scheme other than http(s), a name or an address in a
 * forbidden range, a redirect that cannot be checked. Nothing was sent to the refused target.
 * `code` is `url_refused`; `reason` says which rule.
 */
export class UrlRefusedError extends PolicyViolationError {
  readonly reason: UrlRefusal;

  constructor(reason: UrlRefusal, message: string, details: Record<string, unknown> = {}) {
    super(message, { code: 'url_refused', details: { reason, ...details } });
    this.reason = reason;
  }
}

/** Which limit a fetch or a page ran into. */
export type FetchLimit = 'response_too_large' | 'fetch_timeout' | 'content_type_refused' | 'page_too_complex';

/**
 * A fetched response or page broke a limit: too many bytes, too slow, a content type the tool
 * does not read, or HTML too deeply nested or with too many elements or attributes to parse
 * safely. The body was not read past the limit. `code` is the limit's name.
 */
export class FetchLimitError extends ResourceError {
  constructor(code: FetchLimit, message: string, details: Record<string, unknown> = {}) {
    // A slow server may answer in time on another attempt; a large or binary page will not change.
    super(message, { code, retryable: code === 'fetch_timeout', details });
  }
}

/**
 * The remote end failed: the connection broke, or it answered with an error status.
 * Retryable unless the status says the request itself is wrong (4xx other than 408 and 429).
 */
export class FetchFailedError extends CugarError {
  constructor(
    message: string,
    options: { code?: 'fetch_failed' | 'http_status' | 'search_failed'; retryable?: boolean; cause?: unknown; details?: Record<string, unknown> } = {},
  ) {
    super(message, {
      code: options.code ?? 'fetch_failed',
      failureMode: 'RESOURCE',
      retryable: options.retryable ?? true,
      ...(options.cause === undefined ? {} : { cause: options.cause }),
      ...(options.details ? { details: options.details } : {}),
    });
  }
}
