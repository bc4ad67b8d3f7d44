import ipaddr from 'ipaddr.js';
import * as z from 'zod';
import { parseOrThrow } from '../schema/validate.ts';
import { UrlRefusedError } from './netErrors.ts';

/** Longest URL the guard parses, in characters. */
export const MAX_URL_LENGTH = 8192;

/** A host name on an allow-list: `example.org`, or `*.example.org` for its subdomains. */
const HostPatternSchema = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^(\*\.)?[a-z0-9_-]+(\.[a-z0-9_-]+)*\.?$/, 'a host name, or *. and a host name');

/** A CIDR range (`127.0.0.1/32`, `fd00::/8`) or one address. */
const CidrSchema = z
  .string()
  .trim()
  .refine((value) => ipaddr.isValidCIDR(value) || ipaddr.isValid(value), 'an IP address or a CIDR range');

/** What the SSRF guard lets through although it is private: names and ranges an operator trusts. */
export const NetAllowListSchema = z.object({
  /** Host names reached whatever they resolve to (`intranet.example`, `*.corp.example`). */
  hosts: z.array(HostPatternSchema).max(256).default([]),
  /** Address ranges that may be reached (`127.0.0.1/32` for loopback fixtures). */
  cidrs: z.array(CidrSchema).max(256).default([]),
});
export type NetAllowList = z.output<typeof NetAllowListSchema>;
export type NetAllowListInput = z.input<typeof NetAllowListSchema>;

/**
 * Names that lead to the host itself or to cloud metadata services, refused before any
 * lookup. Suffixes `.localhost` (RFC 6761), `.internal` and `.local` (mDNS) are refused too.
 */
const FORBIDDEN_NAMES = new Set([
  'localhost',
  'localhost.localdomain',
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'instance-data',
  'ip6-localhost',
  'ip6-loopback',
]);
const FORBIDDEN_SUFFIXES = ['.localhost', '.internal', '.local', '.home.arpa', '.in-addr.arpa', '.ip6.arpa'];

type Address = ipaddr.IPv4 | ipaddr.IPv6;

function stripHost(hostname: string): string {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return bare.toLowerCase().replace(/\.+$/, '');
}

function parseAddress(text: string): Address | undefined {
  // Zone ids (`fe80::1%eth0`) name an interface of this host: never a remote address.
  if (text.includes('%')) return undefined;
  try {
    return ipaddr.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * The SSRF guard: decides whether a URL, and each address its name resolves to, may be
 * fetched. Only `http:` and `https:` without credentials; no host-local or metadata names,
 * no single-label names; only globally routable unicast addresses — loopback, private,
 * link-local (169.254.169.254), carrier-grade NAT, unique-local (fd00:ec2::254), multicast,
 * unspecified, reserved, documentation and benchmarking ranges, and IPv6 forms that embed an
 * IPv4 address (mapped, NAT64, 6to4, Teredo) are refused — unless the allow-list names the
 * host or holds the address. IPv4 spellings in decimal, octal or hex are normalised by the
 * WHATWG URL parser before the check, so `http://2130706433/` is checked as `127.0.0.1`.
 *
 * @example
 * const guard = new SsrfGuard({ cidrs: ['127.0.0.1/32'] });
 * guard.checkUrl('http://127.0.0.1:8080/page'); // allowed by the allow-list
 * guard.checkUrl('http://169.254.169.254/');    // throws UrlRefusedError
 */
export class SsrfGuard {
  readonly #hosts: readonly string[];
  readonly #cidrs: ReadonlyArray<[Address, number]>;

  constructor(allow: NetAllowListInput = {}) {
    const parsed = parseOrThrow(NetAllowListSchema, allow, 'network allow-list', 'invalid_allow_list');
    this.#hosts = parsed.hosts.map((host) => host.replace(/\.+$/, ''));
    this.#cidrs = parsed.cidrs.map((range) => (range.includes('/') ? ipaddr.parseCIDR(range) : this.#single(range)));
  }

  #single(address: string): [Address, number] {
    const parsed = ipaddr.parse(address);
    return [parsed, parsed.kind() === 'ipv4' ? 32 : 128];
  }

  /** Whether `hostname` is on the allow-list by name (exactly, or under a `*.` pattern). */
  isHostAllowListed(hostname: string): boolean {
    const host = stripHost(hostname);
    return this.#hosts.some((pattern) => (pattern.startsWith('*.') ? host.endsWith(pattern.slice(1)) : host === pattern));
  }

  /** Whether connecting to `address` (an IPv4 or IPv6 literal) is allowed. */
  isAddressAllowed(address: string): boolean {
    const parsed = parseAddress(stripHost(address));
    if (!parsed) return false;
    const forms: Address[] = [parsed];
    if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) forms.push((parsed as ipaddr.IPv6).toIPv4Address());
    if (forms.some((form) => this.#cidrs.some(([range, bits]) => range.kind() === form.kind() && form.match(range, bits)))) return true;
    // ::/96 (IPv4-compatible, deprecated) embeds an IPv4 address that ipaddr.js calls unicast: `::7f00:1` is loopback.
    if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).parts.slice(0, 6).every((part) => part === 0)) return false;
    return parsed.range() === 'unicast';
  }

  /** Throw a {@link UrlRefusedError} unless `address` may be connected to; `host` names it in the error. */
  checkAddress(address: string, host: string = address): void {
    if (!this.isAddressAllowed(address)) {
      throw new UrlRefusedError(
        'forbidden_address',
        `${host} is ${host === address ? 'an address' : `at ${address}, an address`} in a range that is not reachable from tools`,
        {
          host,
          address,
        },
      );
    }
  }

  /**
   * Check `input` and return it parsed and normalised, or throw a {@link UrlRefusedError}.
   * A name is checked here by its spelling only; the host's resolver must check each address
   * it connects to ({@link checkAddress}).
   */
  checkUrl(input: string | URL): URL {
    const text = typeof input === 'string' ? input : input.href;
    if (text.length > MAX_URL_LENGTH) throw new UrlRefusedError('invalid_url', `the URL is longer than ${MAX_URL_LENGTH} characters`);
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw new UrlRefusedError('invalid_url', 'not an absolute URL', { url: text.slice(0, 200) });
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new UrlRefusedError('scheme', `only http: and https: URLs are fetched, not ${url.protocol}`, { scheme: url.protocol });
    }
    if (url.username !== '' || url.password !== '') throw new UrlRefusedError('credentials', 'URLs with a user name or password are not fetched');
    const host = stripHost(url.hostname);
    if (this.isHostAllowListed(host)) return url;
    const literal = url.hostname.startsWith('[') || /^[0-9.]+$/.test(host) ? parseAddress(host) : undefined;
    if (literal) {
      this.checkAddress(host);
      return url;
    }
    if (/^[0-9.]+$/.test(host) || host.startsWith('[')) throw new UrlRefusedError('invalid_url', `${host} is not a valid address`);
    if (FORBIDDEN_NAMES.has(host) || FORBIDDEN_SUFFIXES.some((suffix) => host.endsWith(suffix))) {
      throw new UrlRefusedError('forbidden_host', `${host} names this host or a metadata service`, { host });
    }
    // A single-label name is completed by the resolver's search domains: an intranet host.
    if (!host.includes('.')) throw new UrlRefusedError('forbidden_host', `${host} is a single-label (intranet) name`, { host });
    return url;
  }
}
