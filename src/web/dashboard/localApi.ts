// Local mode: the whole runtime in this tab. The same Hono app the servers run answers the
// dashboard's requests in-page, over IndexedDB, so the screens are identical in both modes
// and nothing leaves the browser.
import { PolicyEnforcer, parseConfig, type Sandbox } from '../../core/index.ts';
import { createApp } from '../../api/app.ts';
import { PROCESS_LIFETIME_CONTEXT } from '../../api/executionContext.ts';
import { babelParser } from '../../api/codeParser.ts';
import { createRuntime, type Runtime } from '../../api/runtime.ts';
import { RAW_JOURNAL_SCOPE } from '../../api/security.ts';
import { IndexedDbStore, requestPersistentStorage } from '../indexedDbStore.ts';
import { BrowserVault } from '../secretVault.ts';

/** Where this tab keeps its model's endpoint and ids (the Model page); the key is a vault secret. */
export const MODEL_URL_KEY = 'cugar.model.url';
export const MODEL_IDS_KEY = 'cugar.model.ids';
export const MODEL_KEY_SECRET = 'CUGAR_MODEL_KEY';

/** The bearer token of the in-page app; it never leaves the tab. */
export const LOCAL_TOKEN = 'local-mode-token-in-this-tab';

let vault: Promise<BrowserVault> | undefined;

/** The tab's secrets vault: credentials its tools read by name, kept in this browser only. */
export function localVault(): Promise<BrowserVault> {
  return (vault ??= BrowserVault.open());
}

let runtimeBuilt: Runtime | undefined;
const runtimeSetups: Array<() => void> = [];

/**
 * Add to the tab's runtime (the widget registers its page's DOM tools here): at once when it is
 * built, else as it is built, before the runs a reload interrupted resume. Resolves once `setup`
 * ran, or rejects with what it threw (the runtime goes on without it).
 */
export function extendLocalRuntime(setup: (runtime: Runtime) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const apply = (runtime: Runtime) => {
      try {
        setup(runtime);
        resolve();
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    };
    if (runtimeBuilt) apply(runtimeBuilt);
    else {
      runtimeSetups.push(() => apply(runtimeBuilt!));
      localApp().catch(reject);
    }
  });
}

let app: Promise<ReturnType<typeof createApp>> | undefined;

/** Answer an API request inside the page (which outlives it: runs go on after their answers). */
export async function localFetch(path: string, init: RequestInit): Promise<Response> {
  return (await localApp()).request(path, init, undefined, PROCESS_LIFETIME_CONTEXT);
}

function localApp(): NonNullable<typeof app> {
  return (app ??= (async () => {
    // Ask the browser not to evict the journals under storage pressure.
    void requestPersistentStorage();
    const store = await new IndexedDbStore('cugar').open();
    const secrets = await localVault();
    const config = parseConfig({}).config;
    // A model for this tab (the Model page): endpoint and ids in this browser's storage, the key in
    // its vault; a reload applies them. The adapter is loaded only when one is set.
    const modelEnv = {
      CUGAR_MODEL_URL: localStorage.getItem(MODEL_URL_KEY) ?? undefined,
      CUGAR_MODEL: localStorage.getItem(MODEL_IDS_KEY) ?? undefined,
      CUGAR_MODEL_KEY: secrets.get(MODEL_KEY_SECRET),
    };
    const models = modelEnv['CUGAR_MODEL_URL'] ? (await import('../../api/models.ts')).hostModels(modelEnv, config) : undefined;
    // The dashboard loads the code tools' parser as a chunk of its own on first use; the widget's
    // single file (the widget build) leaves code_analyzer out rather than carry the parser.
    // The profiles of this tab's MCP servers may use the network for their tools (the MCP page).
    // The widget's single file leaves the MCP client out; the dashboard loads it as a chunk of its own.
    const mcpLocal = import.meta.env.MODE === 'widget' ? undefined : await import('./mcpLocal.ts');
    const mcpProfiles = mcpLocal ? mcpLocal.localMcpServers().servers.map((server) => server.profile) : [];
    // The web tools (web_search, internet_extract) are a chunk of their own; the widget leaves them out.
    const webLocal = import.meta.env.MODE === 'widget' ? undefined : await import('./webToolsLocal.ts');
    const networked = [...new Set([...mcpProfiles, ...(webLocal?.networkProfiles() ?? [])])];
    const runtime = await createRuntime(store, config, {
      secrets,
      ...(networked.length ? { policy: new PolicyEnforcer(Object.fromEntries(networked.map((profile) => [profile, { allowNetwork: true }]))) } : {}),
      ...(models ? { models } : {}),
      ...(import.meta.env.MODE === 'widget' ? {} : { codeParser: babelParser }),
      // Tools written at run time (the tool editor) run in this tab's sandbox; not in the widget's single file.
      ...(import.meta.env.MODE === 'widget' ? {} : { toolVersions: { sandbox: lazyBrowserSandbox(), parser: babelParser } }),
    });
    // This tab's MCP servers join their profiles before any run resumes (their runs call them again).
    if (mcpLocal && mcpProfiles.length) await mcpLocal.connectLocalMcp(runtime.registry, secrets);
    // Stored network settings that no longer parse leave the web tools out rather than the whole runtime.
    try {
      webLocal?.registerLocalWebTools(runtime);
    } catch (error) {
      console.error(`the web tools are off in this tab: ${(error as Error).message}`);
    }
    runtimeBuilt = runtime;
    for (const setup of runtimeSetups.splice(0)) setup();
    // Runs a reload or a closed tab interrupted continue from their journals.
    for (const run of await store.listRuns({ status: 'running' })) void runtime.orchestrator.resume(run.runId).catch(() => undefined);
    // The tab drives time: approval deadlines fire while the page is open, without a request.
    let sweeping = false;
    setInterval(() => {
      if (sweeping) return;
      sweeping = true;
      void runtime.orchestrator
        .sweepApprovals()
        // A run busy with a decision right now is swept again on the next tick.
        .catch(() => undefined)
        .finally(() => (sweeping = false));
    }, 1000);
    // The tab's owner holds every profile and may export journals raw.
    return createApp(runtime, { tokens: { [LOCAL_TOKEN]: { profiles: '*', scopes: [RAW_JOURNAL_SCOPE] } }, rateLimit: { perSecond: 1000, burst: 1000 } });
  })());
}

/** The browser sandbox (a Web Worker behind a sandboxed frame), loaded as a chunk of its own on the first proposal or call. */
function lazyBrowserSandbox(): Sandbox {
  let sandbox: Promise<Sandbox> | undefined;
  const loaded = () => (sandbox ??= import('../sandbox/browserSandbox.ts').then((m) => m.createBrowserSandbox()));
  return {
    host: 'browser',
    load: async (source, options) => (await loaded()).load(source, options),
    close: async () => {
      if (sandbox) await (await sandbox).close();
    },
  };
}
