import { defineTool, type ToolSpec } from '../tool.ts';
import { AnalyzeCodeInputSchema, analyzeCode } from './analyzeCode.ts';
import type { CodeParserSource } from './parseSource.ts';

/**
 * The `code_analyzer` tool over `parser` (@babel/parser's `parse`, or a loader of it): {@link analyzeCode}
 * as a tool. It reads only its input — no network, no files — and the same source always gives
 * the same report, so it is idempotent.
 */
export function codeAnalyzerTool(parser: CodeParserSource): ToolSpec {
  return defineTool({
    description:
      'Code analyzer: parse JavaScript or TypeScript source code and report a safety score (0–100) with findings and recommendations — eval and dynamic code, process, file and network access, computed imports, prototype tampering, constructor escapes, unbounded loops, size and complexity.',
    parameters: AnalyzeCodeInputSchema,
    cost: 0.2,
    latency: 30,
    capabilities: ['code.analyze'],
    idempotent: true,
    handler: ({ source, language }) => analyzeCode(source, { language, parser }),
  });
}
