import type { Server } from 'node:http';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceReport } from '../../src/core/index.ts';
import { USERS_SPEC } from '../support/serviceSpecs.ts';
import { launchChromium, servePage } from './support.ts';

// The microservice builder in Chromium: the same spec as on Node, smoke-tested in the browser
// sandbox's Web Worker with the hono realm library.

let served: { url: string; server: Server };
let browser: Browser;
let page: Page;

beforeAll(async () => {
  served = await servePage(join(import.meta.dirname, 'pages', 'serviceBuilderPage.ts'));
  browser = await launchChromium();
  page = await browser.newPage();
  await page.goto(served.url);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  served?.server.close();
});

describe('microservice_builder in Chromium', () => {
  it('smoke-tests every route in a Web Worker of the sandbox frame', { timeout: 60_000 }, async () => {
    const { report, paths } = await page.evaluate(
      (spec) => (window as unknown as { buildService: (s: unknown) => Promise<{ report: ServiceReport; paths: string[] }> }).buildService(spec),
      USERS_SPEC,
    );
    expect(paths).toEqual(['package.json', 'service.ts', 'service.test.ts', 'report.json']);
    expect(report.audit.ok).toBe(true);
    expect(report.smoke).toMatchObject({ host: 'browser', ran: true });
    expect(report.smoke.checks.map((c) => `${c.route} ${c.case} ${c.status} ${c.ok}`)).toEqual([
      'GET /users/:id example 200 true',
      'GET /users/:id missing_query 400 true',
      'POST /users example 201 true',
      'POST /users bad_body 400 true',
      'GET /health example 200 true',
    ]);
    expect(report.ok).toBe(true);
  });
});
