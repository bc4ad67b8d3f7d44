import * as z from 'zod';
import { pause } from '../ports.ts';
import { defineTool, type ToolSpec } from './tool.ts';

/** Longest pause `wait` accepts, in milliseconds. */
export const MAX_WAIT_MS = 10_000;

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
