import { createBrowserSandbox } from '../../../src/web/sandbox/browserSandbox.ts';
import { runEscapes } from '../../support/sandboxEscapes.ts';

// The browser sandbox in a page: the escape table, and a plain tool, driven by tests/e2e/sandboxBrowser.test.ts.
const page = window as unknown as Record<string, unknown>;
page['sandboxEscapes'] = async (isolation: 'frame' | 'page', origin: { http: string; ws: string }) => {
  const sandbox = createBrowserSandbox({ isolation });
  try {
    return await runEscapes(sandbox, 'browser', origin, { skipFrameOnly: isolation === 'page' });
  } finally {
    await sandbox.close();
  }
};
page['sandboxTool'] = async (source: string, inputs: readonly unknown[]) => {
  const sandbox = createBrowserSandbox();
  const started = performance.now();
  const tool = await sandbox.load(source);
  const loadMs = performance.now() - started;
  const outputs: unknown[] = [];
  for (const input of inputs) outputs.push(await tool.call(input).catch((error: { code?: string }) => ({ error: error.code })));
  await sandbox.close();
  return { loadMs, outputs, frames: document.querySelectorAll('iframe').length };
};
