import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import type { Page } from 'playwright';
import { describe, expect, it } from 'vitest';
import { startServer } from '../../src/edge/nodeServer.ts';
import { NodeBrowser, browserSettingsFromEnv, type PlaywrightModule } from '../../src/edge/domBrowserNode.ts';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../support/chromium.ts';
import { dashboardHost } from './support.ts';

const host = dashboardHost('dom-agent', { widget: true });

interface JournalEvent {
  type: string;
  data: Record<string, unknown>;
}
interface SnapshotNode {
  role: string;
  name?: string;
  value?: string;
  redacted?: true;
  checked?: boolean;
  children?: SnapshotNode[];
}

function find(nodes: readonly SnapshotNode[], role: string, name: string): SnapshotNode | undefined {
  for (const node of nodes) {
    if (node.role === role && node.name === name) return node;
    const inner = find(node.children ?? [], role, name);
    if (inner) return inner;
  }
  return undefined;
}

async function openDemo(): Promise<Page> {
  const page = await (await host.browser.newContext()).newPage();
  await page.goto(`${host.server.url}/agent-demo.html`);
  await page.evaluate(() => {
    const seen: Array<{ type: string; runId?: string; status?: string; code?: string }> = [];
    (window as unknown as { seen: typeof seen }).seen = seen;
    for (const type of ['cugar-result', 'cugar-approval', 'cugar-error'])
      document.addEventListener(type, (event) => {
        const detail = (event as CustomEvent<{ runId?: string; status?: string; code?: string }>).detail;
        seen.push({ type, ...(detail.runId ? { runId: detail.runId } : {}), ...(detail.status ? { status: detail.status } : {}) });
      });
  });
  return page;
}

async function runGoal(page: Page, goal: string): Promise<void> {
  const agent = page.locator('#agent');
  await agent.getByLabel('Ask the agent').fill(goal);
  await agent.getByRole('button', { name: 'Run' }).click();
}

describe('the DOM agent in <cugar-agent mode="local" allow-selectors="form#signup" allow-approve>', () => {
  it('fills and submits the form after approvals in the element, journaling each action with before/after snapshots', { timeout: 90_000 }, async () => {
    const page = await openDemo();
    const agent = page.locator('#agent');
    // A person typed a password: no snapshot may capture it.
    await page.fill('#password', 'hunter2-secret');
    await runGoal(
      page,
      'dom_fill(selector="#name", value="Ana"); dom_fill(selector="#email", value="ana@example.com"); dom_select(selector="#plan", value="team"); dom_click(selector="#terms"); dom_click(selector="button[type=submit]")',
    );
    const expected = ['dom_fill', 'dom_fill', 'dom_select', 'dom_click', 'dom_click'];
    const approvals = () =>
      page.evaluate(() => (window as unknown as { seen: Array<{ type: string }> }).seen.filter((e) => e.type === 'cugar-approval').length);
    for (const [index, tool] of expected.entries()) {
      // Each action pauses the run anew; the element announces each pause once.
      await expect.poll(approvals).toBe(index + 1);
      expect(await agent.locator('output').textContent()).toContain(`Waiting for approval of ${tool}`);
      if (index === 0) {
        // Nothing changes before the person approves.
        await page.waitForTimeout(300);
        expect(await page.inputValue('#name')).toBe('');
      }
      await agent.getByRole('button', { name: 'Approve' }).click();
    }
    await expect
      .poll(() => page.locator('#confirmation').textContent(), { timeout: 20_000 })
      .toBe('Thanks, Ana: ana@example.com is signed up for the team plan, terms accepted.');
    const events = () => page.evaluate(() => (window as unknown as { seen: Array<{ type: string; runId?: string; status?: string }> }).seen);
    await expect.poll(async () => (await events()).at(-1)?.type).toBe('cugar-result');
    const seen = await events();
    expect(seen.map((event) => `${event.type} ${event.status}`)).toEqual([...expected.map(() => 'cugar-approval paused'), 'cugar-result completed']);
    const runId = seen.at(-1)!.runId!;

    // The journal, exported through the element's own API (the in-page runtime).
    const journal = (await agent.evaluate(
      (element, id) => (element as unknown as { journal(runId: string): Promise<unknown[]> }).journal(id),
      runId,
    )) as JournalEvent[];
    const outputs = journal.filter((event) => event.type === 'tool_call_complete').map((event) => event.data['output'] as Record<string, unknown>);
    expect(outputs.map((output) => `${output['action']} ${output['selector']}`)).toEqual([
      'fill #name',
      'fill #email',
      'select #plan',
      'click #terms',
      'click button[type=submit]',
    ]);
    const [fillName, , select, check, submit] = outputs as Array<{
      before: { nodes: SnapshotNode[] };
      after: { nodes: SnapshotNode[] };
      url: string;
      target: unknown;
    }>;
    expect(fillName!.url).toBe(`${host.server.url}/agent-demo.html`);
    expect(fillName!.target).toEqual({ role: 'textbox', name: 'Name', selector: '#name' });
    expect(find(fillName!.before.nodes, 'textbox', 'Name')?.value).toBe('');
    expect(find(fillName!.after.nodes, 'textbox', 'Name')?.value).toBe('Ana');
    expect(find(select!.before.nodes, 'combobox', 'Plan')?.value).toBe('free');
    expect(find(select!.after.nodes, 'combobox', 'Plan')?.value).toBe('team');
    expect(find(check!.before.nodes, 'checkbox', 'I accept the terms')?.checked).toBe(false);
    expect(find(check!.after.nodes, 'checkbox', 'I accept the terms')?.checked).toBe(true);
    expect(find(submit!.before.nodes, 'status', '')).toBeUndefined();
    expect(JSON.stringify(submit!.after.nodes)).toContain('Thanks, Ana: ana@example.com is signed up for the team plan');
    // The password field is in every snapshot, redacted; its value is nowhere in the journal.
    expect(find(fillName!.before.nodes, 'textbox', 'Password')).toEqual(expect.objectContaining({ redacted: true }));
    expect(find(fillName!.before.nodes, 'textbox', 'Password')?.value).toBeUndefined();
    expect(JSON.stringify(journal)).not.toContain('hunter2-secret');
    // Only the allowed subtree is snapshotted: the section outside the form and the agent's own UI are absent.
    expect(JSON.stringify(journal)).not.toContain('the agent may not read this');
    expect(JSON.stringify(outputs)).not.toContain('Ask the agent');
    const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
    expect(results.violations.map((v) => v.id)).toEqual([]);
  });

  it('refuses parts of the page outside the allow-list, the element itself and its shadow DOM', { timeout: 90_000 }, async () => {
    const page = await openDemo();
    const agent = page.locator('#agent');
    const attempt = async (goal: string) => {
      await runGoal(page, goal);
      await expect.poll(() => agent.locator('output').getAttribute('class')).toBe('failed');
      const text = (await agent.locator('output').textContent()) ?? '';
      await agent.getByLabel('Ask the agent').fill('');
      return text;
    };
    // Reads need no approval: the refusal comes at once.
    expect(await attempt('dom_read_text(selector="#secret-note")')).toMatch(/outside what this page allows/);
    expect(await attempt('dom_snapshot(selector="cugar-agent")')).toMatch(/outside what this page allows/);
    // The element's shadow DOM is out of any selector's reach.
    expect(await attempt('dom_read_text(selector="input[part=input]")')).toMatch(/no element matches/);
    // A password field takes no typing from the agent (its inputs would be journaled).
    await runGoal(page, 'dom_fill(selector="#password", value="typed-by-agent")');
    await expect.poll(() => agent.locator('output').textContent()).toContain('Waiting for approval of dom_fill');
    await agent.getByRole('button', { name: 'Approve' }).click();
    await expect.poll(() => agent.locator('output').getAttribute('class')).toBe('failed');
    expect(await agent.locator('output').textContent()).toMatch(/secret field/);
    expect(await page.inputValue('#password')).toBe('');
    // An action on the element itself is refused after its approval too, and the page is unchanged.
    await agent.getByLabel('Ask the agent').fill('');
    await runGoal(page, 'dom_click(selector="#agent")');
    await expect.poll(() => agent.locator('output').textContent()).toContain('Waiting for approval of dom_click');
    await agent.getByRole('button', { name: 'Approve' }).click();
    await expect.poll(() => agent.locator('output').getAttribute('class')).toBe('failed');
    expect(await agent.locator('output').textContent()).toMatch(/outside what this page allows/);
    // Inside the allow-list, a read works and sees only the form.
    await agent.getByLabel('Ask the agent').fill('');
    await runGoal(page, 'dom_read_text(selector="#signup")');
    await expect.poll(() => agent.locator('output').getAttribute('class')).toBe('');
    await expect.poll(() => agent.locator('output').textContent()).toContain('I accept the terms');
    expect(await agent.locator('output').textContent()).not.toContain('may not read this');
    // A second element of the page cannot widen the same profile's reach.
    await page.evaluate(() => {
      const second = document.createElement('cugar-agent');
      second.id = 'second';
      second.setAttribute('mode', 'local');
      second.setAttribute('label', 'Second agent');
      second.setAttribute('allow-selectors', 'section');
      document.querySelector('main')!.append(second);
    });
    const second = page.locator('#second');
    await second.getByLabel('Second agent').fill('dom_read_text(selector="#secret-note")');
    await second.getByRole('button', { name: 'Run' }).click();
    await expect.poll(() => second.locator('output').getAttribute('class')).toBe('failed');
    expect(await second.locator('output').textContent()).toMatch(/another agent element of this page already allows profile "demo"/);
  });
});

describe('the same DOM tools on Node, through Playwright driving Chromium', () => {
  // This machine's Chromium, as the other browser tests use.
  const loadPlaywright = async (): Promise<PlaywrightModule> => {
    const { chromium } = await import('playwright');
    return { chromium: { launch: (options) => chromium.launch({ ...options, executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS }) } };
  };

  it('opens an allowed page, fills and submits its form with before/after snapshots, and loads nothing from other origins', { timeout: 90_000 }, async () => {
    let elsewhereHits = 0;
    const elsewhere = createServer((_req, res) => {
      elsewhereHits++;
      res.writeHead(200, { 'content-type': 'image/png' }).end();
    });
    await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
    const elsewhereUrl = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}`;
    const html = readFileSync(join(import.meta.dirname, '..', '..', 'public/agent-demo.html'), 'utf8').replace(
      '</body>',
      `<img src="${elsewhereUrl}/pixel.png" alt=""></body>`,
    );
    const site = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(html));
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    const siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    const browser = new NodeBrowser({ allowOrigins: [siteUrl], allowSelectors: ['form#signup'], timeoutMs: 15_000 }, loadPlaywright);
    const signal = new AbortController().signal;
    try {
      const driver = browser.driver();
      await expect(driver.snapshot({}, signal)).rejects.toMatchObject({ code: 'no_page' });
      await expect(browser.open(`${elsewhereUrl}/`)).rejects.toMatchObject({ code: 'origin_not_allowed' });
      expect(await browser.open(`${siteUrl}/agent-demo.html?token=x`)).toEqual({
        url: `${siteUrl}/agent-demo.html`,
        title: 'Sign up, with an in-page agent',
        status: 200,
      });
      const fill = await driver.act({ action: 'fill', selector: '#name', value: 'Ana' }, signal);
      expect(find(fill.before.nodes, 'textbox', 'Name')?.value).toBe('');
      expect(find(fill.after.nodes, 'textbox', 'Name')?.value).toBe('Ana');
      await driver.act({ action: 'fill', selector: '#email', value: 'ana@example.com' }, signal);
      await driver.act({ action: 'select', selector: '#plan', value: 'enterprise' }, signal);
      const check = await driver.act({ action: 'click', selector: '#terms' }, signal);
      expect(find(check.after.nodes, 'checkbox', 'I accept the terms')?.checked).toBe(true);
      const submit = await driver.act({ action: 'click', selector: 'button[type=submit]' }, signal);
      expect(JSON.stringify(submit.after.nodes)).toContain('Thanks, Ana: ana@example.com is signed up for the enterprise plan, terms accepted.');
      await expect(driver.act({ action: 'fill', selector: '#password', value: 'x' }, signal)).rejects.toMatchObject({ code: 'secret_field' });
      await expect(driver.readText({ selector: '#secret-note', maxChars: 1000 }, signal)).rejects.toMatchObject({ code: 'outside_allow_list' });
      expect((await driver.readText({ maxChars: 1000 }, signal)).text).toContain('I accept the terms');
      expect(elsewhereHits).toBe(0);
    } finally {
      await browser.close();
      site.close();
      elsewhere.close();
    }
  });

  it('reports unsupported_host when Playwright cannot be loaded, and registers the tools only when configured', async () => {
    const missing = new NodeBrowser({ allowOrigins: ['http://127.0.0.1:9'], allowSelectors: ['body'], timeoutMs: 1000 }, () =>
      Promise.reject(new Error('Cannot find package')),
    );
    await expect(missing.open('http://127.0.0.1:9/')).rejects.toMatchObject({ code: 'unsupported_host' });
    expect(browserSettingsFromEnv({})).toBeUndefined();
    expect(browserSettingsFromEnv({ CUGAR_BROWSER_ALLOW: 'https://shop.example/' })).toMatchObject({
      allowOrigins: ['https://shop.example'],
      allowSelectors: ['body'],
    });
    expect(() => browserSettingsFromEnv({ CUGAR_BROWSER_ALLOW: 'file:///etc' })).toThrow(expect.objectContaining({ code: 'invalid_allow_origins' }) as Error);
    // The server started above has no browser configured: no DOM tools on Node.
    const tools = (await (
      await fetch(`${host.server.url}/v1/profiles/demo/tools`, { headers: { authorization: `Bearer ${host.server.localToken}` } })
    ).json()) as {
      tools: { name: string }[];
    };
    expect(tools.tools.map((tool) => tool.name).filter((name) => name.startsWith('dom_'))).toEqual([]);
    const browserDir = mkdtempSync(join(tmpdir(), 'cugar-dom-browser-'));
    const withBrowser = await startServer({
      port: 0,
      dataDir: browserDir,
      corpusDir: join(browserDir, 'none'),
      log: () => undefined,
      browser: { allowOrigins: ['http://127.0.0.1:9'], allowSelectors: ['body'], timeoutMs: 1000 },
    });
    try {
      const listed = (await (
        await fetch(`${withBrowser.url}/v1/profiles/demo/tools`, { headers: { authorization: `Bearer ${withBrowser.localToken}` } })
      ).json()) as {
        tools: { name: string; requiresApproval: boolean; allowNetwork: boolean }[];
      };
      expect(listed.tools.filter((tool) => tool.name.startsWith('dom_')).map((tool) => `${tool.name} ${tool.requiresApproval} ${tool.allowNetwork}`)).toEqual([
        'dom_click true false',
        'dom_fill true false',
        'dom_open false true',
        'dom_read_text false false',
        'dom_select true false',
        'dom_snapshot false false',
        'dom_submit true false',
      ]);
    } finally {
      await withBrowser.close();
      rmSync(browserDir, { recursive: true, force: true });
    }
  });
});
