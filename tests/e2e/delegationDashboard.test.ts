import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/core/index.ts';
import { startServer } from '../../src/edge/nodeServer.ts';
import { PUBLISH_THROUGH_RESEARCH, registerPublishNote } from '../support/delegationTools.ts';
import { startModelServer } from '../support/modelServer.ts';
import { approveInInbox, axeViolations, launchChromium } from './support.ts';

// A run whose delegated sub-run waits for a person, seen in the dashboard: the parent's page says
// which sub-run it waits for and links to it; approving the sub-run's call in the Approvals page
// finishes the sub-run and then the parent.

const root = join(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'cugar-delegation-dashboard-'));
const shots = join(root, 'test-results', 'delegation-dashboard');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a delegating run in the dashboard', () => {
  it('shows the sub-run it waits for, and completes after the sub-run’s approval', { timeout: 90_000 }, async () => {
    if (!existsSync(join(root, 'dist/web/index.html'))) throw new Error('build the dashboard first: npx vite build');
    mkdirSync(shots, { recursive: true });
    const models = await startModelServer([...PUBLISH_THROUGH_RESEARCH]);
    const server = await startServer({
      port: 0,
      dataDir: dir,
      corpusDir: join(dir, 'no-corpus'),
      staticDir: join(root, 'dist/web'),
      config: parseConfig({ CUGAR_DELEGATION_PROFILES: 'research' }).config,
      modelEnv: { CUGAR_MODEL_URL: models.url, CUGAR_MODEL: 'small' },
      log: () => undefined,
    });
    registerPublishNote(server.runtime.registry);
    const browser = await launchChromium();
    try {
      const started = (await (
        await fetch(`${server.url}/v1/runs?wait=20`, {
          method: 'POST',
          headers: { authorization: `Bearer ${server.localToken}`, 'content-type': 'application/json' },
          body: JSON.stringify({ goal: 'Publish the Lyon note through research.', profile: 'demo' }),
        })
      ).json()) as { runId: string; status: string };
      expect(started.status).toBe('paused');
      const child = `${started.runId}.t1.call-0`;

      const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
      await page.goto(`${server.url}/#token=${server.localToken}`);
      // The app reads the token from the address on its first render, which may come after 'load':
      // changing the address before then leaves the tab without a token (the sign-in form).
      await page.getByRole('heading', { name: 'Runs' }).waitFor();
      await page.goto(`${server.url}/#/runs/${encodeURIComponent(started.runId)}`);
      const waiting = page.getByRole('status').filter({ hasText: 'Waiting for its sub-run' });
      try {
        await waiting.waitFor();
      } catch (error) {
        // Say what the page and the API showed instead, so a failure under load can be read from the log.
        const shown = (await page.locator('body').innerText()).slice(0, 2000);
        const summary = await (
          await fetch(`${server.url}/v1/runs/${encodeURIComponent(started.runId)}`, { headers: { authorization: `Bearer ${server.localToken}` } })
        ).text();
        throw new Error(`no "Waiting for its sub-run" on the run page.\nPage: ${shown}\nRun: ${summary.slice(0, 2000)}`, { cause: error });
      }
      expect(await axeViolations(page)).toEqual([]);
      await page.screenshot({ path: `${shots}/parent-waiting.png` });
      await waiting.getByRole('link', { name: child }).click();
      await expect.poll(() => page.locator('#run-title code').textContent()).toBe(child);

      await approveInInbox(page);
      await page.goto(`${server.url}/#/runs/${encodeURIComponent(started.runId)}`);
      await expect.poll(() => page.locator('.outputs').last().textContent(), { timeout: 30_000 }).toContain('Research published the Lyon note.');
      expect(await page.getByText('Waiting for its sub-run').count()).toBe(0);
    } finally {
      await browser.close();
      await server.close();
      await models.close();
    }
  });
});
