import { describe, expect, it } from 'vitest';
import { axeViolations, dashboardHost } from './support.ts';

const host = dashboardHost('widget', { widget: true });

describe('<cugar-agent> in a plain HTML page', () => {
  it('runs a goal in the page and against the server, reporting results as DOM events', { timeout: 60_000 }, async () => {
    const page = await (await host.browser.newContext()).newPage();
    await page.goto(`${host.server.url}/widget-demo.html#token=${host.server.localToken}`);
    const events = page.evaluateHandle(() => {
      const seen: Array<{ id: string; type: string; status?: string; outputs?: unknown }> = [];
      for (const type of ['cugar-result', 'cugar-approval', 'cugar-error']) {
        document.addEventListener(type, (event) => seen.push({ id: (event.target as HTMLElement).id, type, ...(event as CustomEvent).detail }));
      }
      return seen;
    });
    const local = page.locator('#local');
    await local.getByLabel('Ask the in-page agent').fill('add 2 and 3, then multiply the result by 4');
    await local.getByRole('button', { name: 'Run' }).click();
    await expect.poll(() => local.locator('output').textContent()).toBe('5\n20');
    const remote = page.locator('#remote');
    await remote.getByLabel("Ask the server's agent").fill('calculate (2 + 3) * 4 ^ 2');
    await remote.getByRole('button', { name: 'Run' }).click();
    await expect.poll(() => remote.locator('output').textContent()).toBe('80');
    await remote.getByLabel("Ask the server's agent").fill('send_message(to="ops", text="hi")');
    await remote.getByRole('button', { name: 'Run' }).click();
    await expect.poll(() => remote.locator('output').textContent()).toContain('Waiting for approval of send_message');
    // The page does not let its visitor decide: the element links to the inbox instead.
    expect(await remote.getByRole('link', { name: 'Open the approvals inbox' }).getAttribute('href')).toBe('/#/approvals');
    expect(await remote.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    // Someone approves in the inbox (the API): the element shows where the run ended.
    const auth = { authorization: `Bearer ${host.server.localToken}`, 'content-type': 'application/json' };
    const [pending] = (
      (await (await fetch(`${host.server.url}/v1/approvals?status=pending`, { headers: auth })).json()) as { approvals: { approvalId: string }[] }
    ).approvals;
    const decided = await fetch(`${host.server.url}/v1/approvals/${pending!.approvalId}`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ decision: 'approve', reason: 'inbox' }),
    });
    expect(decided.status).toBe(200);
    await expect.poll(() => remote.locator('output').textContent()).not.toContain('Waiting');
    expect(await remote.getByRole('link', { name: 'Open the approvals inbox' }).isVisible()).toBe(false);

    // A page that lets its visitor decide: Approve in the element continues the run.
    await remote.evaluate((el) => el.setAttribute('allow-approve', ''));
    await remote.getByLabel("Ask the server's agent").fill('send_message(to="ops", text="from the page")');
    await remote.getByRole('button', { name: 'Run' }).click();
    await remote.getByRole('button', { name: 'Approve' }).click();
    await expect.poll(() => remote.locator('output').textContent()).not.toContain('Waiting');
    expect(await remote.locator('output').getAttribute('class')).not.toBe('failed');
    const seen = await (await events).jsonValue();
    expect(seen.map((e) => `${e.id} ${e.type} ${e.status}`)).toEqual([
      'local cugar-result completed',
      'remote cugar-result completed',
      'remote cugar-approval paused',
      'remote cugar-result completed',
      'remote cugar-approval paused',
      'remote cugar-result completed',
    ]);
    // The theme comes from CSS custom properties set by the host page.
    const accent = await remote.evaluate((el) => getComputedStyle(el.shadowRoot!.querySelector('button')!).backgroundColor);
    expect(accent).toBe('rgb(109, 40, 217)');
    expect(await axeViolations(page)).toEqual([]);
  });
});
