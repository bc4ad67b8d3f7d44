import { parse } from '@babel/parser';
import { SandboxError, WORKERD_SANDBOX_REASON, analyzeCode, auditToolSource, refusingSandbox } from '../../src/core/index.ts';

// A test entry for workerd: what the sandbox port does there (refuse), whether workerd itself
// would compile code from strings or start a worker (it does neither), and whether the code
// analyzer and the patch auditor (pure JavaScript) run there.
export { DirectoryObject, ProfileObject, RunObject } from '../../src/edge/durableObjectStore.ts';

export default {
  async fetch(): Promise<Response> {
    const sandbox = refusingSandbox('workerd', WORKERD_SANDBOX_REASON);
    const refusal = await sandbox.load('export default () => 1;').then(
      () => null,
      (error: unknown) => (error instanceof SandboxError ? error.toJSON() : { name: 'untyped', message: String(error) }),
    );
    let codeGeneration: string;
    try {
      const compile = (() => undefined).constructor as (body: string) => () => unknown;
      codeGeneration = `compiled: ${String(compile('return 1')())}`;
    } catch (error) {
      codeGeneration = `refused: ${(error as Error).name}`;
    }
    const analysis = await analyzeCode("fetch('https://example.com')", { language: 'javascript', parser: parse });
    const audit = await auditToolSource('export default (input) => input.n + 1;', parse);
    return Response.json({
      refusal,
      codeGeneration,
      worker: typeof (globalThis as { Worker?: unknown }).Worker,
      analysis: { score: analysis.score, rules: analysis.findings.map((f) => f.rule) },
      audit: audit.ok,
    });
  },
};
