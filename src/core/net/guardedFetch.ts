import { CugarError } from '../errors.ts';
import { FetchFailedError, FetchLimitError, UrlRefusedError } from './netErrors.ts';
import type { SsrfGuard } from './ssrfGuard.ts';

/**
 * One HTTP exchange that never follows a redirect: what a host hands the web tools. On Node it
 * resolves the name, checks every address with the guard and connects to the checked one
 * (`nodeTransport` in `src/edge/nodeFetch.ts`); elsewhere it is `fetch` with `redirect: 'manual'`
 * ({@link fetchTransport}).
 */
export type HttpTransport = (url: URL, init: { signal: AbortSignal; headers: Record<string, string> }) => Promise<Response>;

/**
 * A transport over a `fetch` function (the Worker's or the browser's), with manual redirects.
 * It cannot see or pin the addresses a name resolves to: only the URL checks apply. A browser
 * hides the target of a redirect (`opaqueredirect`), so there every redirect is refused.
 */
export function fetchTransport(fetchImpl: typeof fetch = (input, init) => fetch(input, init)): HttpTransport {
  return (url, init) => fetchImpl(url.href, { method: 'GET', redirect: 'manual', signal: init.signal, headers: init.headers });
}

/** Limits of one guarded fetch. */
export interface FetchLimits {
  /** Total time for every hop and the body, in milliseconds. */
  timeoutMs: number;
  /** Largest body read, in bytes; the stream is cancelled past it. */
  maxBytes: number;
  /** Redirects followed, each re-checked. */
  maxRedirects: number;
  /** Media types accepted (`text/html`, …), lowercase, without parameters. */
  accept: readonly string[];
}

/** A fetched response body that passed every check. */
export interface FetchedBody {
  /** The URL that answered, after redirects. */
  url: string;
  status: number;
  /** The media type, lowercase, without parameters. */
  contentType: string;
  /** The body decoded with the declared charset (UTF-8 when none or unknown). */
  text: string;
  bytes: number;
  /** Each URL redirected from, in order. */
  redirects: string[];
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** A signal aborted by `parent` or after `ms`, and the function that stops its timer. */
function deadline(ms: number, parent?: AbortSignal): { signal: AbortSignal; timedOut: () => boolean; stop: () => void } {
  const controller = new AbortController();
  let expired = false;
  const timer = setTimeout(() => {
    expired = true;
    controller.abort(new FetchLimitError('fetch_timeout', `no complete answer within ${ms} ms`, { timeoutMs: ms }));
  }, ms);
  const onAbort = () => controller.abort(parent?.reason);
  if (parent?.aborted) onAbort();
  else parent?.addEventListener('abort', onAbort, { once: true });
  return {
    signal: controller.signal,
    timedOut: () => expired,
    stop: () => {
      clearTimeout(timer);
      parent?.removeEventListener('abort', onAbort);
    },
  };
}

function abortError(signal: AbortSignal, timedOut: boolean, timeoutMs: number): CugarError {
  if (timedOut) return new FetchLimitError('fetch_timeout', `no complete answer within ${timeoutMs} ms`, { timeoutMs });
  return signal.reason instanceof CugarError ? signal.reason : new FetchFailedError('the fetch was cancelled', { retryable: false });
}

/**
 * Read `body` up to `maxBytes`, cancelling the stream as soon as it goes past (so a huge page
 * costs at most one chunk more) or `signal` aborts (so a slow drip stops at the deadline).
 */
export async function readLimited(body: ReadableStream<Uint8Array> | null, maxBytes: number, signal: AbortSignal): Promise<Uint8Array> {
  if (!body) return new Uint8Array(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  aborted.catch(() => undefined);
  try {
    for (;;) {
      const { done, value } = await Promise.race([reader.read(), aborted]);
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) throw new FetchLimitError('response_too_large', `the body is larger than ${maxBytes} bytes`, { maxBytes });
      chunks.push(value);
    }
  } catch (error) {
    reader.cancel().catch(() => undefined);
    throw error;
  } finally {
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}

function decode(bytes: Uint8Array, contentType: string | null): string {
  const charset = /charset\s*=\s*"?([\w-]+)/i.exec(contentType ?? '')?.[1];
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}

/** Whether the first KiB holds a NUL byte: binary content, whatever its declared type. */
function looksBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, 1024).includes(0);
}

/**
 * Fetch `input` through `transport` behind `guard`: the URL and every redirect target are
 * checked before anything is sent (at most `maxRedirects` hops, each relative `Location`
 * resolved against the URL that sent it), only the accepted media types are read, the body is
 * read up to `maxBytes` and the whole exchange ends at `timeoutMs`. Every refusal is typed:
 * {@link UrlRefusedError}, {@link FetchLimitError}, {@link FetchFailedError}.
 */
export async function guardedFetch(
  input: string,
  options: { guard: SsrfGuard; transport: HttpTransport; limits: FetchLimits; signal?: AbortSignal; headers?: Record<string, string> },
): Promise<FetchedBody> {
  const { guard, transport, limits } = options;
  const clock = deadline(limits.timeoutMs, options.signal);
  const redirects: string[] = [];
  try {
    let url = guard.checkUrl(input);
    for (;;) {
      let response: Response;
      try {
        response = await transport(url, { signal: clock.signal, headers: { accept: limits.accept.join(', '), ...options.headers } });
      } catch (error) {
        if (error instanceof CugarError) throw error;
        if (clock.signal.aborted) throw abortError(clock.signal, clock.timedOut(), limits.timeoutMs);
        throw new FetchFailedError(`could not fetch ${url.host}: ${error instanceof Error ? error.message : String(error)}`, {
          cause: error,
          details: { url: url.href },
        });
      }
      if (response.type === 'opaqueredirect') {
        throw new UrlRefusedError('redirect_not_visible', 'the page redirects, and this host cannot see where to check the target', { url: url.href });
      }
      if (REDIRECTS.has(response.status)) {
        await response.body?.cancel().catch(() => undefined);
        const target = response.headers.get('location');
        if (!target) throw new UrlRefusedError('redirect_without_location', `a ${response.status} redirect without a Location`, { url: url.href });
        if (redirects.length >= limits.maxRedirects) {
          throw new UrlRefusedError('too_many_redirects', `more than ${limits.maxRedirects} redirects`, { redirects: [...redirects, url.href] });
        }
        redirects.push(url.href);
        let next: URL;
        try {
          next = new URL(target, url);
        } catch {
          throw new UrlRefusedError('invalid_url', 'the redirect target is not a URL', { location: target.slice(0, 200) });
        }
        url = guard.checkUrl(next);
        continue;
      }
      if (!response.ok) {
        await response.body?.cancel().catch(() => undefined);
        const retryable = response.status >= 500 || response.status === 408 || response.status === 429;
        throw new FetchFailedError(`${url.host} answered ${response.status}`, {
          code: 'http_status',
          retryable,
          details: { status: response.status, url: url.href },
        });
      }
      const header = response.headers.get('content-type');
      const contentType = (header ?? '').split(';')[0]!.trim().toLowerCase();
      if (!limits.accept.includes(contentType)) {
        await response.body?.cancel().catch(() => undefined);
        throw new FetchLimitError('content_type_refused', `content type ${contentType || '(none)'} is not read (accepted: ${limits.accept.join(', ')})`, {
          contentType,
        });
      }
      const declared = Number(response.headers.get('content-length') ?? NaN);
      if (Number.isFinite(declared) && declared > limits.maxBytes) {
        await response.body?.cancel().catch(() => undefined);
        throw new FetchLimitError('response_too_large', `the body is ${declared} bytes, more than ${limits.maxBytes}`, { maxBytes: limits.maxBytes });
      }
      let bytes: Uint8Array;
      try {
        bytes = await readLimited(response.body, limits.maxBytes, clock.signal);
      } catch (error) {
        if (error instanceof CugarError) throw error;
        if (clock.signal.aborted) throw abortError(clock.signal, clock.timedOut(), limits.timeoutMs);
        throw new FetchFailedError(`the body from ${url.host} broke off`, { cause: error });
      }
      if (looksBinary(bytes)) throw new FetchLimitError('content_type_refused', `the body is binary although it is declared ${contentType}`, { contentType });
      return { url: url.href, status: response.status, contentType, text: decode(bytes, header), bytes: bytes.byteLength, redirects };
    }
  } finally {
    clock.stop();
  }
}
