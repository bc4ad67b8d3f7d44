import * as z from 'zod';
import {
  CugarError,
  DomScope,
  NotFoundError,
  PolicyViolationError,
  defineTool,
  documentDomDriver,
  parseAllowOrigins,
  parseAllowSelectors,
  registerDomTools,
  selectorFor,
  snapshotElements,
  type DomActionOutput,
  type DomDocumentLike,
  type DomDriver,
  type DomPerform,
} from '../core/index.ts';
import type { Browser, BrowserContext, BrowserType, Page } from 'playwright';
import type { Runtime } from '../api/runtime.ts';
import { parseHTML } from 'linkedom';

/** Where the Node host's DOM tools may go, and what of each page they may use. */
export interface NodeBrowserSettings {
  /** Origins the browser may load anything from (pages and their resources); nothing else loads. */
  allowOrigins: string[];
  /** The parts of each page the tools may read and act in. Default the whole body. */
  allowSelectors: string[];
  /** A Chromium to drive instead of Playwright's own download (`CUGAR_BROWSER_EXECUTABLE`). */
  executablePath?: string;
  /** Most milliseconds one navigation or action may take. Default 15 s. */
  timeoutMs: number;
}

/** `CUGAR_BROWSER_ALLOW` (origins), `CUGAR_BROWSER_SELECTORS`, `CUGAR_BROWSER_EXECUTABLE`: absent `CUGAR_BROWSER_ALLOW` means no browser tools. */
export function browserSettingsFromEnv(env: Record<string, string | undefined>): NodeBrowserSettings | undefined {
  const allow = env['CUGAR_BROWSER_ALLOW']?.trim();
  if (!allow) return undefined;
  const executablePath = env['CUGAR_BROWSER_EXECUTABLE']?.trim();
  return {
    allowOrigins: parseAllowOrigins(allow),
    allowSelectors: parseAllowSelectors(env['CUGAR_BROWSER_SELECTORS']?.trim() || 'body'),
    ...(executablePath ? { executablePath } : {}),
    timeoutMs: 15_000,
  };
}

/** The part of Playwright the browser tools use. */
export interface PlaywrightModule {
  chromium: Pick<BrowserType, 'launch'>;
}

/** The live state of a page: its markup, address and its form controls' current values (which markup does not hold). */
interface PageState {
  html: string;
  url: string;
  controls: Array<{ value: string; checked: boolean; selected: boolean[] }>;
}

function readPageState(page: Page): Promise<PageState> {
  return page.evaluate(() => ({
    html: document.documentElement.outerHTML,
    url: location.href,
    controls: Array.from(document.querySelectorAll('input, select, textarea')).map((control) => ({
      value: (control as HTMLInputElement).value,
      checked: control instanceof HTMLInputElement && control.checked,
      selected: control instanceof HTMLSelectElement ? Array.from(control.options).map((option) => option.selected) : [],
    })),
  }));
}

/** The page as a linkedom document carrying the live values, so the core's snapshot and checks apply unchanged. */
function documentOf(state: PageState): DomDocumentLike {
  const { document } = parseHTML(state.html);
  const controls = Array.from(document.querySelectorAll('input, select, textarea'));
  if (controls.length === state.controls.length) {
    controls.forEach((control, index) => {
      const live = state.controls[index]!;
      if (control.tagName === 'SELECT')
        control.querySelectorAll('option').forEach((option, i) => option.toggleAttribute('selected', live.selected[i] === true));
      else if (control.tagName === 'TEXTAREA') control.textContent = live.value;
      else {
        control.setAttribute('value', live.value);
        control.toggleAttribute('checked', live.checked);
      }
    });
  }
  return document as unknown as DomDocumentLike;
}

/**
 * The DOM tools' driver on Node: one Chromium page driven by Playwright, loading only the
 * allowed origins (every other request is aborted). Reads and checks run in the core over a
 * copy of the page with its live values; actions go to the page through Playwright. Playwright
 * is loaded when first needed: without it every call fails with `unsupported_host`.
 */
export class NodeBrowser {
  readonly settings: NodeBrowserSettings;
  readonly #load: () => Promise<PlaywrightModule>;
  #session: Promise<{ browser: Browser; context: BrowserContext; page: Page }> | undefined;
  #opened = false;

  constructor(settings: NodeBrowserSettings, load: () => Promise<PlaywrightModule> = () => import('playwright')) {
    this.settings = settings;
    this.#load = load;
  }

  #page(): Promise<Page> {
    this.#session ??= (async () => {
      let playwright: PlaywrightModule;
      try {
        playwright = await this.#load();
      } catch (cause) {
        throw new CugarError('the browser tools need Playwright, which this host does not have', { code: 'unsupported_host', failureMode: 'SYSTEM', cause });
      }
      const browser = await playwright.chromium.launch({
        ...(this.settings.executablePath ? { executablePath: this.settings.executablePath } : {}),
        args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
      });
      const context = await browser.newContext({ acceptDownloads: false, serviceWorkers: 'block' });
      await context.route('**/*', (route) => (this.#allowed(route.request().url()) ? route.continue() : route.abort('blockedbyclient')));
      const page = await context.newPage();
      page.setDefaultTimeout(this.settings.timeoutMs);
      return { browser, context, page };
    })();
    this.#session.catch(() => (this.#session = undefined));
    return this.#session.then((session) => session.page);
  }

  #allowed(url: string): boolean {
    try {
      const parsed = new URL(url);
      return parsed.protocol === 'data:' || parsed.protocol === 'about:' || this.settings.allowOrigins.includes(parsed.origin);
    } catch {
      return false;
    }
  }

  /** Open `url` (an allowed origin only); returns its address and title. */
  async open(url: string): Promise<{ url: string; title: string; status: number | null }> {
    if (!this.#allowed(url) || !/^https?:/.test(url))
      throw new PolicyViolationError(`${url} is not on an origin the browser tools may open (${this.settings.allowOrigins.join(', ')})`, {
        code: 'origin_not_allowed',
      });
    const page = await this.#page();
    const response = await page.goto(url, { waitUntil: 'load' });
    this.#opened = true;
    const at = new URL(page.url());
    return { url: `${at.origin}${at.pathname}`, title: await page.title(), status: response?.status() ?? null };
  }

  async #driver(perform: (page: Page, step: DomPerform) => Promise<void> = () => Promise.resolve()): Promise<{ driver: DomDriver; page: Page }> {
    if (!this.#opened) throw new NotFoundError('no page is open: call dom_open first', { code: 'no_page' });
    const page = await this.#page();
    const state = await readPageState(page);
    const driver = documentDomDriver({
      document: documentOf(state),
      allowSelectors: this.settings.allowSelectors,
      allowOrigins: this.settings.allowOrigins,
      pageUrl: () => state.url,
      perform: (step) => perform(page, step),
    });
    return { driver, page };
  }

  /** The DOM tools' contract over this browser's page. */
  driver(): DomDriver {
    return {
      readText: async (request, signal) => (await this.#driver()).driver.readText(request, signal),
      snapshot: async (request, signal) => (await this.#driver()).driver.snapshot(request, signal),
      act: async (action, signal) => {
        const { driver, page } = await this.#driver(performWithPlaywright);
        const output: DomActionOutput = await driver.act(action, signal);
        await page.waitForLoadState('load');
        // The "after" snapshot comes from the page as it is now, not the copy the action was checked on.
        const document = documentOf(await readPageState(page));
        const scope = new DomScope(document, this.settings.allowSelectors);
        const target = Array.from(document.querySelectorAll(output.target.selector ?? ':not(*)'))[0];
        const subtree = target ? scope.subtreeOf(target) : undefined;
        return { ...output, after: snapshotElements(subtree ? [subtree] : scope.subtrees(), { scope }) };
      },
    };
  }

  /** Close the browser (the next call starts another). */
  async close(): Promise<void> {
    const session = this.#session;
    this.#session = undefined;
    this.#opened = false;
    if (session) await (await session.catch(() => undefined))?.browser.close();
  }
}

async function performWithPlaywright(page: Page, step: DomPerform): Promise<void> {
  const locate = (element: Parameters<typeof selectorFor>[0]) => page.locator(selectorFor(element)).first();
  switch (step.action) {
    case 'click':
      return locate(step.element).click();
    case 'fill':
      return locate(step.element).fill(step.value);
    case 'select':
      await locate(step.element).selectOption(
        step.options.map((option) => ({ index: Array.from(option.parentElement?.querySelectorAll('option') ?? []).indexOf(option) })),
      );
      return;
    case 'submit':
      return locate(step.form).evaluate((form) => (form as HTMLFormElement).requestSubmit());
  }
}

/**
 * Register `dom_open` and the DOM tools over a {@link NodeBrowser} in the runtime's default
 * profile. `dom_open` touches the network, so the profile must allow it. Returns the browser
 * (close it with the host) and the names registered.
 */
export function registerNodeBrowserTools(
  runtime: Runtime,
  settings: NodeBrowserSettings,
  load?: () => Promise<PlaywrightModule>,
): { browser: NodeBrowser; names: string[] } {
  const browser = new NodeBrowser(settings, load);
  const profile = runtime.config.defaultProfile;
  runtime.registry.register(
    profile,
    'dom_open',
    defineTool({
      description: `Open a web page in the host's browser (origins: ${settings.allowOrigins.join(', ')}) for the DOM tools to read and act on.`,
      parameters: z.object({ url: z.string().url().max(2000).describe('address of the page, on an allowed origin') }),
      cost: 2,
      latency: 1500,
      capabilities: ['dom.read', 'net.http'],
      allowNetwork: true,
      idempotent: true,
      handler: ({ url }) => browser.open(url),
    }),
  );
  const names = registerDomTools(runtime.registry, browser.driver(), profile, { where: "the host browser's page" });
  return { browser, names: ['dom_open', ...names] };
}
