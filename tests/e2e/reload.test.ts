import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright';
import type { Server } from 'node:http';
import { launchChromium, servePage } from './support.ts';

type Api = {
  cugarReload: {
    start(runId: string, steps: number): Promise<string>;
    progress(runId: string): Promise<number>;
    resumeAll(): Promise<string[]>;
    report(runId: string): Promise<{ status?: string; verified: boolean; resumed: number; ledger: Record<string, number>; outputs: Record<string, number> }>;
  };
};

let browser: Browser;
let server: Server;
let url: string;

beforeAll(async () => {
  ({ url, server } = await servePage(new URL('./pages/reloadPage.ts', import.meta.url).pathname));
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  server?.close();
});

describe('Chromium: reload the page in the middle of a run', () => {
  it('resumes the run from IndexedDB after the reload, with each step effect exactly once', { timeout: 60_000 }, async () => {
    const page = await browser.newPage();
    await page.goto(url);
    const steps = 12;
    await page.evaluate(([id, n]) => (globalThis as unknown as Api).cugarReload.start(id, n), ['reload-run', steps] as const);
    // Wait until a few steps are done, then reload mid-run.
    await page.waitForFunction(async () => (await (globalThis as unknown as Api).cugarReload.progress('reload-run')) >= 3, undefined, {
      polling: 20,
      timeout: 20_000,
    });
    const before = await page.evaluate(() => (globalThis as unknown as Api).cugarReload.progress('reload-run'));
    expect(before).toBeLessThan(steps);
    await page.reload();
    expect(await page.evaluate(() => (globalThis as unknown as Api).cugarReload.resumeAll())).toEqual(['completed']);
    const report = await page.evaluate(() => (globalThis as unknown as Api).cugarReload.report('reload-run'));
    expect(report.status).toBe('completed');
    expect(report.verified).toBe(true);
    expect(report.resumed).toBe(1);
    expect(Object.keys(report.ledger)).toHaveLength(steps);
    expect(Object.values(report.ledger).every((count) => count === 1)).toBe(true);
    expect(Object.keys(report.outputs)).toHaveLength(steps);
    await page.close();
  });
});
