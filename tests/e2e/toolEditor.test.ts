import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { axeViolations, dashboardHost, runGoal } from './support.ts';

const host = dashboardHost('tool-editor');
const shots = host.shots;

/** Run `tally` on `text` through the API with a one-step plan; the output of its step. */
async function runTally(text: string): Promise<unknown> {
  const response = await fetch(`${host.server.url}/v1/runs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${host.server.localToken}`, 'content-type': 'application/json', prefer: 'wait=20' },
    body: JSON.stringify({ goal: `tally ${text}`, profile: 'demo', plan: [{ tool: 'tally', input: { text } }] }),
  });
  const outcome = (await response.json()) as { status: string; outputs: Record<string, unknown> };
  expect(outcome.status).toBe('completed');
  return Object.values(outcome.outputs)[0];
}

const source = (factor: number) => `export default function handler(input) {\n  return { words: input.text.split(' ').length * ${factor} };\n}\n`;

describe('the tool editor', () => {
  it('proposes, shows audit findings, approves, lists versions and rolls back', { timeout: 90_000 }, async () => {
    const page = await (await host.browser.newContext({ viewport: { width: 1280, height: 1000 } })).newPage();
    await page.goto(`${host.server.url}/#token=${host.server.localToken}`);
    await page.getByRole('heading', { name: 'Runs' }).waitFor();
    await page.goto(`${host.server.url}/#/tools`);
    await page.getByRole('link', { name: /Write a tool/ }).click();
    await page.getByRole('heading', { name: /Tool editor/ }).waitFor();
    await page.getByText('No versions yet.').waitFor();
    expect(await axeViolations(page)).toEqual([]);

    const form = page.getByRole('form', { name: 'Propose a tool version' });
    await form.getByLabel('Tool name').fill('tally');
    await form.getByLabel('Description').fill('Count the words of a text');
    // A source the auditor refuses: every finding is listed.
    await form.getByLabel('Source').fill('export default (input) => { fetch("http://example.com"); return eval(input.text); }');
    await form.getByRole('button', { name: 'Propose' }).click();
    const refused = page.getByRole('alert').filter({ hasText: 'Refused: audit_failed' });
    await refused.waitFor();
    expect(await refused.getByRole('list', { name: 'Audit findings' }).locator('li').count()).toBeGreaterThanOrEqual(2);
    expect(await refused.textContent()).toContain('dynamic_code');
    expect(await axeViolations(page)).toEqual([]);

    // Version 1: audited, waiting, approved from the history.
    await form.getByLabel('Source').fill(source(1));
    await form.getByRole('button', { name: 'Propose' }).click();
    await page.getByRole('status').filter({ hasText: 'waiting for approval' }).waitFor();
    const rows = page.locator('table.tool-versions tbody tr');
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.nth(0).textContent()).toContain('proposed');
    await rows
      .nth(0)
      .getByRole('button', { name: /Approve/ })
      .click();
    await expect.poll(() => rows.nth(0).textContent()).toContain('active');
    // Who proposed and approved it: the token's principal id, readable (not the token).
    expect(await rows.nth(0).textContent()).toMatch(/principal:[0-9a-f]{16}/);
    expect(await runTally('a b c')).toEqual({ words: 3 });

    // Version 2 replaces it; then roll back to version 1.
    await form.getByLabel('Source').fill(source(10));
    await form.getByRole('button', { name: 'Propose' }).click();
    await expect.poll(() => rows.count()).toBe(2);
    await rows
      .nth(0)
      .getByRole('button', { name: /Approve/ })
      .click();
    await expect.poll(() => rows.nth(1).textContent()).toContain('retired');
    expect(await rows.nth(0).textContent()).toContain('active');
    expect(await runTally('a b c')).toEqual({ words: 30 });
    await rows
      .nth(1)
      .getByRole('button', { name: /Activate/ })
      .click();
    await expect.poll(() => rows.nth(1).textContent()).toContain('active');
    expect(await rows.nth(0).textContent()).toContain('retired');
    expect(await runTally('a b c')).toEqual({ words: 3 });
    // Any version's content fills the form, to propose the next version from it.
    await form.getByLabel('Source').fill('');
    await rows
      .nth(0)
      .getByRole('button', { name: /Edit a copy/ })
      .click();
    expect(await form.getByLabel('Source').inputValue()).toBe(source(10));
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: join(shots, 'tool-editor.png'), fullPage: true });
    // It fits a 360 px wide screen, history included.
    await page.setViewportSize({ width: 360, height: 740 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
  });

  it("in local mode, proposes, approves and runs a tool in the tab's own sandbox", { timeout: 90_000 }, async () => {
    const page = await (await host.browser.newContext({ viewport: { width: 1280, height: 1000 } })).newPage();
    await page.goto(`${host.server.url}/#mode=local`);
    await page.getByRole('heading', { name: 'Runs' }).waitFor();
    await page.goto(`${host.server.url}/#/tools/edit`);
    await page.getByText('No versions yet.').waitFor();
    const form = page.getByRole('form', { name: 'Propose a tool version' });
    await form.getByLabel('Tool name').fill('reverse_text');
    await form.getByLabel('Description').fill('Reverse the letters of a text');
    await form.getByLabel('Source').fill('export default (input) => ({ reversed: input.text.split("").reverse().join("") });');
    await form
      .getByLabel('Input schema (JSON Schema)')
      .fill(JSON.stringify({ type: 'object', properties: { text: { type: 'string', description: 'the text to reverse' } }, required: ['text'] }));
    await form.getByRole('button', { name: 'Propose' }).click();
    await page.getByRole('status').filter({ hasText: 'waiting for approval' }).waitFor();
    const rows = page.locator('table.tool-versions tbody tr');
    await rows
      .nth(0)
      .getByRole('button', { name: /Approve/ })
      .click();
    await expect.poll(() => rows.nth(0).textContent()).toContain('active');
    expect(await axeViolations(page)).toEqual([]);
    // A goal the planner gives to the new tool runs it in this tab's sandbox.
    await runGoal(page, 'reverse the text "hello world"');
    await expect.poll(() => page.locator('.outputs').textContent(), { timeout: 30_000 }).toContain('dlrow olleh');
  });
});
