import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { InMemoryStore, Orchestrator, ResourceError, ToolRegistry } from '../../src/core/index.ts';
import { createSequentialIds } from '../../src/core/testing.ts';

describe('retry sleeps', () => {
  it('leave no abort listener behind: a run with many delayed retries raises no MaxListenersExceededWarning', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    try {
      const registry = new ToolRegistry();
      const failures = new Map<number, number>();
      registry.register('demo', 'flaky', {
        description: 'fails a few times, then answers',
        parameters: z.object({ i: z.number() }),
        idempotent: true,
        handler: ({ i }) => {
          const seen = failures.get(i) ?? 0;
          failures.set(i, seen + 1);
          if (seen < 4) throw new ResourceError('busy', { code: 'busy' });
          return i;
        },
      });
      const orchestrator = new Orchestrator({
        registry,
        store: new InMemoryStore(),
        ids: createSequentialIds('sleep'),
        retry: { maxAttempts: 5, baseDelay: 1, maxDelay: 1, jitter: 0 },
      });
      const outcome = await orchestrator.start('retry a lot', 'demo', { plan: Array.from({ length: 5 }, (_, i) => ({ tool: 'flaky', input: { i } })) });
      expect(outcome.status).toBe('completed');
      // 20 delayed retries on one run's signal: more than Node's default limit of 10 listeners.
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(warnings).not.toContain('MaxListenersExceededWarning');
    } finally {
      process.off('warning', onWarning);
    }
  });
});
