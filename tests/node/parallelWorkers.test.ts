import { parse } from '@babel/parser';
import { afterAll, describe, expect, it } from 'vitest';
import { Worker, parseConfig, replay, type Sandbox, type SandboxedTool } from '../../src/core/index.ts';
import { PooledTool } from '../../src/core/sandbox/sandboxPool.ts';
import { createRuntime } from '../../src/api/runtime.ts';
import { createNodeSandbox } from '../../src/edge/nodeSandbox.ts';
import { SqliteStore } from '../../src/edge/sqliteStore.ts';

// A pool of N: up to N steps of a run at once, each tool written at run time served by up to
// N worker_threads workers, so the steps of a wave run on several cores.

const BUSY = 'export default function busy(input) { let x = 0; for (let i = 0; i < input.n; i++) x = (x * 31 + i) % 1000003; return { x }; }';
const proposal = {
  source: BUSY,
  description: 'Busy arithmetic for a while',
  inputSchema: { type: 'object', properties: { n: { type: 'integer', minimum: 1, maximum: 100000000 } }, required: ['n'], additionalProperties: false },
  meta: { cost: 0, latency: 1000, capabilities: [], idempotent: true },
};

const sandboxes: Sandbox[] = [];
afterAll(async () => {
  await Promise.all(sandboxes.map((sandbox) => sandbox.close()));
});

/** A Node sandbox that keeps the tools it loads, so a test can count their workers. */
function keepingSandbox(poolSize: number): { sandbox: Sandbox; loaded: SandboxedTool[] } {
  const inner = createNodeSandbox({ poolSize });
  sandboxes.push(inner);
  const loaded: SandboxedTool[] = [];
  return {
    loaded,
    sandbox: { host: inner.host, close: () => inner.close(), load: async (source, options) => loaded[loaded.push(await inner.load(source, options)) - 1]! },
  };
}

describe('a pool of real workers', () => {
  it('runs a wave of a sandboxed tool on two worker_threads workers, journals it in plan order, and replays it', async () => {
    const { sandbox, loaded } = keepingSandbox(2);
    const store = new SqliteStore(':memory:');
    const runtime = await createRuntime(store, parseConfig({}).config, {
      toolVersions: { sandbox, parser: parse },
      orchestrator: { workers: [new Worker({ id: 'worker-1' }), new Worker({ id: 'worker-2' })], routing: 'load_balanced', parallelSteps: 2 },
    });
    const versions = runtime.toolVersions!;
    const proposed = await versions.propose('demo', 'busy', proposal, 'ana');
    await versions.approve('demo', 'busy', proposed.hash, 'ana');
    const plan = [200_000, 300_000, 400_000, 500_000].map((n) => ({ tool: 'busy', input: { n } }));
    const outcome = await runtime.orchestrator.start('busy work', 'demo', { plan });
    expect(outcome.status).toBe('completed');
    expect(Object.keys(outcome.outputs)).toEqual(['step-0', 'step-1', 'step-2', 'step-3']);
    // The tool the runs used has two workers: the wave's calls did not queue behind one.
    const used = loaded.at(-1)!;
    expect(used).toBeInstanceOf(PooledTool);
    expect((used as PooledTool).workers).toBe(2);
    expect(used.starts).toBe(2);
    const journal = await store.readJournal(outcome.runId);
    const routed = journal.flatMap((e) => (e.type === 'route_decision' ? [e.data.worker] : []));
    expect(routed).toEqual(['worker-1', 'worker-2', 'worker-1', 'worker-2']);
    const order = journal.flatMap((e) =>
      e.type === 'tool_call_start' || e.type === 'tool_call_complete' ? [`${e.type === 'tool_call_start' ? '>' : '<'}${e.data.stepId}`] : [],
    );
    expect(order).toEqual(['>step-0', '>step-1', '<step-0', '<step-1', '>step-2', '>step-3', '<step-2', '<step-3']);
    expect(await replay(journal, runtime.registry, { toolVersions: versions })).toMatchObject({ ok: true, events: journal.length });
  });

  it('sends a call to an idle worker, starts another while the pool has room, then queues on the least busy', async () => {
    const made: Array<{ calls: number; release: Array<() => void> }> = [];
    const fake = (): SandboxedTool => {
      const state = { calls: 0, release: [] as Array<() => void> };
      made.push(state);
      return {
        id: 'sha256:x',
        starts: 1,
        close: async () => undefined,
        call: () => {
          state.calls++;
          return new Promise((resolve) => state.release.push(() => resolve(made.indexOf(state))));
        },
      };
    };
    const pool = new PooledTool(fake(), 2, fake);
    const first = pool.call({});
    const second = pool.call({});
    const third = pool.call({});
    expect(made.map((m) => m.calls)).toEqual([2, 1]);
    expect(pool.workers).toBe(2);
    made[1]!.release.shift()!();
    expect(await second).toBe(1);
    // Worker 1 is idle again: the next call goes there, not behind worker 0's queue.
    const fourth = pool.call({});
    expect(made.map((m) => m.calls)).toEqual([2, 2]);
    for (const m of made) while (m.release.length) m.release.shift()!();
    expect(await Promise.all([first, third, fourth])).toEqual([0, 0, 1]);
  });

  it('refuses a pool size outside 1 to 256', () => {
    for (const poolSize of [0, 2.5, 300]) expect(() => createNodeSandbox({ poolSize })).toThrow(/pool size/);
  });
});
