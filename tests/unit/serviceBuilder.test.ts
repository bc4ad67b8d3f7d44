import { execFile } from 'node:child_process';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from '@babel/parser';
import { afterAll, describe, expect, it } from 'vitest';
import {
  SandboxError,
  ToolRegistry,
  ValidationError,
  WORKERD_SANDBOX_REASON,
  buildMicroservice,
  refusingSandbox,
  registerServiceTools,
  type ServiceBuild,
} from '../../src/core/index.ts';
import { createNodeSandbox } from '../../src/edge/nodeSandbox.ts';
import { USERS_SPEC, withRoute } from '../support/serviceSpecs.ts';

// The microservice builder on Node: a spec becomes a Hono service, its tests and a report; the
// service passes its own tests under the project's vitest and its TypeScript compiles under
// strict; bad specs are refused; strings that look like code stay data; failures are reported.

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');
const sandbox = createNodeSandbox();
const host = { sandbox, parser: parse };
afterAll(() => sandbox.close());

const fileOf = (build: ServiceBuild, path: string) => build.files.find((f) => f.path === path)!.content;

async function refusal(spec: unknown): Promise<string[]> {
  const error = await buildMicroservice(spec, host).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ValidationError);
  expect((error as ValidationError).code).toBe('invalid_service_spec');
  return ((error as ValidationError).details as { issues: string[] }).issues;
}

describe('microservice_builder', () => {
  it('builds a service whose every route passes the smoke test in the sandbox', async () => {
    const build = await buildMicroservice(USERS_SPEC, host);
    expect(build.files.map((f) => f.path)).toEqual(['package.json', 'service.ts', 'service.test.ts', 'report.json']);
    expect(build.report.routes).toEqual(['GET /users/:id', 'POST /users', 'GET /health']);
    expect(build.report.audit).toMatchObject({ ok: true, findings: [] });
    expect(build.report.analysis.verdict).toBe('safe');
    expect(build.report.smoke).toMatchObject({ host: 'node', ran: true });
    expect(build.report.smoke.checks.map((c) => `${c.route} ${c.case} ${c.status} ${c.ok}`)).toEqual([
      'GET /users/:id example 200 true',
      'GET /users/:id missing_query 400 true',
      'POST /users example 201 true',
      'POST /users bad_body 400 true',
      'GET /health example 200 true',
    ]);
    expect(build.ok).toBe(true);
    expect(JSON.parse(fileOf(build, 'report.json'))).toEqual(build.report);
    expect(fileOf(build, 'service.ts')).toContain("import { Hono, type Context } from 'hono';");
  });

  it('writes a service that passes its own vitest tests and compiles under strict TypeScript', { timeout: 120_000 }, async () => {
    const build = await buildMicroservice(USERS_SPEC, host);
    const dir = await mkdtemp(join(tmpdir(), 'cugar-service-'));
    try {
      for (const file of build.files) await writeFile(join(dir, file.path), file.content);
      await symlink(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
      await writeFile(join(dir, 'vitest.config.mjs'), 'export default { test: { include: ["*.test.ts"] } };\n');
      const tsc = ['--noEmit', '--strict', '--noUncheckedIndexedAccess', '--target', 'es2022', '--module', 'esnext', '--moduleResolution', 'bundler'];
      await run(
        process.execPath,
        [join(ROOT, 'node_modules/typescript/bin/tsc'), ...tsc, '--allowImportingTsExtensions', '--skipLibCheck', 'service.ts', 'service.test.ts'],
        {
          cwd: dir,
        },
      );
      const tests = await run(process.execPath, [join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', '--root', dir, '--reporter', 'json'], {
        cwd: dir,
        env: { ...process.env, VITEST: undefined, NODE_OPTIONS: undefined },
      });
      const results = JSON.parse(tests.stdout) as { numPassedTests: number; numFailedTests: number; success: boolean };
      expect(results).toMatchObject({ success: true, numFailedTests: 0, numPassedTests: 5 });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses bad specs with every problem listed', async () => {
    expect(await refusal({ name: 'x', routes: [] })).toEqual(['spec.routes: Too small: expected array to have >=1 items']);
    const route = USERS_SPEC.routes[2]!;
    expect((await refusal({ name: 'Bad Name', routes: [route] }))[0]).toMatch(/^spec\.name: /);
    expect((await refusal(withRoute({ ...route, method: 'trace' })))[0]).toMatch(/^spec\.routes\.3\.method: /);
    expect((await refusal(withRoute({ ...route, path: '/a/../b' })))[0]).toMatch(/^spec\.routes\.3\.path: /);
    expect((await refusal(withRoute({ ...route, path: "/x');process.exit(1);('" })))[0]).toMatch(/^spec\.routes\.3\.path: /);
    expect(await refusal(withRoute({ ...route, path: '/things/:id' }))).toEqual(['spec.routes.3.example.params.id: the example needs a value']);
    expect(await refusal(withRoute({ ...route, path: '/status', body: { type: 'string' }, example: { ...route.example, body: 'x' } }))).toEqual([
      'spec.routes.3.body: a GET request has no body',
    ]);
    expect(await refusal(withRoute({ ...route, path: '/users/:name', example: { ...route.example, params: { name: 'x' } } }))).toEqual([
      'spec.routes.3: GET /users/:name is already a route',
    ]);
    const reserved = { ...route, response: { schema: { type: 'object', properties: { constructor: { type: 'string' } } } } };
    expect((await refusal(withRoute(reserved)))[0]).toMatch(/^spec\.routes\.3\.response\.schema\.properties\.constructor/);
    const named = { ...route, response: { schema: { type: 'object', properties: { 'a-b;x': { type: 'string' } } } } };
    expect((await refusal(withRoute(named)))[0]).toMatch(/^spec\.routes\.3\.response\.schema\.properties\.a-b;x: /);
    let deep: unknown = { type: 'string' };
    for (let i = 0; i < 5_000; i++) deep = { type: 'array', items: deep };
    expect(await refusal(withRoute({ ...route, response: { schema: deep } }))).toEqual(['spec: nested 25 levels deep (the limit is 24)']);
    expect((await refusal('not a spec'))[0]).toMatch(/^spec: /);
    const huge = { ...route, example: { response: { status: 'x'.repeat(300_000) } } };
    expect(await refusal(withRoute(huge))).toEqual([expect.stringMatching(/^spec: \d+ characters of JSON \(the limit is 200000\)$/)]);
    expect(await refusal({ name: 'x', routes: [{ ...route, example: { response: 1n } }] })).toEqual(['spec: not a JSON value']);
  });

  it('keeps strings that look like code inert: they travel as data and come back verbatim', async () => {
    const attack = '"); process.exit(1); //\'`${globalThis.fetch("http://x")}`*/ </script><!-- --> \u2028 constructor';
    const route = {
      method: 'post',
      path: '/echo/:id',
      description: attack,
      body: { type: 'object', properties: { note: { type: 'string', enum: [attack, 'b'] } }, required: ['note'] },
      response: { schema: { type: 'object', properties: { note: { type: 'string' }, id: { type: 'string' }, tag: { type: 'string' } } } },
      example: { params: { id: attack }, body: { note: attack }, response: { note: 'x', id: 'y', tag: attack } },
    };
    const build = await buildMicroservice({ name: 'echo', description: attack, routes: [route] }, host);
    expect(build.report.audit).toMatchObject({ ok: true, findings: [] });
    expect(build.report.analysis.findings.filter((f) => f.severity !== 'info' && f.severity !== 'low')).toEqual([]);
    expect(build.ok).toBe(true);
    const service = fileOf(build, 'service.ts');
    for (const raw of ['</script>', '<!--', '-->', '\u2028']) expect(service).not.toContain(raw);
    // Outside the JSON.parse("…") literals the spec's text appears nowhere in the code.
    const code = service.replace(/JSON\.parse\("(?:[^"\\]|\\.)*"\)/g, 'JSON.parse(…)');
    for (const raw of ['process', 'fetch', 'globalThis', '</', '*/ ']) expect(code).not.toContain(raw);
    // The service answered with the request's id and note, and the example's tag: the same text as sent.
    const example = build.report.smoke.checks.find((c) => c.case === 'example')!;
    expect(example.request.url).toBe(`/echo/${encodeURIComponent(attack)}`);
    expect(JSON.parse(example.answer!)).toEqual({ note: attack, id: attack, tag: attack });
  });

  it('reports smoke failures: an answer that does not fit its schema, an example the service refuses, a sandbox that stops', async () => {
    const route = USERS_SPEC.routes[2]!;
    const wrong = await buildMicroservice(withRoute({ ...route, path: '/wrong', example: { response: { status: 5 } } }), host);
    expect(wrong.ok).toBe(false);
    const failed = wrong.report.smoke.checks.filter((c) => !c.ok);
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ route: 'GET /wrong', case: 'example', status: 200 });
    expect(failed[0]!.problems.join(' ')).toMatch(/body\.status: .*string/);

    const users = USERS_SPEC.routes[0]!;
    const refused = await buildMicroservice(withRoute({ ...users, path: '/other/:id', example: { ...users.example, params: { id: 'abc' } } }), host);
    const check = refused.report.smoke.checks.find((c) => c.route === 'GET /other/:id' && c.case === 'example')!;
    expect(check.ok).toBe(false);
    expect(check.problems[0]).toMatch(/^status 400, expected 200; the body: .*params\.id: expected a number/);

    const slow = await buildMicroservice(USERS_SPEC, { ...host, limits: { loadTimeoutMs: 1 } });
    expect(slow.ok).toBe(false);
    expect(slow.report.smoke).toMatchObject({ ran: false, error: { code: 'timeout' } });
    expect(slow.report.smoke.checks.every((c) => !c.ok && c.problems[0]!.startsWith('not run: '))).toBe(true);
  });

  it('is refused on a host without a sandbox, and is registered as a tool with its permissions', async () => {
    const refusing = { sandbox: refusingSandbox('workerd', WORKERD_SANDBOX_REASON), parser: parse };
    const error = await buildMicroservice(USERS_SPEC, refusing).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SandboxError);
    expect((error as SandboxError).code).toBe('unsupported_host');
    const registry = new ToolRegistry();
    expect(registerServiceTools(registry, host, 'dev')).toEqual(['microservice_builder']);
    const tool = registry.resolve('dev', 'microservice_builder');
    expect(tool).toMatchObject({
      capabilities: ['code.generate', 'code.analyze', 'sandbox.run'],
      allowNetwork: false,
      idempotent: true,
      requiresApproval: false,
    });
    expect(tool.inputSchema).toMatchObject({ required: ['spec'] });
  });
});
