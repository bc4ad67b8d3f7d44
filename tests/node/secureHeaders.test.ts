import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Hono } from 'hono';
import { secureHeaders } from 'hono/secure-headers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestId } from 'hono/request-id';
import { SECURE_HEADERS, requestIdFor } from '../../src/api/middleware.ts';
import { parseTokenMap } from '../../src/api/tokens.ts';
import { generateSigningKey } from '../../src/core/signing.ts';
import { startServer, type RunningServer } from '../../src/edge/nodeServer.ts';

// The Node host writes the secure headers on its sockets instead of through Hono's middleware
// (no header object per request): every answer must still carry exactly what secureHeaders() sets,
// and a request id chosen as Hono's requestId() chooses it.

const TOKEN = 'secure-headers-token-0123456789abcdef';
const dir = mkdtempSync(join(tmpdir(), 'cugar-secure-headers-'));
let server: RunningServer;

/** The raw header lines of an answer (names lowercased, each line once as sent). */
function rawHeaders(url: string, headers: Record<string, string> = {}): Promise<{ status: number; lines: Array<[string, string]> }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers }, (res) => {
      const lines: Array<[string, string]> = [];
      for (let i = 0; i < res.rawHeaders.length; i += 2) lines.push([res.rawHeaders[i]!.toLowerCase(), res.rawHeaders[i + 1]!]);
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, lines }));
    });
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  const staticDir = join(dir, 'static');
  mkdirSync(staticDir);
  writeFileSync(join(staticDir, 'hello.txt'), 'hello');
  server = await startServer({
    port: 0,
    dataDir: join(dir, 'data'),
    tokens: parseTokenMap(`${TOKEN}=*`),
    signingKey: generateSigningKey(),
    corpusDir: join(dir, 'no-corpus'),
    staticDir,
    log: () => undefined,
  });
});

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('secure headers on the Node host', () => {
  it('are the ones Hono’s secureHeaders() sets with its defaults', async () => {
    const plain = await new Hono().get('/', (c) => c.text('x')).request('/');
    const secured = await new Hono()
      .use(secureHeaders())
      .get('/', (c) => c.text('x'))
      .request('/');
    const added = [...secured.headers].filter(([name]) => !plain.headers.has(name));
    expect(new Map(added)).toEqual(new Map(SECURE_HEADERS.map(([name, value]) => [name.toLowerCase(), value])));
  });

  it('are on every answer, once each: health, an API error, a refused token, a static file and a 404', async () => {
    const answers = await Promise.all([
      rawHeaders(`${server.url}/v1/health`),
      rawHeaders(`${server.url}/v1/runs/nope`, { authorization: `Bearer ${TOKEN}` }),
      rawHeaders(`${server.url}/v1/runs`, { authorization: 'Bearer wrong-token-0123456789abcdef' }),
      rawHeaders(`${server.url}/hello.txt`),
      rawHeaders(`${server.url}/no/such/page`),
    ]);
    expect(answers.map((a) => a.status)).toEqual([200, 404, 401, 200, 404]);
    for (const { lines } of answers) {
      for (const [name, value] of SECURE_HEADERS) {
        const sent = lines.filter(([n]) => n === name.toLowerCase());
        expect(sent, name).toEqual([[name.toLowerCase(), value]]);
      }
    }
  });

  it('carry one request id each: the client’s when it is valid, else a new UUID, as Hono’s requestId() chooses', async () => {
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
    const hono = new Hono().use(requestId()).get('/', (c) => c.text('x'));
    for (const sent of ['abc-123_DEF=', 'a'.repeat(255), 'a'.repeat(256), 'has space', 'semi;colon', 'ünï', '']) {
      const fromHono = (await hono.request('/', { headers: sent ? { 'x-request-id': sent } : {} })).headers.get('x-request-id')!;
      const ours = requestIdFor(sent || undefined);
      if (fromHono === sent) expect(ours).toBe(sent);
      else expect([uuid.test(fromHono), uuid.test(ours)]).toEqual([true, true]);
    }
    const answers = await Promise.all([
      rawHeaders(`${server.url}/v1/health`),
      rawHeaders(`${server.url}/v1/health`, { 'x-request-id': 'probe-42' }),
      rawHeaders(`${server.url}/v1/health`, { 'x-request-id': 'not valid!' }),
      rawHeaders(`${server.url}/v1/runs/nope`, { authorization: `Bearer ${TOKEN}`, 'x-request-id': 'trace=7' }),
      rawHeaders(`${server.url}/hello.txt`),
    ]);
    const ids = answers.map(({ lines }) => lines.filter(([name]) => name === 'x-request-id').map(([, value]) => value));
    for (const sent of ids) expect(sent).toHaveLength(1);
    expect([ids[1]![0], ids[3]![0]]).toEqual(['probe-42', 'trace=7']);
    for (const i of [0, 2, 4]) expect(ids[i]![0]).toMatch(uuid);
    expect(new Set([ids[0]![0], ids[2]![0], ids[4]![0]]).size).toBe(3);
  });
});
