import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { InMemoryStore, type JournalEvent } from '../../src/core/index.ts';
import { createRuntime } from '../../src/api/runtime.ts';
import { loadHostSettings, orchestratorOptionsOf } from '../../src/cli/hostConfig.ts';

// The orchestrator built from a configuration file behaves as the file says: retries, the
// worker pool, budgets and approvals (in-process, over the same loader `cugar serve` uses).

const dir = mkdtempSync(join(tmpdir(), 'cugar-config-runtime-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function runtimeFrom(text: string) {
  const path = join(dir, `config-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(path, text);
  const settings = await loadHostSettings({ file: path, env: {}, cwd: dir });
  const runtime = await createRuntime(new InMemoryStore(), settings.config, {
    orchestrator: orchestratorOptionsOf(settings.orchestrator),
    ...(settings.approval ? { approval: settings.approval } : {}),
    ...(settings.profileBudgets ? { profileBudgets: settings.profileBudgets } : {}),
  });
  let failures = 0;
  runtime.registry.register('demo', 'flaky', {
    description: 'Fails with 503 a given number of times, then answers',
    parameters: z.object({ times: z.number().int() }),
    handler: ({ times }) => {
      if (failures < times) {
        failures += 1;
        throw Object.assign(new Error('busy'), { status: 503 });
      }
      return 'ok';
    },
  });
  // The outcome and the run's journal; `sweep` decides the approvals that waited too long, as the host's timer does.
  return async (goal: string, sweepAfterMs?: number) => {
    if (sweepAfterMs !== undefined) {
      const outcome = await runtime.orchestrator.start(goal, 'demo');
      await new Promise((resolve) => setTimeout(resolve, sweepAfterMs));
      await runtime.orchestrator.sweepApprovals();
      const run = await runtime.store.getRun(outcome.runId);
      return { status: run!.status, events: await runtime.store.readJournal(outcome.runId) };
    }
    const outcome = await runtime.orchestrator.start(goal, 'demo');
    return { status: outcome.status, events: await runtime.store.readJournal(outcome.runId) };
  };
}

const attempts = (events: readonly JournalEvent[]) => events.filter((event) => event.type === 'tool_call_start').length;

describe('an orchestrator configured by file', () => {
  it('retries as many times as retry.max_attempts says, and no more', async () => {
    const quick = 'retry: { max_attempts: 4, base_delay: 0, max_delay: 0, jitter: 0 }\n';
    const recovered = await (await runtimeFrom(quick))('flaky(times=3)');
    expect([recovered.status, attempts(recovered.events)]).toEqual(['completed', 4]);
    const exhausted = await (await runtimeFrom(quick))('flaky(times=4)');
    expect([exhausted.status, attempts(exhausted.events)]).toEqual(['failed', 4]);
    const once = await (await runtimeFrom('retry: { strategy: none }\n'))('flaky(times=1)');
    expect([once.status, attempts(once.events)]).toEqual(['failed', 1]);
  });

  it('routes over the configured pool, stops at the run budget and asks before every call with require_approval: true', async () => {
    const pooled = await (
      await runtimeFrom('routing: { policy: round_robin, worker_pool_size: 3 }\n')
    )('add 1 and 2, then multiply the result by 3, then add 4 to the result');
    const workers = pooled.events.flatMap((event) => (event.type === 'route_decision' ? [(event.data as { worker: string }).worker] : []));
    expect(workers).toEqual(['worker-1', 'worker-2', 'worker-3']);
    const capped = await (await runtimeFrom('budget: { call_ceiling: 1 }\n'))('add 1 and 2, then multiply the result by 3');
    expect(capped.status).toBe('failed');
    expect(capped.events.some((event) => event.type === 'budget_exceeded')).toBe(true);
    const asked = await (await runtimeFrom('approval: { require_approval: true }\n'))('add 1 and 2');
    expect(asked.status).toBe('paused');
    const listed = await (await runtimeFrom('approval: { require_approval: [multiply] }\n'))('add 1 and 2');
    expect(listed.status).toBe('completed');
  });

  it('lets auto_approve_timeout decide a request nobody answered: approve by default, reject when on_timeout says so', async () => {
    const approved = await (await runtimeFrom('approval: { require_approval: true, auto_approve_timeout: 0.05 }\n'))('add 1 and 2', 100);
    expect(approved.status).toBe('completed');
    expect(approved.events.some((event) => event.type === 'approval_timeout')).toBe(true);
    const rejected = await (await runtimeFrom('approval: { require_approval: true, auto_approve_timeout: 0.05, on_timeout: reject }\n'))('add 1 and 2', 100);
    expect(rejected.status).toBe('failed');
    const waiting = await (await runtimeFrom('approval: { require_approval: true, auto_approve_timeout: 0 }\n'))('add 1 and 2', 100);
    expect(waiting.status).toBe('paused');
  });
});
