import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import type { Browser, Page } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/edge/nodeServer.ts';
import { goalField, launchChromium } from './support.ts';

// What a person sees when they preview a plan in the playground: where each argument came from,
// why a part of the goal got no tool, and a form for what the goal lacks.
const root = join(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'cugar-planner-playground-'));
let server: RunningServer;
let browser: Browser;

beforeAll(async () => {
  if (!existsSync(join(root, 'dist/web/index.html'))) throw new Error('build the dashboard first: npx vite build');
  server = await startServer({ port: 0, dataDir: dir, corpusDir: join(root, 'public/corpus'), staticDir: join(root, 'dist/web'), log: () => undefined });
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function preview(page: Page, goal: string) {
  await goalField(page).fill(goal);
  await page.getByRole('button', { name: 'Preview plan' }).click();
  await page.getByRole('heading', { name: 'Every candidate' }).waitFor();
}

describe('playground plan preview', () => {
  it('shows each argument with the words it came from, refusals with their reasons, and a form for missing input', { timeout: 60_000 }, async () => {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await page.goto(`${server.url}/#token=${server.localToken}`);
    await page.getByRole('heading', { name: 'Runs' }).waitFor();
    await page.getByRole('navigation').getByRole('link', { name: 'Playground' }).click();

    await preview(page, 'send a message to bob saying hi');
    const goal = page.locator('.goal-text');
    await expect.poll(() => goal.locator('mark').allTextContents()).toEqual(['bobto', 'hitext']);
    const rows = page.getByRole('table', { name: 'Arguments of step-0' }).getByRole('row');
    await expect.poll(() => rows.allTextContents()).toContain('to"bob"bobthe words after "to"');
    await expect.poll(() => rows.allTextContents()).toContain('text"hi"hithe words after "saying"');
    const axe = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
    expect(axe.violations.map((v) => v.id)).toEqual([]);

    await preview(page, 'add 2 and 3 then book a flight to Lisbon');
    await page.getByRole('heading', { name: 'Not planned' }).waitFor();
    expect(await page.locator('.refusals li').first().textContent()).toContain('book a flight to Lisbon');

    await preview(page, 'count the words in the README');
    await page.getByRole('heading', { name: 'text_stats needs more' }).waitFor();
    await page.getByRole('form', { name: 'Input for text_stats' }).getByLabel(/text/).fill('one two three');
    await page.getByRole('button', { name: 'Try text_stats' }).click();
    await page.waitForURL(/#\/runs\//, { timeout: 30_000 });
  });
});
