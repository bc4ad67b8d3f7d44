import { createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import type { Server } from 'node:http';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ESCAPES, type EscapeOutcome } from '../support/sandboxEscapes.ts';
import { launchChromium, servePage } from './support.ts';

// The browser sandbox in Chromium: the shared escape table run in a page, in the default frame
// isolation (a sandboxed frame whose CSP the workers inherit) and in page isolation (a worker
// started by the page itself, without the attempts only a CSP stops). A listener on loopback
// counts every connection; there must be none.

let listener: TcpServer;
let connections = 0;
let port = 0;
let served: { url: string; server: Server };
let browser: Browser;
let page: Page;

beforeAll(async () => {
  listener = createTcpServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  port = (listener.address() as { port: number }).port;
  served = await servePage(join(import.meta.dirname, 'pages', 'sandboxPage.ts'));
  browser = await launchChromium();
  page = await browser.newPage();
  await page.goto(served.url);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  served?.server.close();
  await new Promise<void>((resolve) => listener.close(() => resolve()));
});

function check(outcomes: EscapeOutcome[]) {
  for (const outcome of outcomes) {
    const escape = ESCAPES.find((e) => e.name === outcome.name)!;
    expect(outcome.escaped, `${outcome.name} returned a value`).toBeUndefined();
    expect(escape.stop, `${outcome.name} stopped with ${outcome.stoppedWith}`).toContain(outcome.stoppedWith);
    if (escape.audit) expect(outcome.auditRules, outcome.name).toContain(escape.audit);
    else expect(outcome.auditOk, outcome.name).toBe(true);
    expect(outcome.healthy, `the page after ${outcome.name}`).toBe(true);
  }
}

describe('sandbox escapes in Chromium (Web Workers)', () => {
  it('runs a tool in a worker of the sandbox frame and answers many calls', { timeout: 60_000 }, async () => {
    const result = await page.evaluate(
      ([source, inputs]) =>
        (window as unknown as { sandboxTool: (s: string, i: readonly unknown[]) => Promise<{ outputs: unknown[]; frames: number }> }).sandboxTool(
          source,
          inputs,
        ),
      [
        'export default function (input) { if (input.n < 0) throw new RangeError("negative"); return { twice: input.n * 2 }; }',
        [{ n: 1 }, { n: -1 }, { n: 21 }],
      ] as const,
    );
    expect(result.outputs).toEqual([{ twice: 2 }, { error: 'handler_failed' }, { twice: 42 }]);
    expect(result.frames).toBe(0);
  });

  it('counts a connection the page itself makes (the listener can see one)', async () => {
    await page.evaluate(
      (url) =>
        fetch(url, { mode: 'no-cors' }).then(
          () => undefined,
          () => undefined,
        ),
      `http://127.0.0.1:${port}/control`,
    );
    await expect.poll(() => connections).toBeGreaterThan(0);
    connections = 0;
  });

  for (const isolation of ['frame', 'page'] as const) {
    it(`stops every escape attempt with ${isolation} isolation, with 0 connections`, { timeout: 120_000 }, async () => {
      const outcomes = await page.evaluate(
        ([mode, origin]) =>
          (window as unknown as { sandboxEscapes: (m: string, o: { http: string; ws: string }) => Promise<EscapeOutcome[]> }).sandboxEscapes(mode, origin),
        [isolation, { http: `http://127.0.0.1:${port}`, ws: `ws://127.0.0.1:${port}` }] as const,
      );
      expect(outcomes.length).toBeGreaterThanOrEqual(isolation === 'frame' ? 50 : 48);
      check(outcomes);
      expect(connections).toBe(0);
    });
  }
});
