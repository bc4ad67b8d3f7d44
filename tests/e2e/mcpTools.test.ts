import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import type { Browser } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/edge/nodeServer.ts';
import { EVERYTHING } from '../support/mcpFixtures.ts';
import { launchChromium } from './support.ts';

const root = join(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'cugar-mcp-tools-'));
let server: RunningServer;
let browser: Browser;

beforeAll(async () => {
  // This file's own build of the dashboard, so it shows the current source.
  execFileSync(process.execPath, [join(root, 'node_modules/vite/bin/vite.js'), 'build', '--outDir', join(dir, 'web'), '--emptyOutDir', '--logLevel', 'error'], {
    cwd: root,
    // Outside the test runner's environment, which switches the config to its test projects.
    env: Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('VITEST') && name !== 'NODE_ENV')),
  });
  server = await startServer({
    port: 0,
    dataDir: join(dir, 'data'),
    corpusDir: join(dir, 'no-corpus'),
    staticDir: join(dir, 'web'),
    mcp: {
      servers: [
        {
          name: 'everything',
          profile: 'demo',
          tools: ['get-sum', 'echo'],
          transport: { type: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'] },
        },
      ],
      allow: { demo: { network: false, commands: [process.execPath] } },
    },
    log: () => undefined,
  });
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('dashboard Tools page', () => {
  it('marks MCP tools with their server, and runs one from its form', { timeout: 60_000 }, async () => {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await page.goto(`${server.url}/#token=${server.localToken}`);
    await page.getByRole('navigation').getByRole('link', { name: 'Tools' }).click();
    const sum = page.getByRole('article', { name: /everything_get_sum/ });
    await sum.waitFor();
    expect(await sum.getByRole('heading').textContent()).toBe('everything_get_sum MCP · everything');
    expect(await page.getByRole('article', { name: 'add', exact: true }).getByText('MCP ·').count()).toBe(0);
    await sum.getByText('Try it').click();
    await sum.getByRole('spinbutton', { name: /^a/ }).fill('2');
    await sum.getByRole('spinbutton', { name: /^b/ }).fill('40');
    await sum.getByRole('button', { name: 'Try everything_get_sum' }).click();
    await expect.poll(() => sum.getByRole('status').textContent()).toContain('The sum of 2 and 40 is 42.');
    const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
    expect(results.violations.map((v) => v.id)).toEqual([]);
  });
});
