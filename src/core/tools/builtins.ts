import { tools as arithmeticTools } from './arithmetic.ts';
import { tools as textTools } from './text.ts';
import { tools as waitTools } from './wait.ts';
import { codeAnalyzerTool } from './codeAnalyzer/codeAnalyzerTool.ts';
import type { CodeParserSource } from './codeAnalyzer/parseSource.ts';
import type { ToolRegistry } from './toolRegistry.ts';
import { microserviceBuilderTool } from './serviceBuilder/microserviceBuilderTool.ts';
import type { ServiceBuilderHost } from './serviceBuilder/buildMicroservice.ts';

/** The profile the built-in tools are registered in by default. */
export const DEMO_PROFILE = 'demo';

/**
 * Register the built-in tools — `echo`, `add`, `subtract`, `multiply`, `divide`,
 * `calculate`, `text_stats`, `wait` — in `profile` (default `demo`). Returns the names registered.
 */
export function registerBuiltinTools(registry: ToolRegistry, profile: string = DEMO_PROFILE): string[] {
  const all = { ...textTools, ...arithmeticTools, ...waitTools };
  const names = Object.keys(all).sort();
  for (const name of names) registry.register(profile, name, all[name]!);
  return names;
}

/**
 * Register the code tools — `code_analyzer` — in `profile` (default `demo`), parsing with
 * `parser` (@babel/parser's `parse`, or `{ load }` of it: the host chooses when the parser is
 * loaded). Kept apart from {@link registerBuiltinTools} so recorded runs of the demo tools keep
 * their tool lists. Returns the names registered.
 */
export function registerCodeTools(registry: ToolRegistry, parser: CodeParserSource, profile: string = DEMO_PROFILE): string[] {
  registry.register(profile, 'code_analyzer', codeAnalyzerTool(parser));
  return ['code_analyzer'];
}

/**
 * Register the service tools — `microservice_builder` — in `profile` (default `demo`): services
 * are smoke-tested in `host.sandbox` (a host that cannot run sandboxed code passes a
 * `refusingSandbox`, and each call then fails with `unsupported_host`). Returns the names registered.
 */
export function registerServiceTools(registry: ToolRegistry, host: ServiceBuilderHost, profile: string = DEMO_PROFILE): string[] {
  registry.register(profile, 'microservice_builder', microserviceBuilderTool(host));
  return ['microservice_builder'];
}
