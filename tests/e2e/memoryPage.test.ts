import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { axeViolations, dashboardHost } from './support.ts';

const host = dashboardHost('memory');
const shots = host.shots;

describe('the Memory page', () => {
  it('lists ingested documents and deletes one; shows remembered notes, finds them by meaning and forgets one', { timeout: 60_000 }, async () => {
    const page = await (await host.browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await page.goto(`${host.server.url}/#token=${host.server.localToken}`);
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
      const response = await fetch(`${host.server.url}/v1/runs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${host.server.localToken}`, 'content-type': 'application/json', prefer: 'wait=20' },
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
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: join(shots, 'memory.png'), fullPage: true });
    await page.getByRole('button', { name: /Forget the garden gate/ }).click();
    await expect.poll(() => page.locator('ul.notes li', { hasText: 'garden gate' }).count()).toBe(0);
    // The documents' search never answered with a note.
    expect(await page.locator('ol.hits').count()).toBe(0);
    await page.context().close();
  });
});
