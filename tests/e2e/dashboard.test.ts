import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import type { Browser, Page } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemoryStore, Orchestrator, ToolRegistry, exportJournal, registerBuiltinTools } from '../../src/core/index.ts';
import { createSequentialIds } from '../../src/core/testing.ts';
import { startServer, type RunningServer } from '../../src/edge/nodeServer.ts';
import { goalField, launchChromium, runGoal } from './support.ts';

const root = join(import.meta.dirname, '..', '..');
const shots = join(root, 'test-results', 'dashboard');
const dir = mkdtempSync(join(tmpdir(), 'cugar-dashboard-'));
let server: RunningServer;
let browser: Browser;

beforeAll(async () => {
  if (!existsSync(join(root, 'dist/web/index.html'))) throw new Error('build the dashboard first: npx vite build');
  mkdirSync(shots, { recursive: true });
  server = await startServer({ port: 0, dataDir: dir, corpusDir: join(root, 'public/corpus'), staticDir: join(root, 'dist/web'), log: () => undefined });
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function noViolations(page: Page, name: string) {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  expect(results.violations.map((v) => `${name}: ${v.id} ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
}

/** A fresh browser profile on the dashboard in local mode (the runtime in the tab). */
async function openLocal() {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${server.url}/#mode=local`);
  await page.getByRole('heading', { name: 'Runs' }).waitFor();
  return { context, page };
}

describe('dashboard (remote mode, served by the Node host)', () => {
  it('runs a goal from the playground, shows its timeline, and approves a pending step', { timeout: 60_000 }, async () => {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await page.goto(`${server.url}/#token=${server.localToken}`);
    await page.getByRole('heading', { name: 'Runs' }).waitFor();
    await noViolations(page, 'runs');

    await page.getByRole('navigation').getByRole('link', { name: 'Playground' }).click();
    await goalField(page).fill('add 2 and 3, then multiply the result by 4');
    await page.getByRole('button', { name: 'Preview plan' }).click();
    await page.getByRole('heading', { name: 'Every candidate' }).waitFor();
    await noViolations(page, 'playground');
    await page.screenshot({ path: join(shots, 'playground.png'), fullPage: true });
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.getByText('chain verified').waitFor();
    await expect.poll(() => page.locator('.outputs').textContent()).toContain('"step-1": 20');
    expect(await page.locator('.waterfall li').count()).toBeGreaterThanOrEqual(6);
    // A span opens its input and output; the run's budget meters show what it spent.
    await page.getByRole('button', { name: /step-0 add #1/ }).click();
    await expect.poll(() => page.getByRole('region', { name: 'Span detail' }).textContent()).toContain('"a": 2');
    expect(await page.getByRole('region', { name: 'Span detail' }).textContent()).toContain('Output5');
    await page
      .getByRole('group', { name: 'This run' })
      .getByText(/Calls 2/)
      .waitFor();
    await noViolations(page, 'run');
    await page.screenshot({ path: join(shots, 'trace.png'), fullPage: true });

    // A step that needs a person: the badge counts it, the inbox approves it, the run finishes.
    await runGoal(page, 'send_message(to="ops", text="deploy finished")');
    await page.getByRole('heading', { name: /needs approval/ }).waitFor();
    await page
      .getByRole('navigation')
      .getByRole('link', { name: /Approvals/ })
      .click();
    await expect.poll(() => page.getByLabel('1 pending').count()).toBe(1);
    await noViolations(page, 'approvals');
    await page.getByLabel('Reason').fill('checked with the team');
    await page.getByRole('button', { name: 'Approve', exact: true }).click();
    await page.getByText('Nothing is waiting for you.').waitFor();
    await page.getByRole('navigation').getByRole('link', { name: 'Runs' }).click();
    await expect.poll(() => page.locator('tbody tr').count()).toBe(2);
    await expect.poll(async () => (await page.locator('.status').allTextContents()).every((s) => s === 'completed')).toBe(true);
    // Filter by tool, then by a time window that ends before either run began.
    await page.getByRole('combobox', { name: /^Tool/ }).selectOption('send_message');
    await expect.poll(() => page.locator('tbody tr').count()).toBe(1);
    expect(await page.locator('tbody tr').first().textContent()).toContain('send_message');
    await page.getByRole('combobox', { name: /^Tool/ }).selectOption('');
    await page.getByLabel('Started before').fill('2020-01-01T00:00');
    await page.getByText('No run matches these filters.').waitFor();
    await page.getByLabel('Started before').fill('');
    await expect.poll(() => page.locator('tbody tr').count()).toBe(2);
    await noViolations(page, 'runs filtered');

    await page.getByRole('navigation').getByRole('link', { name: 'Audit' }).click();
    await page.getByText('All 2 journals verify.').waitFor();
    // The page checks the signatures itself, with the public key of GET /v1/keys.
    await expect.poll(() => page.getByTestId('log-signature').textContent()).toMatch(/^Log of heads: signed \((\d+) of \1 entries signed by ed25519:/);
    expect(await page.locator('[data-testid="run-signature"] td:nth-child(3)').allTextContents()).toEqual(['signed', 'signed']);
    await noViolations(page, 'audit');

    // Import the first run's exported journal: it verifies and replays identically; a tampered copy shows its broken link.
    const runs = (await (await fetch(`${server.url}/v1/runs?status=completed`, { headers: { authorization: `Bearer ${server.localToken}` } })).json()) as {
      runs: Array<{ runId: string; goal: string }>;
    };
    const first = runs.runs.find((r) => r.goal.startsWith('add'))!;
    const ndjson = await (
      await fetch(`${server.url}/v1/runs/${first.runId}/journal?format=ndjson`, { headers: { authorization: `Bearer ${server.localToken}` } })
    ).text();
    await page.getByLabel(/Journal file/).setInputFiles({ name: 'run.ndjson', mimeType: 'application/x-ndjson', buffer: Buffer.from(ndjson) });
    await page.getByText(/the chain of \d+ events verifies/).waitFor();
    // The export names its source head and the host's signature of it, checked in the page.
    await expect.poll(() => page.getByTestId('export-signature').textContent()).toMatch(/^run\.ndjson: signed \(run /);
    await page.getByRole('button', { name: 'Replay this journal' }).click();
    await page.getByText(/Replay identical: \d+ events reproduced/).waitFor();
    const lines = ndjson.trim().split('\n');
    lines[5] = lines[5]!.replace(/"at":(\d+)/, (_, at: string) => `"at":${Number(at) + 1}`);
    await page.getByLabel(/Journal file/).setInputFiles({ name: 'tampered.ndjson', mimeType: 'application/x-ndjson', buffer: Buffer.from(lines.join('\n')) });
    await page.getByText('broken at seq 5: hash does not match the event').waitFor();
    expect(await page.locator('.journal li.broken').count()).toBe(1);
    await page.screenshot({ path: join(shots, 'audit.png'), fullPage: true });

    // A journal exported by another host joins this store's runs.
    const registry = new ToolRegistry();
    registerBuiltinTools(registry, 'demo');
    const elsewhere = new InMemoryStore();
    const foreign = await new Orchestrator({ registry, store: elsewhere, ids: createSequentialIds('laptop') }).start('add 40 and 2', 'demo');
    await page.getByLabel(/Journal file/).setInputFiles({
      name: 'laptop.ndjson',
      mimeType: 'application/x-ndjson',
      buffer: Buffer.from(exportJournal(await elsewhere.readJournal(foreign.runId))),
    });
    await page.getByText(/the chain of \d+ events verifies/).waitFor();
    await page.getByRole('button', { name: "Add it to this store's runs" }).click();
    await page.getByText(`Imported: ${foreign.runId}`).waitFor();

    // An OTLP export opens as a waterfall in the page.
    const otlp = await (await fetch(`${server.url}/v1/runs/${first.runId}/otlp`, { headers: { authorization: `Bearer ${server.localToken}` } })).text();
    await page.getByLabel(/OTLP JSON file/).setInputFiles({ name: 'run.otlp.json', mimeType: 'application/json', buffer: Buffer.from(otlp) });
    await page.getByText(/run\.otlp\.json: \d+ span\(s\)/).waitFor();
    await page.getByRole('button', { name: /execute_tool multiply/ }).click();
    await expect.poll(() => page.getByRole('region', { name: 'Span detail' }).last().textContent()).toContain('gen_ai.tool.name');
    await noViolations(page, 'audit with imports');

    // Ingest two files and find a passage.
    await page.getByRole('navigation').getByRole('link', { name: 'Memory' }).click();
    await page.getByLabel(/Documents/).setInputFiles([
      { name: 'bees.md', mimeType: 'text/markdown', buffer: Buffer.from('Varroa mites weaken honey bee colonies; treat hives in late summer.') },
      { name: 'tea.txt', mimeType: 'text/plain', buffer: Buffer.from('Oolong tea can be steeped several times.') },
    ]);
    await page.getByText('Ingested 2 document(s)').waitFor();
    await page.getByLabel('Question').fill('varroa mites');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.locator('.hits li').first().waitFor();
    expect(await page.locator('.hits li').first().textContent()).toContain('bees.md');
    expect(await page.locator('.hits mark').first().textContent()).toMatch(/varroa/i);
    await noViolations(page, 'memory');

    // Try a tool from its page.
    await page.getByRole('navigation').getByRole('link', { name: 'Tools' }).click();
    await page.locator('details', { hasText: 'Try it' }).first().waitFor();
    await page.getByRole('heading', { name: 'add' }).waitFor();
    await noViolations(page, 'tools');
    // Its try-it form is generated from the input schema.
    const add = page.getByRole('article', { name: 'add' });
    await add.getByText('Try it').click();
    await add.getByRole('spinbutton', { name: /^a/ }).fill('2');
    await add.getByRole('spinbutton', { name: /^b/ }).fill('5');
    await add.getByRole('button', { name: 'Try add' }).click();
    await expect.poll(() => add.getByRole('status').textContent()).toBe('completed: 7');
    await add.getByRole('spinbutton', { name: /^b/ }).fill('');
    await add.getByRole('button', { name: 'Try add' }).click();
    await add.getByText('b is required').waitFor();
    await noViolations(page, 'tools try-it');
    // Another profile, chosen in the header.
    await page.getByLabel('Profile', { exact: true }).fill('nobody');
    await page.getByLabel('Profile', { exact: true }).press('Enter');
    await page.getByRole('heading', { name: 'Tools of nobody' }).waitFor();
    await page.getByRole('alert').getByText('unknown profile "nobody"').waitFor();
    await page.getByLabel('Profile', { exact: true }).fill('demo');
    await page.getByLabel('Profile', { exact: true }).press('Enter');
    await page.getByRole('heading', { name: 'Tools of demo' }).waitFor();
    await page.close();
  });

  it('loads once, then runs a goal in this browser with the network off (local mode)', { timeout: 60_000 }, async () => {
    const { context, page } = await openLocal();
    expect(await page.getByLabel('mode: in this browser').count()).toBe(1);
    // Wait for the service worker to control the page and to have precached the build.
    await page.evaluate(async () => {
      await navigator.serviceWorker.ready;
    });
    await page.reload();
    await expect.poll(() => page.evaluate(() => navigator.serviceWorker.controller !== null)).toBe(true);

    await context.setOffline(true);
    await page.reload();
    await page.getByRole('heading', { name: 'Runs' }).waitFor();
    await runGoal(page, 'calculate (2 + 3) * 4 ^ 2');
    await page.getByText('chain verified').waitFor();
    await expect.poll(() => page.locator('.outputs').textContent()).toContain('"step-0": 80');
    await noViolations(page, 'local run');
    await page.screenshot({ path: join(shots, 'offline.png'), fullPage: true });

    // A step waiting for a person survives a reload, offline, and the run finishes after approval.
    await runGoal(page, 'send_message(to="ops", text="offline and fine")');
    await page.getByRole('heading', { name: /needs approval/ }).waitFor();
    await page.reload();
    await page
      .getByRole('navigation')
      .getByRole('link', { name: /Approvals/ })
      .click();
    await expect.poll(() => page.getByLabel('1 pending').count()).toBe(1);
    await page.getByRole('button', { name: 'Approve', exact: true }).click();
    await page.getByText('Nothing is waiting for you.').waitFor();
    await page.getByRole('navigation').getByRole('link', { name: 'Playground' }).click();
    // Both runs are in this browser's history.
    await expect.poll(() => page.locator('.history li').count()).toBe(2);
    await page.getByRole('navigation').getByRole('link', { name: 'Runs' }).click();
    await expect.poll(async () => (await page.locator('tbody .status').allTextContents()).sort()).toEqual(['completed', 'completed']);
    await context.close();
  });

  it('keeps tool secrets in this browser: saved by name, never shown again, still there after a reload (local mode)', { timeout: 60_000 }, async () => {
    const { context, page } = await openLocal();
    await page.getByRole('navigation').getByRole('link', { name: 'Secrets' }).click();
    await page.getByRole('heading', { name: 'Secrets in this browser' }).waitFor();
    await page.getByLabel('Name').fill('bad name');
    await page.getByLabel('Value').fill('x');
    await page.getByRole('button', { name: 'Save secret' }).click();
    await page.getByRole('alert').filter({ hasText: 'upper-case' }).waitFor();
    await page.getByLabel('Name').fill('SLACK_TOKEN');
    await page.getByLabel('Value').fill('browser-vault-secret-3e2d1c');
    await page.getByRole('button', { name: 'Save secret' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved SLACK_TOKEN.' }).waitFor();
    expect(await page.getByLabel('Secret names').textContent()).toContain('SLACK_TOKEN');
    expect(await page.content()).not.toContain('browser-vault-secret-3e2d1c');
    await noViolations(page, 'secrets');
    await page.screenshot({ path: join(shots, 'secrets.png'), fullPage: true });
    await page.reload();
    await page.getByLabel('Secret names').getByText('SLACK_TOKEN').waitFor();
    await page.getByRole('button', { name: 'Delete SLACK_TOKEN' }).click();
    await page.getByText('No secrets yet.').waitFor();
    await context.close();
  });

  it('resumes a run a reload interrupted, in this browser', { timeout: 60_000 }, async () => {
    const { context, page } = await openLocal();
    await runGoal(page, 'wait(ms=1500); wait(ms=1500); add(a=2, b=3)');
    // The run's page opens at once and follows it live.
    await page.getByText('· live').waitFor();
    expect(await page.locator('.facts .status').textContent()).toBe('running');
    // Reload while the first step is still waiting: the run is left "running" in IndexedDB.
    await page.waitForTimeout(300);
    await page.reload();
    await expect.poll(() => page.locator('.outputs').textContent(), { timeout: 20_000 }).toContain('"step-2": 5');
    await page.getByText('chain verified').waitFor();
    // The timeline shows where it resumed; every step completed once.
    await page.getByRole('combobox', { name: /^Show/ }).selectOption('resume');
    await expect.poll(() => page.locator('.span-row').count()).toBe(1);
    expect(await page.locator('.span-row').first().textContent()).toContain('resumed (was running)');
    await page.getByRole('combobox', { name: /^Show/ }).selectOption('tool');
    await expect
      .poll(async () => (await page.locator('.span-row .span-label').allTextContents()).map((l) => l.split(' ').slice(0, 2).join(' ')))
      .toEqual(['step-0 wait', 'step-1 wait', 'step-2 add']);
    await noViolations(page, 'resumed run');
    await page.screenshot({ path: join(shots, 'resumed.png'), fullPage: true });
    await context.close();
  });

  it('says when a page or a run does not exist, and stops asking for a missing run', async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/#token=${server.localToken}`);
    await page.getByRole('heading', { name: 'Runs' }).waitFor();
    await page.goto(`${server.url}/#/nonsense`);
    await page.getByRole('heading', { name: 'Page not found' }).waitFor();
    let asked = 0;
    page.on('request', (request) => void (request.url().includes('/v1/runs/run_missing_0001') && asked++));
    await page.goto(`${server.url}/#/runs/run_missing_0001`);
    await page.getByRole('alert').filter({ hasText: 'no run run_missing_0001' }).waitFor();
    await page.waitForTimeout(4_500);
    // One request and at most one retry: no polling every couple of seconds.
    expect(asked).toBeLessThanOrEqual(2);
    await page.close();
  });

  it('fits a 360 px wide screen', async () => {
    const page = await (await browser.newContext({ viewport: { width: 360, height: 740 } })).newPage();
    await page.goto(`${server.url}/#token=${server.localToken}`);
    await page.getByRole('heading', { name: 'Runs' }).waitFor();
    const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(await overflow()).toBeLessThanOrEqual(0);
    await page.screenshot({ path: join(shots, 'narrow.png'), fullPage: true });
    // Every screen, including a run's trace with a span open.
    for (const screen of ['Playground', 'Approvals', 'Memory', 'Tools', 'Audit']) {
      await page
        .getByRole('navigation')
        .getByRole('link', { name: new RegExp(`^${screen}`) })
        .click();
      await page.getByRole('heading', { level: 1 }).first().waitFor();
      expect(await overflow(), screen).toBeLessThanOrEqual(0);
    }
    await page.getByRole('navigation').getByRole('link', { name: 'Runs' }).click();
    await page.locator('tbody tr a').first().click();
    await page.locator('.span-row').first().click();
    await page.getByRole('region', { name: 'Span detail' }).waitFor();
    expect(await overflow(), 'run').toBeLessThanOrEqual(0);
    await page.screenshot({ path: join(shots, 'narrow-run.png'), fullPage: true });
    await page.close();
  });
});
