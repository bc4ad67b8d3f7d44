import net from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CugarError, SsrfGuard, UrlRefusedError, ValidationError, fetchTransport, guardedFetch, type FetchLimits } from '../../src/core/index.ts';
import { nodeTransport, pinAddress, type HostResolver, type ResolvedAddress } from '../../src/edge/nodeFetch.ts';
import { startFixtureServer, type FixtureServer } from '../fixtures/pages/fixtureServer.ts';

// The SSRF guard on Node: every payload of a list of more than a hundred URLs is refused with a
// typed error before any socket is opened (a spy on net.Socket#connect and a loopback listener
// both count zero), names are checked by every address they resolve to, the connection goes to
// the checked address, and redirects are re-checked.

const LIMITS: FetchLimits = { timeoutMs: 3000, maxBytes: 1024 * 1024, maxRedirects: 5, accept: ['text/html', 'text/plain'] };

/** DNS answers of the test, so no real resolver is asked and names can point anywhere. */
const ZONE: Record<string, ResolvedAddress[]> = {
  'private.example.com': [{ address: '10.0.0.5', family: 4 }],
  'rebind.example.com': [
    { address: '93.184.216.34', family: 4 },
    { address: '127.0.0.1', family: 4 },
  ],
  'loop6.example.com': [{ address: '::1', family: 6 }],
  'mapped.example.com': [{ address: '::ffff:127.0.0.1', family: 6 }],
  'meta.example.com': [{ address: '169.254.169.254', family: 4 }],
  'ula.example.com': [{ address: 'fd00:ec2::254', family: 6 }],
  'cgnat.example.com': [{ address: '100.64.0.1', family: 4 }],
  'zero.example.com': [{ address: '0.0.0.0', family: 4 }],
  'mcast.example.com': [{ address: '224.0.0.1', family: 4 }],
  'linklocal6.example.com': [{ address: 'fe80::1', family: 6 }],
  'corp.example.com': [{ address: '192.168.10.20', family: 4 }],
  'empty.example.com': [],
  'fixture.example.com': [{ address: '127.0.0.1', family: 4 }],
};
const resolved: string[] = [];
const resolve: HostResolver = async (hostname) => {
  resolved.push(hostname);
  const answer = ZONE[hostname];
  if (!answer) throw new Error(`getaddrinfo ENOTFOUND ${hostname}`);
  return answer;
};

function payloads(port: number): string[] {
  const hosts = [
    // loopback in every spelling the URL parser accepts
    '127.0.0.1', '127.1', '127.0.1', '2130706433', '0x7f000001', '0x7f.0.0.1', '0x7F.1', '0177.0.0.1', '0177.0.0.01', '017700000001',
    '127.000.000.001', '127.0.0.1.', '127.255.255.254', '127.10.20.30', '%31%32%37.0.0.1', '127.0.0.1%2e', '①②⑦.0.0.1',
    // unspecified, private, link-local and metadata, carrier-grade NAT
    '0.0.0.0', '0', '0x0', '0.1.2.3', '10.0.0.1', '10.255.255.255', '012.0.0.1', '167772161', '172.16.0.1', '172.31.255.254', '0xac100001',
    '192.168.0.1', '192.168.1.254', '3232235777', '0xc0a80101', '169.254.169.254', '169.254.0.1', '2852039166', '0xa9fea9fe',
    '0251.0376.0251.0376', '169.254.169.254.', '100.64.0.1', '100.127.255.254', '100.100.100.200',
    // multicast, broadcast, reserved, benchmarking, documentation
    '224.0.0.1', '239.255.255.250', '255.255.255.255', '240.0.0.1', '198.18.0.1', '192.0.2.1', '192.0.0.1',
    // IPv6: loopback, unspecified, mapped, NAT64, 6to4, Teredo, link-local, unique-local (AWS metadata), multicast, site-local
    '[::1]', '[0:0:0:0:0:0:0:1]', '[::]', '[::ffff:127.0.0.1]', '[::ffff:7f00:1]', '[0:0:0:0:0:ffff:127.0.0.1]', '[::ffff:10.0.0.1]',
    '[::ffff:169.254.169.254]', '[::ffff:192.168.1.1]', '[::127.0.0.1]', '[64:ff9b::7f00:1]', '[2002:7f00:1::]', '[2001::1]', '[fe80::1]',
    '[fe80::a9fe:a9fe]', '[fc00::1]', '[fd00::1]', '[fd00:ec2::254]', '[ff02::1]', '[ff05::2]', '[fec0::1]', '[2001:db8::1]', '[100::1]',
    // names of this host, of metadata services, of the intranet
    'localhost', 'LOCALHOST', 'localhost.', 'foo.localhost', 'a.b.localhost', 'localhost.localdomain', 'ip6-localhost', 'metadata.google.internal',
    'metadata.google.internal.', 'metadata', 'metadata.goog', 'instance-data', 'db.internal', 'printer.local', 'intranet', 'router.home.arpa',
    '1.0.0.127.in-addr.arpa',
    // names that resolve to forbidden addresses (one forbidden among public ones is enough)
    'private.example.com', 'rebind.example.com', 'loop6.example.com', 'mapped.example.com', 'meta.example.com', 'ula.example.com',
    'cgnat.example.com', 'zero.example.com', 'mcast.example.com', 'linklocal6.example.com', 'corp.example.com', 'empty.example.com',
    'nx.example.com', 'fixture.example.com',
  ]; // prettier-ignore
  const others = [
    'file:///etc/passwd', 'file://localhost/etc/passwd', 'data:text/html,<p>x</p>', 'javascript:alert(1)', 'JavaScript:fetch("//127.0.0.1")',
    'ftp://example.com/', `gopher://127.0.0.1:${port}/_GET`, 'blob:https://example.com/7d7c', 'ws://example.com/', 'wss://example.com/',
    'about:blank', 'view-source:http://example.com/', 'mailto:a@example.com', `dict://127.0.0.1:${port}/`, 'ldap://127.0.0.1/', 'chrome://settings',
    'http://user:pass@example.com/', `http://example.com@127.0.0.1:${port}/`, 'http://user@93.184.216.34/', 'not a url', 'http://', '//example.com/x',
    'http://[::1', `http://[fe80::1%25lo]:${port}/`, `http://127.0.0.1:${port}/${'a'.repeat(9000)}`,
  ]; // prettier-ignore
  return [...hosts.flatMap((host) => [`http://${host}:${port}/page/recipe`, `https://${host}/`]), ...others];
}

let server: FixtureServer;
beforeAll(async () => {
  server = await startFixtureServer();
});
afterAll(() => server.close());

describe('SSRF guard (Node transport)', () => {
  it('refuses more than a hundred payloads with a typed error and opens no connection', async () => {
    const list = payloads(server.port);
    expect(list.length).toBeGreaterThanOrEqual(200);
    const guard = new SsrfGuard();
    const connect = vi.spyOn(net.Socket.prototype, 'connect');
    const before = server.connections();
    const outcomes: Array<{ url: string; error: unknown }> = [];
    for (const url of list) {
      try {
        await guardedFetch(url, { guard, transport: nodeTransport(guard, { resolve }), limits: LIMITS });
        outcomes.push({ url, error: undefined });
      } catch (error) {
        outcomes.push({ url, error });
      }
    }
    connect.mockRestore();
    const notRefused = outcomes.filter(({ error }) => !(error instanceof UrlRefusedError)).map(({ url, error }) => `${url}: ${String(error)}`);
    expect(notRefused).toEqual([]);
    expect(connect).toHaveBeenCalledTimes(0);
    expect(server.connections() - before).toBe(0);
    // Literal addresses and forbidden names never reach the resolver; only names that might be public do.
    expect(new Set(resolved)).toEqual(new Set([...Object.keys(ZONE), 'nx.example.com']));
    const reasons = new Set(outcomes.map(({ error }) => (error as UrlRefusedError).reason));
    expect(reasons).toEqual(new Set(['forbidden_address', 'forbidden_host', 'scheme', 'credentials', 'invalid_url', 'unresolved']));
  });

  it('reaches loopback only when the allow-list holds it, and then only that range', async () => {
    const guard = new SsrfGuard({ cidrs: ['127.0.0.1/32'] });
    const before = server.connections();
    const page = await guardedFetch(`${server.origin}/page/recipe`, { guard, transport: nodeTransport(guard, { resolve }), limits: LIMITS });
    expect(page.text).toContain('Lemon barley soup');
    expect(server.connections() - before).toBe(1);
    for (const url of [
      `http://localhost:${server.port}/`,
      `http://[::1]:${server.port}/`,
      `http://127.0.0.2:${server.port}/`,
      `http://10.0.0.1:${server.port}/`,
    ]) {
      await expect(guardedFetch(url, { guard, transport: nodeTransport(guard, { resolve }), limits: LIMITS })).rejects.toBeInstanceOf(UrlRefusedError);
    }
    expect(server.connections() - before).toBe(1);
  });

  it('connects to the address it checked: a name resolved by the injected resolver reaches the fixture', async () => {
    const guard = new SsrfGuard({ cidrs: ['127.0.0.1/32'] });
    const page = await guardedFetch(`http://fixture.example.com:${server.port}/page/news-article`, {
      guard,
      transport: nodeTransport(guard, { resolve }),
      limits: LIMITS,
    });
    expect(page.text).toContain('river restoration');
    expect(await pinAddress(guard, 'fixture.example.com', resolve)).toEqual({ address: '127.0.0.1', family: 4 });
    await expect(pinAddress(new SsrfGuard(), 'rebind.example.com', resolve)).rejects.toMatchObject({ code: 'url_refused', reason: 'forbidden_address' });
  });

  it('stops at the deadline while the resolver hangs', async () => {
    const guard = new SsrfGuard();
    const hanging: HostResolver = () => new Promise(() => undefined);
    const started = performance.now();
    await expect(
      guardedFetch('http://slow-dns.example.com/', { guard, transport: nodeTransport(guard, { resolve: hanging }), limits: { ...LIMITS, timeoutMs: 300 } }),
    ).rejects.toMatchObject({ code: 'fetch_timeout' });
    expect(performance.now() - started).toBeLessThan(1500);
  });

  it('re-checks every redirect: into a private range, to a forbidden name or scheme, and past the hop limit', async () => {
    // The fixture is reached through an allow-listed name; loopback itself is not allow-listed.
    const guard = new SsrfGuard({ hosts: ['fixture.example.com'] });
    const transport = nodeTransport(guard, { resolve });
    const base = `http://fixture.example.com:${server.port}`;
    const targets = [
      `http://127.0.0.1:${server.port}/page/news-article`,
      'http://169.254.169.254/latest/meta-data/',
      `http://localhost:${server.port}/`,
      'file:///etc/passwd',
    ];
    for (const to of targets) {
      const seen = server.paths.length;
      const refused = await guardedFetch(`${base}/redirect?to=${encodeURIComponent(to)}`, { guard, transport, limits: LIMITS }).catch(
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(UrlRefusedError);
      expect(server.paths.slice(seen)).toEqual(['/redirect']);
    }
    const chained = await guardedFetch(`${base}/chain/4`, { guard, transport, limits: LIMITS });
    expect(chained.redirects).toHaveLength(5);
    expect(chained.url).toBe(`${base}/page/recipe`);
    await expect(guardedFetch(`${base}/chain/5`, { guard, transport, limits: LIMITS })).rejects.toMatchObject({ reason: 'too_many_redirects' });
    await expect(guardedFetch(`${base}/no-location`, { guard, transport, limits: LIMITS })).rejects.toMatchObject({ reason: 'redirect_without_location' });
    const relative = await guardedFetch(`${base}/redirect?status=308&to=${encodeURIComponent('/page/docs-page')}`, { guard, transport, limits: LIMITS });
    expect(relative.url).toBe(`${base}/page/docs-page`);
  });

  it('refuses every forbidden IPv4 address in every spelling, and passes public ones (property)', () => {
    const guard = new SsrfGuard();
    const range = (from: number, to: number) => fc.integer({ min: from, max: to });
    const forbidden = fc.oneof(
      range(0x7f000000, 0x7fffffff), // 127/8
      range(0x0a000000, 0x0affffff), // 10/8
      range(0xac100000, 0xac1fffff), // 172.16/12
      range(0xc0a80000, 0xc0a8ffff), // 192.168/16
      range(0xa9fe0000, 0xa9feffff), // 169.254/16
      range(0x64400000, 0x647fffff), // 100.64/10
      range(0x00000000, 0x00ffffff), // 0/8
      range(0xe0000000, 0xffffffff), // multicast, reserved, broadcast
    );
    const octets = (n: number) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];
    const spellings: Array<(n: number) => string> = [
      (n) => octets(n).join('.'),
      (n) => String(n),
      (n) => `0x${n.toString(16)}`,
      (n) => `0${n.toString(8)}`,
      (n) =>
        octets(n)
          .map((o) => `0x${o.toString(16)}`)
          .join('.'),
      (n) =>
        octets(n)
          .map((o) => `0${o.toString(8)}`)
          .join('.'),
      (n) => `${octets(n)[0]}.${n & 0xffffff}`,
      (n) => `[::ffff:${octets(n).join('.')}]`,
      (n) => `${octets(n).join('.')}.`,
    ];
    const spelled = fc.tuple(fc.integer({ min: 0, max: spellings.length - 1 }), fc.constantFrom('http', 'https'), fc.integer({ min: 1, max: 65535 }));
    fc.assert(
      fc.property(forbidden, spelled, (n, [spelling, scheme, port]) => {
        expect(() => guard.checkUrl(`${scheme}://${spellings[spelling]!(n)}:${port}/x`)).toThrow(UrlRefusedError);
      }),
      { numRuns: 2000 },
    );
    // 8/8 and 45/8 are public unicast space: every spelling of their addresses is let through.
    fc.assert(
      fc.property(fc.oneof(range(0x08000000, 0x08ffffff), range(0x2d000000, 0x2dffffff)), spelled, (n, [spelling, scheme, port]) => {
        if (spelling === spellings.length - 2) return; // the mapped IPv6 form is refused for every address
        expect(guard.checkUrl(`${scheme}://${spellings[spelling]!(n)}:${port}/x`).hostname).toBe(octets(n).join('.'));
      }),
      { numRuns: 1000 },
    );
  });

  it('fetch transport (Worker, browser): manual redirects, and a redirect the platform hides is refused', async () => {
    const guard = new SsrfGuard();
    const seen: Array<{ url: string; redirect: RequestRedirect | undefined }> = [];
    const hidden = Object.defineProperty(new Response(null, { status: 200 }), 'type', { value: 'opaqueredirect' });
    const transport = fetchTransport(async (input, init) => {
      seen.push({ url: String(input), redirect: init?.redirect });
      return hidden;
    });
    await expect(guardedFetch('https://example.org/a', { guard, transport, limits: LIMITS })).rejects.toMatchObject({ reason: 'redirect_not_visible' });
    expect(seen).toEqual([{ url: 'https://example.org/a', redirect: 'manual' }]);
    // A visible redirect into a private range is checked before the second request is made.
    const redirecting = fetchTransport(async (input) => {
      seen.push({ url: String(input), redirect: 'manual' });
      return new Response(null, { status: 302, headers: { location: 'http://10.1.2.3/admin' } });
    });
    await expect(guardedFetch('https://example.org/b', { guard, transport: redirecting, limits: LIMITS })).rejects.toMatchObject({
      reason: 'forbidden_address',
    });
    expect(seen.map(({ url }) => url)).toEqual(['https://example.org/a', 'https://example.org/b']);
  });

  it('refuses an invalid allow-list with a typed error', () => {
    expect(() => new SsrfGuard({ cidrs: ['10.0.0.0/99'] })).toThrow(ValidationError);
    expect(() => new SsrfGuard({ hosts: ['http://x'] })).toThrow(CugarError);
  });
});
