import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Hono } from 'hono';
import { secureHeaders } from 'hono/secure-headers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SECURE_HEADERS } from '../../src/api/middleware.ts';
import { parseTokenMap } from '../../src/api/tokens.ts';
import { generateSigningKey } from '../../src/core/signing.ts';
import { startServer, type RunningServer } from '../../src/edge/nodeServer.ts';

// The Node host writes the secure headers on its sockets instead of through Hono's middleware
// (no header object per request): every answer must still carry exactly what secureHeaders() sets.

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
});
