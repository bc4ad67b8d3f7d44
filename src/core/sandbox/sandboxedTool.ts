import type * as z from 'zod';
import type { ToolSpec } from '../tools/tool.ts';
import type { SandboxedTool } from './sandbox.ts';

/**
 * A tool spec whose handler is a loaded {@link SandboxedTool}: register it like any tool, and each
 * call runs in the tool's warm worker. The inputs are validated by `parameters` in the host before
 * they are sent; the run's cancellation (`context.signal`) terminates the worker. The tool is
 * marked as not touching the network (the sandbox has none) and gets the `sandbox` capability.
 * A failure is the {@link SandboxError} of the call, whose `failureMode` and `retryable` the
 * retry policy reads (a timeout is retryable, a handler's throw is not).
 *
 * @example
 * const tool = await sandbox.load(source);
 * registry.register('dev', 'word_count', sandboxedToolSpec(tool, { description: 'Count words', parameters: z.object({ text: z.string() }) }));
 */
export function sandboxedToolSpec<S extends z.ZodType>(tool: SandboxedTool, spec: Omit<ToolSpec<S>, 'handler' | 'allowNetwork'>): ToolSpec<S> {
  const capabilities = spec.capabilities ?? [];
  return {
    ...spec,
    capabilities: capabilities.includes('sandbox') ? capabilities : [...capabilities, 'sandbox'],
    allowNetwork: false,
    handler: (inputs, context) => tool.call(inputs, { signal: context.signal }),
  };
}
