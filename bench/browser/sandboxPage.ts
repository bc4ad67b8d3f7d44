// Runs the sandbox workload in the page, in frame isolation (the default) or page isolation; driven by sandbox.bench.ts.
import { parse } from '@babel/parser';
import { createBrowserSandbox } from '../../src/web/sandbox/browserSandbox.ts';
import { measureSandbox } from '../sandboxWorkload.ts';

const api = {
  async measure(isolation: 'frame' | 'page') {
    const sandbox = createBrowserSandbox({ isolation });
    try {
      return await measureSandbox(sandbox, parse);
    } finally {
      await sandbox.close();
    }
  },
};
(globalThis as unknown as { cugarBench: typeof api }).cugarBench = api;
