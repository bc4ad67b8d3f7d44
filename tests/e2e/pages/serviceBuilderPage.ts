import { parse } from '@babel/parser';
import { buildMicroservice } from '../../../src/core/index.ts';
import { createBrowserSandbox } from '../../../src/web/sandbox/browserSandbox.ts';

// The microservice builder in a page, over the browser sandbox (a Web Worker in a sandboxed frame),
// driven by tests/e2e/serviceBuilderBrowser.test.ts.
const page = window as unknown as Record<string, unknown>;
page['buildService'] = async (spec: unknown) => {
  const sandbox = createBrowserSandbox();
  try {
    const build = await buildMicroservice(spec, { sandbox, parser: parse });
    return { report: build.report, paths: build.files.map((f) => f.path) };
  } finally {
    await sandbox.close();
  }
};
