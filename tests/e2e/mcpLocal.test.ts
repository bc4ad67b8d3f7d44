import { describe, expect, it } from 'vitest';
import { startEverythingHttp } from '../support/mcpFixtures.ts';
import { axeViolations, dashboardHost, runGoal } from './support.ts';

// Local mode's MCP client: the tab connects to a Streamable HTTP server itself (the reference
// server on loopback, allowing the dashboard's origin), registers its tools into a profile and
// calls them from runs in the browser, journaled in IndexedDB like every call.

const host = dashboardHost('mcp-local');

describe('MCP servers in local mode', () => {
  it('adds a server on the MCP page, connects it on reload and runs its tool in the tab', { timeout: 90_000 }, async () => {
    const origin = new URL(host.server.url).origin;
    const mcp = await startEverythingHttp({ MCP_ALLOW_ORIGIN: origin });
    const context = await host.browser.newContext({ viewport: { width: 1280, height: 900 } });
    try {
      const page = await context.newPage();
      await page.goto(`${host.server.url}/#mode=local`);
      await page.getByRole('heading', { name: 'Runs' }).waitFor();
      await page.getByRole('navigation').getByRole('link', { name: 'MCP' }).click();
      await page.getByText('No MCP server yet.').waitFor();
      // A bad name is refused with its reason, and nothing is kept.
      await page.getByLabel(/^Name/).fill('Not Valid');
      await page.getByLabel('URL (Streamable HTTP)').fill(mcp.url);
      await page.getByRole('button', { name: 'Add server' }).click();
      await page
        .getByRole('status')
        .getByText(/name: MCP server names are/)
        .waitFor();
      expect(await page.evaluate(() => localStorage.getItem('cugar.mcp.servers'))).toBeNull();
      await page.getByLabel(/^Name/).fill('everything');
      await page.getByRole('button', { name: 'Add server' }).click();
      await page.getByText('Added everything. Reload the page to connect it.').waitFor();
      expect(await axeViolations(page)).toEqual([]);
      await page.reload();
      await page.getByRole('heading', { name: 'MCP servers in this browser' }).waitFor();
      await page.getByText(/MCP server everything: \d+ tool\(s\) in profile "demo"/).waitFor();
      await page.screenshot({ path: `${host.shots}/mcp-page.png` });
      // It fits a 360 px wide screen, the server's URL included.
      await page.setViewportSize({ width: 360, height: 740 });
      expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
      await page.screenshot({ path: `${host.shots}/mcp-page-narrow.png`, fullPage: true });
      await page.setViewportSize({ width: 1280, height: 900 });
      // Its tools are the profile's, marked with their server.
      await page.getByRole('navigation').getByRole('link', { name: 'Tools' }).click();
      await page.getByRole('article', { name: /everything_echo/ }).waitFor();
      await runGoal(page, 'everything_echo(message="hello from the tab")');
      await expect.poll(() => page.locator('.outputs').last().textContent(), { timeout: 30_000 }).toContain('Echo: hello from the tab');
      // Removing it keeps nothing of it in the list.
      await page.getByRole('navigation').getByRole('link', { name: 'MCP' }).click();
      await page.getByRole('button', { name: 'Remove everything' }).click();
      await page.getByText('Removed everything. Reload the page to let it go.').waitFor();
      expect(await page.evaluate(() => localStorage.getItem('cugar.mcp.servers'))).toBe('[]');
    } finally {
      await context.close();
      await mcp.kill();
    }
  });
});
