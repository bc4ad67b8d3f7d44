import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/edge/nodeServer.ts';
import { launchChromium } from './support.ts';

const root = join(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'cugar-sign-in-'));
const cwd = process.cwd();
let server: RunningServer;
let browser: Browser;

const start = (port = 0) => startServer({ port, dataDir: dir, corpusDir: join(dir, 'none'), log: () => undefined });

beforeAll(async () => {
  if (!existsSync(join(root, 'dist/web/index.html'))) throw new Error('build the dashboard first: npx vite build');
  // The server finds dist/ and public/ relative to the working directory, as `npm start` does.
  process.chdir(root);
  server = await start();
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  process.chdir(cwd);
  await browser?.close();
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('signing in to the dashboard', () => {
  it('a new tab of the session is signed in, and so is the tab after the server restarts', { timeout: 60_000 }, async () => {
    const context = await browser.newContext();
    const first = await context.newPage();
    await first.goto(`${server.url}/#token=${server.localToken}`);
    await first.getByRole('heading', { name: 'Runs' }).waitFor();
    // A deep link pasted into a new tab carries no token: the open tab hands it over.
    const second = await context.newPage();
    await second.goto(`${server.url}/#/approvals`);
    await second.getByRole('heading', { name: 'Approvals' }).waitFor();
    expect(await second.getByLabel('Bearer token').count()).toBe(0);

    const { port } = new URL(server.url);
    const token = server.localToken;
    await server.close();
    server = await start(Number(port));
    expect(server.localToken).toBe(token);
    await second.reload();
    await second.getByRole('heading', { name: 'Approvals' }).waitFor();
    expect(await second.getByLabel('Bearer token').count()).toBe(0);
    await context.close();
  });

  it('a token the server refuses shows the sign-in form saying so', { timeout: 60_000 }, async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${server.url}/#token=${'0'.repeat(48)}`);
    await expect.poll(() => page.getByRole('alert').textContent(), { timeout: 20_000 }).toContain('refused the token');
    await page.getByLabel('Bearer token').fill(server.localToken!);
    await page.getByRole('button', { name: 'Connect' }).click();
    await page.getByRole('heading', { name: 'Runs' }).waitFor();
    expect(await page.getByRole('alert').count()).toBe(0);
    await context.close();
  });

  it("the service worker serves the dashboard only at the dashboard's own address, not in place of other pages", { timeout: 60_000 }, async () => {
    const context = await browser.newContext();
    const asked: string[] = [];
    context.on('request', (request) => asked.push(new URL(request.url()).pathname));
    const page = await context.newPage();
    await page.goto(`${server.url}/#token=${server.localToken}`);
    await page.getByRole('heading', { name: 'Runs' }).waitFor();
    await page.evaluate(async () => {
      await navigator.serviceWorker.ready;
    });
    await page.reload();
    await expect.poll(() => page.evaluate(() => navigator.serviceWorker.controller !== null)).toBe(true);
    await page.goto(`${server.url}/widget-demo.html`);
    expect(await page.title()).toBe('A plain page with CUGAr agents');
    const missing = await page.goto(`${server.url}/no-such-page.html`);
    expect(missing?.status()).toBe(404);
    // Every page has its icon inline: none asks the host for /favicon.ico.
    expect(asked).toContain('/widget-demo.html');
    expect(asked.filter((path) => path === '/favicon.ico')).toEqual([]);
    await context.close();
  });
});
