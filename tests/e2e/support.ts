import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { build } from 'esbuild';
import { chromium, type Browser, type Locator, type Page } from 'playwright';
import { afterAll, beforeAll } from 'vitest';
import { startServer, type RunningServer } from '../../src/edge/nodeServer.ts';

import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../support/chromium.ts';

/** Bundle `entry` for the browser and serve it on 127.0.0.1 under a blank page; returns the URL and a closer. */
export async function servePage(entry: string): Promise<{ url: string; server: Server }> {
  const bundle = await build({
    entryPoints: [entry],
    bundle: true,
    format: 'iife',
    write: false,
    platform: 'browser',
    target: 'chrome120',
    logLevel: 'silent',
  });
  const script = bundle.outputFiles[0]!.text;
  const server = createServer((req, res) => {
    if (req.url === '/page.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
    else
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end('<!doctype html><html lang="en"><title>CUGAr test page</title><script src="/page.js"></script></html>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/`, server };
}

/** Debian's Chromium through Playwright, with the flags this machine needs. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
}

/**
 * The Node host serving the built dashboard (`dist/web`) from a fresh data directory, and
 * Chromium, for one test file: started before its tests and closed after them. `name` names the
 * data directory and the screenshots folder (`test-results/<name>`).
 */
export function dashboardHost(
  name: string,
  options: { widget?: boolean } = {},
): { readonly server: RunningServer; readonly browser: Browser; readonly shots: string } {
  const root = join(import.meta.dirname, '..', '..');
  const shots = join(root, 'test-results', name);
  const dir = mkdtempSync(join(tmpdir(), `cugar-${name}-`));
  const cwd = process.cwd();
  let server: RunningServer | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    mkdirSync(shots, { recursive: true });
    if (options.widget) {
      // The widget's pages: the server finds dist/ and public/ relative to the working directory, as `npm start` does.
      if (!existsSync(join(root, 'dist/widget/cugar-agent.iife.js'))) throw new Error('build the widget first: npx vite build --mode widget');
      process.chdir(root);
      server = await startServer({ port: 0, dataDir: dir, corpusDir: join(dir, 'none'), log: () => undefined });
    } else {
      if (!existsSync(join(root, 'dist/web/index.html'))) throw new Error('build the dashboard first: npx vite build');
      server = await startServer({ port: 0, dataDir: dir, corpusDir: join(dir, 'none'), staticDir: join(root, 'dist/web'), log: () => undefined });
    }
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    if (options.widget) process.chdir(cwd);
    await browser?.close();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    get server() {
      if (!server) throw new Error('the host starts before the tests');
      return server;
    },
    get browser() {
      if (!browser) throw new Error('Chromium starts before the tests');
      return browser;
    },
    shots,
  };
}

/** axe's WCAG 2.1 A/AA violations on `page`, one line each (an empty list when there are none). */
export async function axeViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  return results.violations.map((v) => `${v.id} ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** Open the Approvals page, approve the one call waiting there, and wait until nothing is left. */
export async function approveInInbox(page: Page): Promise<void> {
  await page
    .getByRole('navigation')
    .getByRole('link', { name: /Approvals/ })
    .click();
  await page.getByRole('button', { name: 'Approve', exact: true }).click();
  await page.getByText('Nothing is waiting for you.').waitFor();
}

/**
 * The playground's goal field, found by its role: a run page's plan section is labelled "Goal"
 * too, and a label alone could find that section while the playground is still opening.
 */
export function goalField(page: Page): Locator {
  return page.getByRole('textbox', { name: 'Goal', exact: true });
}

/** From the playground: type `goal` and run it. */
export async function runGoal(page: Page, goal: string): Promise<void> {
  await page.getByRole('navigation').getByRole('link', { name: 'Playground' }).click();
  await goalField(page).fill(goal);
  await page.getByRole('button', { name: 'Run', exact: true }).click();
}
