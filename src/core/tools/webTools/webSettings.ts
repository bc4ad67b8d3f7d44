import * as z from 'zod';
import { NetAllowListSchema } from '../../net/ssrfGuard.ts';
import { parseOrThrow } from '../../schema/validate.ts';

/** Settings of the web tools: the SearXNG endpoint, the SSRF allow-list and the fetch limits. */
export const WebToolsSettingsSchema = z.object({
  /** Base URL of a SearXNG instance whose JSON API `web_search` may query (`/search?q=…&format=json`). */
  searxngUrl: z.url({ protocol: /^https?$/ }).optional(),
  /** Hosts and ranges `internet_extract` may reach although they are private (the SearXNG endpoint is trusted on its own). */
  allow: NetAllowListSchema.prefault({}),
  /** Time for one fetch, redirects and body included, in milliseconds. Default 10 s. */
  timeoutMs: z.number().int().min(100).max(120_000).default(10_000),
  /** Largest body read, in bytes. Default 2 MiB. */
  maxBytes: z
    .number()
    .int()
    .min(1024)
    .max(16 * 1024 * 1024)
    .default(2 * 1024 * 1024),
  /** Redirects followed, each re-checked. Default 5 (the most). */
  maxRedirects: z.number().int().min(0).max(5).default(5),
  /** Most results `web_search` returns from SearXNG. Default 10. */
  maxResults: z.number().int().min(1).max(50).default(10),
});
export type WebToolsSettings = z.output<typeof WebToolsSettingsSchema>;
export type WebToolsSettingsInput = z.input<typeof WebToolsSettingsSchema>;

/** Validate web tool settings, with a typed error naming what is wrong. */
export function parseWebToolsSettings(input: unknown): WebToolsSettings {
  return parseOrThrow(WebToolsSettingsSchema, input ?? {}, 'web tool settings', 'invalid_config');
}

const integer = (value: string | undefined) => (value === undefined || value.trim() === '' ? undefined : Number(value));

/**
 * Web tool settings from a host's environment: `CUGAR_SEARXNG_URL`, `CUGAR_NET_ALLOW` (hosts
 * and CIDR ranges separated by commas, e.g. `127.0.0.1/32,intranet.example`),
 * `CUGAR_FETCH_TIMEOUT_MS` and `CUGAR_FETCH_MAX_BYTES`. Invalid values throw a typed error.
 */
export function webSettingsFromEnv(env: Readonly<Record<string, string | undefined>>): WebToolsSettings {
  const entries = (env['CUGAR_NET_ALLOW'] ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  const isRange = (entry: string) => /^[0-9.]+(\/\d+)?$/.test(entry) || entry.includes(':');
  const input = {
    ...(env['CUGAR_SEARXNG_URL'] ? { searxngUrl: env['CUGAR_SEARXNG_URL'] } : {}),
    allow: { hosts: entries.filter((entry) => !isRange(entry)), cidrs: entries.filter(isRange) },
    ...(integer(env['CUGAR_FETCH_TIMEOUT_MS']) !== undefined ? { timeoutMs: integer(env['CUGAR_FETCH_TIMEOUT_MS']) } : {}),
    ...(integer(env['CUGAR_FETCH_MAX_BYTES']) !== undefined ? { maxBytes: integer(env['CUGAR_FETCH_MAX_BYTES']) } : {}),
  };
  return parseWebToolsSettings(input);
}
