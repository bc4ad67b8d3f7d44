import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { axeViolations, dashboardHost } from './support.ts';

const host = dashboardHost('runs-list');
const shots = host.shots;

beforeAll(async () => {
  const start = (goal: string) =>
    fetch(`${host.server.url}/v1/runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${host.server.localToken}`, 'content-type': 'application/json', prefer: 'wait=20' },
      body: JSON.stringify({ goal, profile: 'demo' }),
    }).then((response) => response.json());
  for (let i = 0; i < 54; i++) await start(`add ${i} and 1`);
  await start('add 1 and 2 then multiply the result by 3 then divide the result by 2');
  await start('divide 1 by 0');
}, 120_000);

describe('the runs list', () => {
  it('pages with More runs, sorts by a column, keeps its filters in the address and shows latency, cost, tokens and errors', { timeout: 60_000 }, async () => {
    const page = await (await host.browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await page.goto(`${host.server.url}/#token=${host.server.localToken}`);
    await page.getByRole('heading', { name: 'Runs' }).waitFor();
    const rows = page.locator('table.runs tbody tr');
    await expect.poll(() => rows.count()).toBe(50);
    await page.getByRole('button', { name: 'More runs' }).click();
    await expect.poll(() => rows.count()).toBe(56);
    expect(await page.getByRole('button', { name: 'More runs' }).count()).toBe(0);

    // The costliest run first, once Cost is the sort; the address says so and a reload keeps it.
    await page.getByRole('button', { name: 'Cost' }).click();
    await expect.poll(() => rows.first().textContent()).toContain('multiply');
    expect(page.url()).toContain('sort=cost');
    expect(await page.getByRole('columnheader', { name: /Cost/ }).getAttribute('aria-sort')).toBe('descending');
    await page.reload();
    await expect.poll(() => rows.first().textContent()).toContain('multiply');
    expect(await page.getByRole('columnheader', { name: /Cost/ }).getAttribute('aria-sort')).toBe('descending');

    // A failed run shows its error code; a search narrows the list and stays in the address.
    await page.getByLabel('Search').fill('divide 1 by 0');
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().textContent()).toMatch(/failed/);
    expect(page.url()).toContain('q=divide');
    await page.getByLabel('Search').fill('');
    await expect.poll(() => rows.count()).toBe(50);
    // Over time: today's bar holds every run, the failed one marked.
    await page.getByText(/^Over time/).click();
    await expect.poll(() => page.locator('.chart').count()).toBe(5);
    expect(await page.locator('.chart svg').first().getAttribute('aria-label')).toMatch(/^Runs a day \(failed marked\): highest 56 on \d{4}-\d\d-\d\d$/);
    expect(await page.locator('.chart').first().locator('rect.bar-marked').count()).toBe(1);
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: join(shots, 'runs-list.png') });
    await page.context().close();
  });

  it('compares two runs side by side and names their first divergence', { timeout: 60_000 }, async () => {
    const page = await (await host.browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await page.goto(`${host.server.url}/#token=${host.server.localToken}`);
    await page.getByRole('heading', { name: 'Runs' }).waitFor();
    await page.getByLabel('Search').fill('add 7 and 1');
    await expect.poll(() => page.locator('table.runs tbody tr').count()).toBe(1);
    await page.getByRole('checkbox', { name: 'Compare add 7 and 1' }).check();
    await page.getByLabel('Search').fill('add 8 and 1');
    await expect.poll(() => page.locator('table.runs tbody tr').count()).toBe(1);
    await page.getByRole('checkbox', { name: 'Compare add 8 and 1' }).check();
    await page.getByRole('link', { name: 'Compare the two runs picked' }).click();
    await page.getByRole('heading', { name: 'Compare runs' }).waitFor();
    await expect.poll(() => page.locator('.divergence').textContent()).toContain('At event 0');
    const fields = await page.locator('.divergence table').textContent();
    expect(fields).toContain('.data.inputs.goal');
    expect(fields).toContain('"add 7 and 1"');
    expect(fields).toContain('"add 8 and 1"');
    expect(await page.locator('.compare pre.outputs').allTextContents()).toEqual([expect.stringContaining('8'), expect.stringContaining('9')]);
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: join(shots, 'compare.png'), fullPage: true });
    await page.context().close();
  });
});
