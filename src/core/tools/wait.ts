import * as z from 'zod';
import { ResourceError } from '../errors.ts';
import { defineTool, type ToolSpec } from './tool.ts';

/** Longest pause `wait` accepts, in milliseconds. */
export const MAX_WAIT_MS = 10_000;

/**
 * Pause for `ms` milliseconds, or until `signal` aborts (then it rejects with the abort's
 * reason, or a `ResourceError` when there is none).
 */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const abort = () => (clearTimeout(timer), reject(signal.reason instanceof Error ? signal.reason : new ResourceError('the wait was cancelled', { code: 'cancelled' })));
    if (signal.aborted) return abort();
    const timer = setTimeout(() => (signal.removeEventListener('abort', abort), resolve()), ms);
    signal.addEventListener('abort', abort, { once: true });
  });
}

/** `wait`: a step that takes time, for demos of live runs, timeouts, cancellation and resume. */
export const tools: Record<string, ToolSpec> = {
  wait: defineTool({
    description: 'Wait, pause or sleep for a number of milliseconds before going on.',
    parameters: z.object({ ms: z.number().int().min(0).max(MAX_WAIT_MS).describe('milliseconds to wait') }),
    cost: 0,
    latency: 1000,
    capabilities: [],
    idempotent: true,
    // The output is what was asked for, not a measured time, so replays match bit for bit.
    handler: async ({ ms }, { signal }) => {
      await pause(ms, signal);
      return { waitedMs: ms };
    },
  }),
};
