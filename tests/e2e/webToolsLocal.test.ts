import { createServer, type Server } from 'node:http';
import { describe, expect, it } from 'vitest';
import { axeViolations, dashboardHost, runGoal } from './support.ts';

// The web tools in the dashboard's local mode, in Chromium: web_search finds what was ingested in
// the tab; internet_extract is refused until the Network page lets the profile use the network,
// then fetches a page that allows the dashboard's origin (CORS) from an allow-listed loopback
// address, refuses a private address literal without connecting, and fails typed on a page
// without CORS. Every run is journaled in the tab's IndexedDB.

const host = dashboardHost('web-tools-local');

const ARTICLE =
  '<!doctype html><html><head><title>Hive care</title></head><body><nav><a href="/">Home</a> <a href="/shop">Shop</a></nav>' +
  '<article><h1>Hive care in late summer</h1><p>Varroa mites weaken honey bee colonies, so beekeepers count mites in August.</p>' +
  '<p>Treat the hives after the honey harvest and check the queen before winter.</p></article><footer>© Bee club</footer></body></html>';

/** A page server on loopback: /article allows `origin` (CORS), /no-cors does not; counts requests. */
async function pageServer(origin: string): Promise<{ url: string; hits: string[]; server: Server }> {
  const hits: string[] = [];
  const server = createServer((request, response) => {
    hits.push(request.url ?? '');
    const cors = request.url === '/article' ? { 'access-control-allow-origin': origin } : {};
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...cors }).end(ARTICLE);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, hits, server };
}

describe('the web tools in local mode', () => {
  it('searches the tab’s corpus, and extracts pages only for profiles the Network page allows', { timeout: 90_000 }, async () => {
    const origin = new URL(host.server.url).origin;
    const pages = await pageServer(origin);
    const context = await host.browser.newContext({ viewport: { width: 1280, height: 900 } });
    try {
      const page = await context.newPage();
      await page.goto(`${host.server.url}/#mode=local`);
      await page.getByRole('heading', { name: 'Runs' }).waitFor();

      // web_search over what this tab ingested.
      await page.getByRole('navigation').getByRole('link', { name: 'Memory' }).click();
      await page.getByLabel(/Documents/).setInputFiles([
        { name: 'bees.md', mimeType: 'text/markdown', buffer: Buffer.from('Varroa mites weaken honey bee colonies; treat hives in late summer.') },
        { name: 'tea.txt', mimeType: 'text/plain', buffer: Buffer.from('Oolong tea can be steeped several times.') },
      ]);
      await page.getByText('Ingested 2 document(s)').waitFor();
      await runGoal(page, 'web_search(query="varroa mites")');
      await expect.poll(() => page.locator('.outputs').last().textContent(), { timeout: 30_000 }).toContain('bees.md');
      expect(await page.locator('.outputs').last().textContent()).toContain('"source": "corpus"');

      // Without the Network page's permission the profile may not fetch: refused before anything is sent.
      await runGoal(page, `internet_extract(url="${pages.url}/article")`);
      await expect.poll(() => page.locator('main').textContent(), { timeout: 30_000 }).toContain('network_not_allowed');
      expect(pages.hits).toEqual([]);

      await page.getByRole('navigation').getByRole('link', { name: 'Network' }).click();
      await page.getByLabel('Profiles that may use the network').fill('demo');
      await page.getByLabel('Private hosts and ranges they may reach anyway').fill('127.0.0.1/32');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByText('Saved. Reload the page to apply.').waitFor();
      expect(await axeViolations(page)).toEqual([]);
      await page.screenshot({ path: `${host.shots}/network-page.png` });
      await page.reload();

      await runGoal(page, `internet_extract(url="${pages.url}/article")`);
      await expect.poll(() => page.locator('.outputs').last().textContent(), { timeout: 30_000 }).toContain('Varroa mites weaken honey bee colonies');
      const extracted = (await page.locator('.outputs').last().textContent()) ?? '';
      expect(extracted).toContain('"summarySource": "extractive"');
      expect(extracted).not.toContain('© Bee club');
      expect(pages.hits).toEqual(['/article']);

      // A private address outside the allow-list is refused without connecting; a page without CORS fails typed.
      await runGoal(page, 'internet_extract(url="http://10.0.0.1/article")');
      await expect.poll(() => page.locator('main').textContent(), { timeout: 30_000 }).toContain('url_refused');
      await runGoal(page, `internet_extract(url="${pages.url}/no-cors")`);
      await expect.poll(() => page.locator('main').textContent(), { timeout: 30_000 }).toContain('fetch_failed');
      await page.screenshot({ path: `${host.shots}/extract-run.png`, fullPage: true });
    } finally {
      await context.close();
      pages.server.close();
    }
  });
});
