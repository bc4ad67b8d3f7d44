import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import type { Browser, Page } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/edge/nodeServer.ts';
import { launchChromium } from './support.ts';

const root = join(import.meta.dirname, '..', '..');
const shots = join(root, 'test-results', 'run-page');
const dir = mkdtempSync(join(tmpdir(), 'cugar-run-page-'));
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

async function start(goal: string): Promise<{ runId: string; status: string }> {
  const response = await fetch(`${server.url}/v1/runs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${server.localToken}`, 'content-type': 'application/json', prefer: 'wait=20' },
    body: JSON.stringify({ goal, profile: 'demo' }),
  });
  return (await response.json()) as { runId: string; status: string };
}

async function open(runId: string): Promise<Page> {
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  await page.goto(`${server.url}/#token=${server.localToken}`);
  await page.getByRole('heading', { name: 'Runs' }).waitFor();
  await page.goto(`${server.url}/#/runs/${runId}`);
  await page.getByRole('heading', { name: 'Plan' }).waitFor();
  return page;
}

describe('the run page', () => {
  it('shows the goal, the plan and why each tool was chosen', { timeout: 60_000 }, async () => {
    const goal = 'add 2 and 3, then multiply the result by 4';
    const run = await start(goal);
    expect(run.status).toBe('completed');
    const page = await open(run.runId);
    // The goal as written, its argument spans marked (each names its argument in a subscript).
    const text = await page.locator('.goal-text').evaluate((node) => {
      const copy = node.cloneNode(true) as HTMLElement;
      for (const sub of copy.querySelectorAll('sub')) sub.remove();
      return copy.textContent;
    });
    expect(text).toBe(goal);
    const rows = page.locator('table.plan-steps tbody tr');
    expect(await rows.count()).toBe(2);
    expect(await rows.nth(0).textContent()).toContain('add');
    expect(await rows.nth(1).textContent()).toContain('multiply');
    // Each ranked step says why its tool was chosen.
    for (const i of [0, 1]) expect((await rows.nth(i).locator('td').nth(3).textContent())?.trim()).not.toBe('—');
    const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
    expect(results.violations.map((v) => `${v.id} ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
    await page.screenshot({ path: join(shots, 'run-page.png'), fullPage: true });

    // The span tree: the steps inside the stage they ran in, selectable like the waterfall's rows.
    await page.getByRole('combobox', { name: /^View/ }).selectOption('tree');
    const execute = page.getByRole('list', { name: 'Span tree' }).locator('li', { has: page.getByRole('button', { name: /^stage execute/ }) });
    expect(await execute.getByRole('button').allTextContents()).toEqual(
      expect.arrayContaining([expect.stringMatching(/stage execute/), expect.stringMatching(/step-0 add #1/), expect.stringMatching(/step-1 multiply #1/)]),
    );
    await execute.getByRole('button', { name: /step-1 multiply #1/ }).click();
    await expect.poll(() => page.getByRole('region', { name: 'Span detail' }).textContent()).toContain('"b": 4');
    const tree = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
    expect(tree.violations.map((v) => `${v.id} ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
    await page.getByRole('combobox', { name: /^View/ }).selectOption('waterfall');

    // Feedback on the run and on one span; the runs list filters by it.
    const onRun = page.getByRole('form', { name: 'Feedback on this run' });
    await onRun.getByLabel('Comment (optional)').fill('right answer');
    await onRun.getByRole('button', { name: 'Good' }).click();
    await expect.poll(() => onRun.locator('.given').textContent()).toContain('good: right answer');
    await page.getByRole('button', { name: /step-0 add #1/ }).click();
    const onSpan = page.getByRole('form', { name: 'Feedback on this span' });
    await onSpan.getByRole('button', { name: 'Bad' }).click();
    await expect.poll(() => onSpan.locator('.given').textContent()).toContain('bad');
    expect(await onRun.locator('.given li').count()).toBe(1);
    await page.goto(`${server.url}/#/runs?feedback=positive`);
    await expect.poll(() => page.locator('table.runs tbody tr').count()).toBe(1);
    expect(await page.getByRole('combobox', { name: /^Feedback/ }).inputValue()).toBe('positive');
    await page.context().close();
  });

  it('deletes a finished run after saying what that means for the audit', { timeout: 60_000 }, async () => {
    const run = await start('add 40 and 2');
    const page = await open(run.runId);
    await page.getByText('Delete this run').click();
    expect(await page.locator('details.housekeeping').textContent()).toContain('signed log of heads keeps');
    await page.getByRole('button', { name: /^Delete the run.s journal$/ }).click();
    await page.getByRole('heading', { name: 'Runs' }).waitFor();
    const response = await fetch(`${server.url}/v1/runs/${run.runId}`, { headers: { authorization: `Bearer ${server.localToken}` } });
    expect(response.status).toBe(404);
    await page.context().close();
  });

  it('draws a paused run’s pending approval as a span and counts it', { timeout: 60_000 }, async () => {
    const run = await start('send_message(to="ops", text="deploy finished")');
    expect(run.status).toBe('paused');
    const page = await open(run.runId);
    await expect.poll(() => page.locator('.trace p.hint[role=status]').textContent()).toContain('1 approval(s), 1 pending');
    await page.getByRole('button', { name: /approval pending \(send_message\)/ }).click();
    await expect.poll(() => page.getByRole('region', { name: 'Span detail' }).textContent()).toContain('"pending": true');
    expect(await page.getByRole('table').first().textContent()).toContain('send_message');
    await page.context().close();
  });
});
