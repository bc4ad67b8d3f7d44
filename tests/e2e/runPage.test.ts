import { join } from 'node:path';
import type { Page } from 'playwright';
import { describe, expect, it } from 'vitest';
import { axeViolations, dashboardHost } from './support.ts';

const host = dashboardHost('run-page');
const shots = host.shots;

async function start(goal: string): Promise<{ runId: string; status: string }> {
  const response = await fetch(`${host.server.url}/v1/runs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${host.server.localToken}`, 'content-type': 'application/json', prefer: 'wait=20' },
    body: JSON.stringify({ goal, profile: 'demo' }),
  });
  return (await response.json()) as { runId: string; status: string };
}

async function open(runId: string): Promise<Page> {
  const page = await (await host.browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  await page.goto(`${host.server.url}/#token=${host.server.localToken}`);
  await page.getByRole('heading', { name: 'Runs' }).waitFor();
  await page.goto(`${host.server.url}/#/runs/${runId}`);
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
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: join(shots, 'run-page.png'), fullPage: true });

    // The span tree: the steps inside the stage they ran in, selectable like the waterfall's rows.
    await page.getByRole('combobox', { name: /^View/ }).selectOption('tree');
    const execute = page.getByRole('list', { name: 'Span tree' }).locator('li', { has: page.getByRole('button', { name: /^stage execute/ }) });
    expect(await execute.getByRole('button').allTextContents()).toEqual(
      expect.arrayContaining([expect.stringMatching(/stage execute/), expect.stringMatching(/step-0 add #1/), expect.stringMatching(/step-1 multiply #1/)]),
    );
    await execute.getByRole('button', { name: /step-1 multiply #1/ }).click();
    await expect.poll(() => page.getByRole('region', { name: 'Span detail' }).textContent()).toContain('"b": 4');
    expect(await axeViolations(page)).toEqual([]);
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
    await page.goto(`${host.server.url}/#/runs?feedback=positive`);
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
    const response = await fetch(`${host.server.url}/v1/runs/${run.runId}`, { headers: { authorization: `Bearer ${host.server.localToken}` } });
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
