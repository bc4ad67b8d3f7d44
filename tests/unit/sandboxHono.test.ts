import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SandboxError } from '../../src/core/index.ts';
import { loadWithoutAudit } from '../../src/core/sandbox/workerSandbox.ts';
import { createNodeSandbox } from '../../src/edge/nodeSandbox.ts';
import { codeOf } from '../support/sandboxOutcome.ts';

// The `hono` realm library: Hono and the realm's own fetch classes inside the sandbox, the
// network still closed, the realm still frozen, and the shipped bundle the installed Hono's.

const sandbox = createNodeSandbox();
afterAll(() => sandbox.close());

const SERVICE = `
const app = new Hono();
app.get('/users/:id', (c) => c.json({ id: c.req.param('id'), q: c.req.query('q') ?? null, agent: c.req.header('x-agent') ?? null }));
app.post('/items', async (c) => c.json({ got: await c.req.json() }, 201));
app.get('/boom', () => { throw new RangeError('boom'); });
export default async function (input) {
  const res = await app.request(input.url, input.init);
  return { status: res.status, type: res.headers.get('content-type'), body: await res.text() };
}`;

describe('the hono realm library', () => {
  it('answers app.request inside the sandbox: params, query, headers, JSON bodies, 404 and 500', async () => {
    const tool = await sandbox.load(SERVICE, { library: 'hono' });
    expect(await tool.call({ url: '/users/42?q=x%20y', init: { headers: { 'X-Agent': 'ü' } } })).toEqual({
      status: 200,
      type: 'application/json',
      body: JSON.stringify({ id: '42', q: 'x y', agent: 'ü' }),
    });
    const posted = await tool.call({ url: '/items', init: { method: 'POST', body: '{"a":[1,"é"]}', headers: { 'content-type': 'application/json' } } });
    expect(posted).toEqual({ status: 201, type: 'application/json', body: '{"got":{"a":[1,"é"]}}' });
    expect(await tool.call({ url: '/nope' })).toMatchObject({ status: 404, body: '404 Not Found' });
    expect(await tool.call({ url: '/boom' })).toMatchObject({ status: 500, body: 'Internal Server Error' });
    await tool.close();
  });

  it('keeps the network closed and the realm frozen', async () => {
    // The audit refuses fetch; the realm must stop it on its own.
    const fetching = await loadWithoutAudit(sandbox, '(function () { return async function () { return fetch("http://127.0.0.1:9/"); }; })', {
      library: 'hono',
    });
    expect(await codeOf(fetching.call({}))).toBe('network_denied');
    const probe = await sandbox.load(
      `export default function () {
        const headers = new Headers({ b: '2', a: '1' });
        return {
          frozen: [Hono, Request, Response, Headers, Object.getPrototypeOf(headers), Object.getPrototypeOf(new Hono())].map((o) => Object.isFrozen(o)),
          order: [...headers.keys()],
          request: new Request('http://localhost/x', { method: 'post', body: 'hi' }).method,
          badUrl: (() => { try { new Request('file:///etc/passwd'); return 'made'; } catch (e) { return e.name; } })(),
        };
      }`,
      { library: 'hono' },
    );
    expect(await probe.call({})).toEqual({ frozen: [true, true, true, true, true, true], order: ['a', 'b'], request: 'POST', badUrl: 'TypeError' });
    await Promise.all([fetching.close(), probe.close()]);
  });

  it('gives code no way out through the library: its functions lead to the refusing constructors of the realm, its objects are frozen', async () => {
    const probe = await loadWithoutAudit(
      sandbox,
      `(function () { 'use strict'; return function () {
        const attempt = (f) => { try { return String(f()); } catch (e) { return e.name + ': ' + e.message; } };
        const ctor = 'constr' + 'uctor';
        return [
          attempt(() => Object.getPrototypeOf(Hono)[ctor]('return globalThis')()),
          attempt(() => new Response('x').text[ctor]('return 1')()),
          attempt(() => new Hono().request[ctor][ctor]('return 1')()),
          attempt(() => { Headers.prototype.get = () => 'x'; return 'changed'; }),
          attempt(() => { Hono.prototype.fetch = () => 'x'; return 'changed'; }),
        ];
      }; })`,
      { library: 'hono' },
    );
    const outcomes = (await probe.call({})) as string[];
    for (const outcome of outcomes.slice(0, 3)) expect(outcome).toBe('TypeError: code generation from strings is not available in the sandbox');
    for (const outcome of outcomes.slice(3)) expect(outcome).toMatch(/^TypeError: Cannot (assign to read only property|add property)/);
    await probe.close();
  });

  it('lets only a load with the library name its globals, and knows no other library', async () => {
    const error = await sandbox.load('export default () => typeof Hono').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SandboxError);
    expect((error as SandboxError).code).toBe('audit_failed');
    expect((error as SandboxError).message).toContain('Hono is not a global tool code may use');
    expect(await codeOf(sandbox.load('export default () => 1', { library: 'constructor' as 'hono' }))).toBe('bad_input');
  });

  it('ships the bundle the installed Hono builds to', () => {
    const root = join(import.meta.dirname, '..', '..');
    expect(() => execFileSync(process.execPath, [join(root, 'scripts', 'buildHonoBundle.mjs'), '--check'], { cwd: root, stdio: 'pipe' })).not.toThrow();
  });
});
