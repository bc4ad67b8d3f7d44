import * as z from 'zod';
import { parseOrThrow } from '../../schema/validate.ts';
import { defineTool, type ToolSpec } from '../tool.ts';
import { MAX_TEXT_LENGTH } from '../text.ts';

/** A prefix of a generated echo tool: it names the tool (`{prefix}_echo`) and starts each answer. */
export const EchoPrefixSchema = z.string().regex(/^[a-z][a-z0-9_]{0,31}$/, 'a prefix is a lowercase identifier of at most 32 characters');

/** A generated echo tool: its name and its spec. */
export interface GeneratedEchoTool {
  name: string;
  spec: ToolSpec;
}

/**
 * Generate a prefixed echo tool, as Sentinel's echo generator does: `{prefix}_echo` answers
 * `"{prefix}: {message}"`. Deterministic and idempotent; the prefix is validated (a typed
 * `ValidationError` `invalid_prefix` otherwise).
 *
 * @example
 * const { name, spec } = createEchoTool('support');
 * registry.register('demo', name, spec); // support_echo("hi") → "support: hi"
 */
export function createEchoTool(prefix: string): GeneratedEchoTool {
  const valid = parseOrThrow(EchoPrefixSchema, prefix, 'echo prefix', 'invalid_prefix');
  return {
    name: `${valid}_echo`,
    spec: defineTool({
      description: `Echo a message back prefixed with "${valid}:".`,
      parameters: z.object({ message: z.string().max(MAX_TEXT_LENGTH).describe('text to echo back') }),
      cost: 0.05,
      latency: 1,
      capabilities: ['text'],
      idempotent: true,
      handler: ({ message }) => `${valid}: ${message}`,
    }),
  };
}
