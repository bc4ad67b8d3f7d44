import { analyzeCode } from '../codeAnalyzer/analyzeCode.ts';
import type { Finding } from '../codeAnalyzer/finding.ts';
import type { CodeParserSource } from '../codeAnalyzer/parseSource.ts';
import { auditToolSource, type AuditLimits } from '../../sandbox/patchAuditor.ts';
import { realmLibrary } from '../../sandbox/realmLibraries.ts';
import type { Sandbox, SandboxLimits } from '../../sandbox/sandbox.ts';
import { sandboxModule, serviceModule } from './generateService.ts';
import { packageManifest, serviceTestModule } from './serviceTests.ts';
import { parseServiceSpec } from './serviceSpec.ts';
import { smokeTestService, type SmokeReport } from './smokeTest.ts';

/** One generated file: a path relative to the service's folder, and its text. */
export interface ServiceFile {
  path: string;
  content: string;
}

/** What the builder found: the code analyzer's view of the service, the patch audit of its sandbox form, and the smoke test. */
export interface ServiceReport {
  service: string;
  /** The audit passed and every smoke check passed. */
  ok: boolean;
  routes: string[];
  analysis: { score: number; verdict: 'safe' | 'review' | 'unsafe'; findings: Finding[] };
  audit: { ok: boolean; score: number; findings: Finding[]; warnings: Finding[] };
  smoke: SmokeReport;
}

/** The builder's result: the files (`package.json`, `service.ts`, `service.test.ts`, `report.json`) and the report. */
export interface ServiceBuild {
  ok: boolean;
  files: ServiceFile[];
  report: ServiceReport;
}

/** What the builder needs from its host: a sandbox that runs the service and the parser the audits use. */
export interface ServiceBuilderHost {
  sandbox: Sandbox;
  /** @babel/parser's `parse`, or a loader of it. */
  parser: CodeParserSource;
  /** Limits of the sandboxed smoke test; default 5 s per call and 128 MiB. */
  limits?: SandboxLimits;
}

/** The audit's limits for a generated service: its size follows its spec, and the spec is bounded. */
const AUDIT_LIMITS: AuditLimits = { maxChars: 400_000, maxLines: 4_000, maxNodes: 200_000 };

/**
 * Build a Hono service from `spec` (see `ServiceSpecSchema`): generate its TypeScript module and
 * its vitest tests, analyse the module with the code analyzer, audit its sandbox form with the
 * patch auditor (with the `hono` realm library's globals), run it in the host's sandbox and
 * smoke-test every route through `app.request`. A bad spec is a `ValidationError`
 * (`invalid_service_spec`); a host that cannot run sandboxed code rejects with
 * `SandboxError('unsupported_host')`. A failed audit or smoke check is not thrown: `ok` is false
 * and the report says what failed.
 *
 * @example
 * const build = await buildMicroservice({ name: 'hello', routes: [{ method: 'get', path: '/hello/:name',
 *   response: { schema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
 *   example: { params: { name: 'ada' }, response: { name: 'someone' } } }] }, { sandbox, parser });
 * build.report.smoke.checks[0].ok; // true: GET /hello/ada answered { name: 'ada' }
 */
export async function buildMicroservice(input: unknown, host: ServiceBuilderHost): Promise<ServiceBuild> {
  const spec = parseServiceSpec(input);
  const service = serviceModule(spec);
  const sandboxed = sandboxModule(spec);
  const analysis = await analyzeCode(service, { language: 'typescript', parser: host.parser });
  const audit = await auditToolSource(sandboxed, host.parser, AUDIT_LIMITS, realmLibrary('hono').globals);
  const smoke: SmokeReport = audit.ok
    ? await smokeTestService(host.sandbox, spec, sandboxed, { limits: { timeoutMs: 5_000, memoryMb: 128, ...host.limits }, audit: AUDIT_LIMITS })
    : { host: host.sandbox.host, ran: false, error: { code: 'audit_failed', message: 'the patch auditor refused the service' }, checks: [] };
  const report: ServiceReport = {
    service: spec.name,
    ok: audit.ok && smoke.ran && smoke.checks.every((check) => check.ok),
    routes: spec.routes.map((route) => `${route.method.toUpperCase()} ${route.path}`),
    analysis: { score: analysis.score, verdict: analysis.verdict, findings: analysis.findings },
    audit: { ok: audit.ok, score: audit.score, findings: audit.findings, warnings: audit.warnings },
    smoke,
  };
  const files: ServiceFile[] = [
    { path: 'package.json', content: packageManifest(spec) },
    { path: 'service.ts', content: service },
    { path: 'service.test.ts', content: serviceTestModule(spec) },
    { path: 'report.json', content: `${JSON.stringify(report, null, 2)}\n` },
  ];
  return { ok: report.ok, files, report };
}
