import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { Readable } from 'node:stream';
import { UrlRefusedError, type HttpTransport, type SsrfGuard } from '../core/index.ts';

/** One address a name resolves to. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to all its addresses (default: `dns.lookup` with `all: true`). */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

const systemResolver: HostResolver = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));

/**
 * The address to connect to for `hostname`: the literal itself, or the first address the
 * resolver returns once every one of them passed the guard — a name with one private address
 * among public ones is refused, so a rebinding answer cannot slip through on a second lookup.
 * An allow-listed name is reached wherever it resolves.
 */
export async function pinAddress(guard: SsrfGuard, hostname: string, resolve: HostResolver = systemResolver): Promise<ResolvedAddress> {
  const bare = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  const family = isIP(bare);
  if (family !== 0) {
    if (!guard.isHostAllowListed(bare)) guard.checkAddress(bare);
    return { address: bare, family: family === 6 ? 6 : 4 };
  }
  let addresses: ResolvedAddress[];
  try {
    addresses = await resolve(bare);
  } catch (cause) {
    throw new UrlRefusedError('unresolved', `${bare} does not resolve`, { host: bare, cause: cause instanceof Error ? cause.message : String(cause) });
  }
  if (addresses.length === 0) throw new UrlRefusedError('unresolved', `${bare} does not resolve`, { host: bare });
  if (!guard.isHostAllowListed(bare)) for (const { address } of addresses) guard.checkAddress(address, bare);
  return addresses[0]!;
}

/** `promise`, or its rejection with the signal's reason as soon as `signal` aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

function toHeaders(raw: http.IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else if (value !== undefined) headers.set(name, value);
  }
  return headers;
}

/**
 * The Node transport of the web tools: resolves the name itself ({@link pinAddress}) and
 * connects only to the address it checked (the request's `lookup` answers with it, so the
 * socket cannot be sent anywhere else by a second resolution). One request, no redirects
 * followed; the body streams, and aborting the signal destroys the socket.
 *
 * @example
 * const guard = new SsrfGuard();
 * const page = await guardedFetch('https://example.org/', { guard, transport: nodeTransport(guard), limits });
 */
export function nodeTransport(guard: SsrfGuard, options: { resolve?: HostResolver; userAgent?: string } = {}): HttpTransport {
  return async (url, init) => {
    // A resolver that hangs must not outlive the fetch's deadline.
    const pinned = await untilAborted(pinAddress(guard, url.hostname, options.resolve), init.signal);
    const lookup: LookupFunction = (_hostname, lookupOptions, callback) => {
      // With autoSelectFamily (Node 20's default) the socket asks for every address at once.
      if (lookupOptions.all) (callback as unknown as (error: null, addresses: ResolvedAddress[]) => void)(null, [pinned]);
      else callback(null, pinned.address, pinned.family);
    };
    const client = url.protocol === 'https:' ? https : http;
    return await new Promise<Response>((resolveResponse, reject) => {
      const request = client.request(
        url,
        {
          method: 'GET',
          lookup,
          signal: init.signal,
          headers: { 'user-agent': options.userAgent ?? 'CUGAr-web-tools', ...init.headers },
        },
        (response) => {
          const status = response.statusCode ?? 502;
          const nullBody = status === 204 || status === 304 || status < 200;
          const body = nullBody ? null : (Readable.toWeb(response) as unknown as ReadableStream<Uint8Array>);
          if (nullBody) response.resume();
          resolveResponse(new Response(body, { status: status < 200 || status > 599 ? 502 : status, headers: toHeaders(response.headers) }));
        },
      );
      request.on('error', reject);
      request.end();
    });
  };
}
