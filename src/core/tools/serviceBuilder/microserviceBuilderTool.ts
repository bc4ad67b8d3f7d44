import * as z from 'zod';
import { defineTool, type ToolSpec } from '../tool.ts';
import { buildMicroservice, type ServiceBuilderHost } from './buildMicroservice.ts';

/** The `microservice_builder` tool's input: a service spec (checked by `parseServiceSpec`, which reports every problem). */
export const MicroserviceBuilderInputSchema = z.object({
  spec: z
    .record(z.string(), z.unknown())
    .describe(
      'The service: { name, description?, routes: [{ method (get|post|put|patch|delete), path ("/users/:id"), params?, query?, body?, response: { status?, schema }, example: { params?, query?, body?, response } }] }; schemas are { type: string|number|integer|boolean|array|object, … } with properties and required for objects',
    ),
});

/**
 * The `microservice_builder` tool over `host` (its sandbox and parser): {@link buildMicroservice}
 * as a tool. It reads only its input, touches no network and no file, and the same spec always
 * builds the same files, so it is idempotent. On a host whose sandbox refuses code (workerd) each
 * call fails with `SandboxError('unsupported_host')`.
 */
export function microserviceBuilderTool(host: ServiceBuilderHost): ToolSpec {
  return defineTool({
    description:
      'Microservice builder: from a small spec (routes, methods, request and response schemas, examples) generate a Hono service in TypeScript with its vitest tests, audit it with the code analyzer and the patch auditor, run it in the sandbox and smoke-test every route with app.request; returns the files and the report.',
    parameters: MicroserviceBuilderInputSchema,
    cost: 1,
    latency: 2_000,
    capabilities: ['code.generate', 'code.analyze', 'sandbox.run'],
    idempotent: true,
    aliases: ['service builder', 'build a microservice', 'generate an api'],
    handler: ({ spec }) => buildMicroservice(spec, host),
  });
}
