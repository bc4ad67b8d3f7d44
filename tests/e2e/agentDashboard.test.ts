import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/edge/nodeServer.ts';
import { startModelServer, type ModelServer } from '../support/modelServer.ts';
import { approveInInbox, launchChromium, runGoal } from './support.ts';

// The dashboard over a Node host with a model: a goal typed in the playground is an agent run;
// the model's call that needs a person is approved in the inbox, the run completes with the
// model's answer, and the timeline shows each model call as a chat span.

const root = join(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'cugar-agent-dashboard-'));
let server: RunningServer;
let models: ModelServer;
let browser: Browser;

beforeAll(async () => {
  if (!existsSync(join(root, 'dist/web/index.html'))) throw new Error('build the dashboard first: npx vite build');
  models = await startModelServer([
    { calls: [{ name: 'send_message', args: { to: 'ops', text: 'deploy finished' } }] },
    { text: 'I told ops the deploy finished.' },
    // The run's reflection, then the fork's.
    { text: 'Asked to tell ops; send_message was approved and sent.' },
    { text: 'The fork told ops from the recorded approval.' },
  ]);
  server = await startServer({
    port: 0,
    dataDir: dir,
    corpusDir: join(dir, 'no-corpus'),
    staticDir: join(root, 'dist/web'),
    modelEnv: { CUGAR_MODEL_URL: models.url, CUGAR_MODEL: 'small', CUGAR_MODEL_STREAM: '1' },
    log: () => undefined,
  });
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await models?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('dashboard with a model (remote mode)', () => {
  it('runs an agent run from the playground, approves its tool call in the inbox, and shows its model calls', { timeout: 60_000 }, async () => {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await page.goto(`${server.url}/#token=${server.localToken}`);
    await page.getByRole('heading', { name: 'Runs' }).waitFor();
    await runGoal(page, 'tell ops the deploy finished');
    await page.getByRole('heading', { name: /needs approval/ }).waitFor();
    await approveInInbox(page);
    await page.getByRole('navigation').getByRole('link', { name: 'Runs' }).click();
    await page.locator('tbody tr a').first().click();
    const firstRun = await page.locator('#run-title code').textContent();
    await expect.poll(() => page.locator('.outputs').last().textContent()).toContain('I told ops the deploy finished.');
    await expect
      .poll(async () => (await page.locator('.span-row .span-label').allTextContents()).filter((label) => label.startsWith('chat small')))
      .toEqual(['chat small #1', 'chat small #1', 'chat small (reflect) #1']);
    await page
      .getByRole('button', { name: /chat small #1/ })
      .first()
      .click();
    await expect.poll(() => page.getByRole('region', { name: 'Span detail' }).textContent()).toContain('send_message');
    expect(models.requests).toHaveLength(3);

    // Fork from the model's last answer with another one: the fork follows the recording (the
    // approved call's result comes from the journal) and opens as a run of its own.
    await page
      .getByRole('button', { name: /chat small #1/ })
      .last()
      .click();
    await page.getByLabel('Another answer').fill('Ops were told (from a fork).');
    await page.getByRole('button', { name: 'Fork from here' }).click();
    await expect.poll(() => page.locator('#run-title code').textContent()).not.toBe(firstRun);
    await expect.poll(() => page.locator('.outputs').last().textContent()).toContain('Ops were told (from a fork).');
    // Only the fork's reflection reached the model.
    expect(models.requests).toHaveLength(4);
  });
});

describe('dashboard with a model (local mode: the tab calls the model itself)', () => {
  it('keeps the endpoint in this browser and runs agent runs in the tab against it, one approved in the inbox', { timeout: 90_000 }, async () => {
    const local = await startModelServer([
      { calls: [{ name: 'add', args: { a: 20, b: 22 } }] },
      { text: 'Forty-two, computed in this tab.' },
      { text: 'Added 20 and 22 with add in the tab.' },
      // The second run: a call that needs an approval, decided in the tab after a reload.
      { calls: [{ name: 'send_message', args: { to: 'ops', text: 'tab deploy finished' } }] },
      { text: 'Ops heard from the tab.' },
      { text: 'send_message was approved in the tab.' },
    ]);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    try {
      const page = await context.newPage();
      await page.goto(`${server.url}/#mode=local`);
      await page.getByRole('heading', { name: 'Runs' }).waitFor();
      await page.getByRole('navigation').getByRole('link', { name: 'Model' }).click();
      await page.getByLabel('Endpoint (OpenAI-compatible)').fill(local.url);
      await page.getByLabel('Models, in fallback order').fill('tab-model');
      await page.getByLabel(/API key/).fill('sk-canary-tab-key-5f0e91');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByText('Saved. Reload the page to use this model.').waitFor();
      await page.reload();
      await runGoal(page, 'what is twenty plus twenty-two?');
      await expect.poll(() => page.locator('.outputs').last().textContent()).toContain('Forty-two, computed in this tab.');
      // Two turns, then the run's reflection (kept in the tab's memory).
      await expect.poll(() => local.requests.length).toBe(3);
      expect(local.requests.map((r) => [r.body.model, r.authorization])).toEqual([
        ['tab-model', 'Bearer sk-canary-tab-key-5f0e91'],
        ['tab-model', 'Bearer sk-canary-tab-key-5f0e91'],
        ['tab-model', 'Bearer sk-canary-tab-key-5f0e91'],
      ]);
      // The key is redacted wherever the tab shows run data.
      expect(await page.content()).not.toContain('sk-canary-tab-key-5f0e91');

      // An agent run that stops for an approval: it waits in the tab's IndexedDB through a
      // reload, is approved in the Approvals page, and goes on in the tab.
      await runGoal(page, 'tell ops the tab deploy finished');
      await page.getByRole('heading', { name: /needs approval/ }).waitFor();
      await page.reload();
      await approveInInbox(page);
      await expect.poll(() => local.requests.length).toBe(6);
      await page.getByRole('navigation').getByRole('link', { name: 'Runs' }).click();
      await page.locator('tbody tr a').first().click();
      await expect.poll(() => page.locator('.outputs').last().textContent()).toContain('Ops heard from the tab.');
      expect(JSON.stringify(local.requests[4]!.body.messages)).toContain('queued');
    } finally {
      await context.close();
      await local.close();
    }
  });
});
