import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import type { Browser } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/edge/nodeServer.ts';
import { launchChromium } from './support.ts';

const root = join(import.meta.dirname, '..', '..');
const shots = join(root, 'test-results', 'memory');
const dir = mkdtempSync(join(tmpdir(), 'cugar-memory-page-'));
let server: RunningServer;
let browser: Browser;

beforeAll(async () => {
  if (!existsSync(join(root, 'dist/web/index.html'))) throw new Error('build the dashboard first: npx vite build');
  mkdirSync(shots, { recursive: true });
  server = await startServer({ port: 0, dataDir: dir, corpusDir: join(dir, 'none'), staticDir: join(root, 'dist/web'), log: () => undefined });
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the Memory page', () => {
  it('lists ingested documents and deletes one; shows remembered notes, finds them by meaning and forgets one', { timeout: 60_000 }, async () => {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await page.goto(`${server.url}/#token=${server.localToken}`);
    await page.getByRole('heading', { name: 'Runs' }).waitFor();
    await page.getByRole('navigation').getByRole('link', { name: 'Memory' }).click();
    await page.getByText('No documents in demo yet').waitFor();
    await page.getByText('No notes yet').waitFor();

    await page.getByLabel(/Documents \(/).setInputFiles([
      { name: 'bees.md', mimeType: 'text/markdown', buffer: Buffer.from('# Bees\n\nBees make honey from nectar.') },
      { name: 'tides.md', mimeType: 'text/markdown', buffer: Buffer.from('# Tides\n\nThe moon pulls the sea.') },
    ]);
    const table = page.locator('table.documents');
    await expect.poll(() => table.locator('tbody tr').count()).toBe(2);
    await page.getByRole('button', { name: 'Delete bees.md' }).click();
    await expect.poll(() => table.locator('tbody tr').count()).toBe(1);
    expect(await table.textContent()).toContain('tides.md');

    // Notes kept by `remember` show on the page, and the search finds them by meaning.
    for (const text of ['the garden gate code is 4711', 'the dentist is on Tuesday']) {
      const response = await fetch(`${server.url}/v1/runs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${server.localToken}`, 'content-type': 'application/json', prefer: 'wait=20' },
        body: JSON.stringify({ goal: `remember(text="${text}")`, profile: 'demo' }),
      });
      expect(((await response.json()) as { status: string }).status).toBe('completed');
    }
    await page.reload();
    await expect.poll(() => page.locator('ul.notes').textContent()).toContain('the dentist is on Tuesday');
    await page.getByLabel('Question').fill('garden gate');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('heading', { name: 'Notes closest to the question' }).waitFor();
    expect(await page.locator('ul.notes li').first().textContent()).toContain('the garden gate code is 4711');
    const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
    expect(results.violations.map((v) => `${v.id} ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
    await page.screenshot({ path: join(shots, 'memory.png'), fullPage: true });
    await page.getByRole('button', { name: /Forget the garden gate/ }).click();
    await expect.poll(() => page.locator('ul.notes li', { hasText: 'garden gate' }).count()).toBe(0);
    // The documents' search never answered with a note.
    expect(await page.locator('ol.hits').count()).toBe(0);
    await page.context().close();
  });
});
