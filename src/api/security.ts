import type { Context, MiddlewareHandler } from 'hono';
import { sha256Hex } from '../core/index.ts';
import { HttpError } from './errors.ts';

/** Who a request is: the profiles its token may use (`*` for all). */
export interface Principal {
  id: string;
  profiles: readonly string[] | '*';
}

/** What every route's context carries: the principal bearer auth authenticated. */
export type ApiEnv = { Variables: { principal: Principal } };

/** Bearer tokens and the profiles each may use. */
export type TokenMap = Record<string, readonly string[] | '*'>;

/**
 * Map each configured token to its principal with a constant-time comparison: every
 * request hashes its token and compares the digest with every configured digest, never
 * stopping early, so timing says nothing about which byte differed.
 */
export function createAuthenticator(tokens: TokenMap): (token: string | undefined) => Principal | undefined {
  const entries = Object.entries(tokens).map(([token, profiles]) => ({
    digest: sha256Hex(`cugar-token:${token}`),
    profiles,
    id: sha256Hex(`principal:${token}`).slice(0, 16),
  }));
  return (token) => {
    if (!token) return undefined;
    const digest = sha256Hex(`cugar-token:${token}`);
    let found: (typeof entries)[number] | undefined;
    for (const entry of entries) {
      let diff = 0;
      for (let i = 0; i < digest.length; i++) diff |= digest.charCodeAt(i) ^ entry.digest.charCodeAt(i);
      if (diff === 0) found = entry;
    }
    return found && { id: found.id, profiles: found.profiles };
  };
}

/** Whether `principal` may act in `profile`. */
export function mayUse(principal: Principal, profile: string): boolean {
  return principal.profiles === '*' || principal.profiles.includes(profile);
}

/** Require a principal for `profile`; 403 otherwise. */
export function requireProfile(c: Context, profile: string): void {
  if (!mayUse(principalOf(c), profile)) throw new HttpError(403, 'forbidden_profile', `this token may not use profile "${profile}"`);
}

/**
 * Per-principal token-bucket rate limiting: `burst` requests at once, refilled at `perSecond`.
 * Hand-written because Hono ships none and the policy is a few lines; over the limit answers
 * 429 with `Retry-After`.
 */
export function rateLimit(options: { perSecond: number; burst: number; now?: () => number; key: (c: Context) => string }): MiddlewareHandler {
  const buckets = new Map<string, { tokens: number; at: number }>();
  const now = options.now ?? (() => Date.now());
  return async (c, next) => {
    const key = options.key(c);
    const t = now();
    const bucket = buckets.get(key) ?? { tokens: options.burst, at: t };
    bucket.tokens = Math.min(options.burst, bucket.tokens + ((t - bucket.at) / 1000) * options.perSecond);
    bucket.at = t;
    if (bucket.tokens < 1) {
      buckets.set(key, bucket);
      const wait = Math.max(1, Math.ceil((1 - bucket.tokens) / options.perSecond));
      c.header('Retry-After', String(wait));
      throw new HttpError(429, 'rate_limited', `too many requests; retry in ${wait} s`);
    }
    bucket.tokens -= 1;
    buckets.set(key, bucket);
    if (buckets.size > 10_000) buckets.delete(buckets.keys().next().value!);
    await next();
  };
}

/** The principal the bearer-auth middleware authenticated for this request. */
export function principalOf(c: Context): Principal {
  return c.get('principal' as never) as Principal;
}
