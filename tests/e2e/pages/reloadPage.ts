// A page that runs long plans against IndexedDB; the test reloads it mid-run.
import { z } from 'zod';
import { Orchestrator, ToolRegistry } from '../../../src/core/index.ts';
import { IndexedDbStore } from '../../../src/web/indexedDbStore.ts';

const LEDGER = 'cugar-reload-ledger';

function ledger(): Record<string, number> {
  return JSON.parse(localStorage.getItem(LEDGER) ?? '{}') as Record<string, number>;
}

const registry = new ToolRegistry();
registry.register('page', 'slow_write', {
  description: 'write a ledger entry after a pause, once per idempotency key',
  parameters: z.object({ n: z.number().int() }),
  idempotent: true,
  handler: async ({ n }, context) => {
    await new Promise((resolve) => setTimeout(resolve, 40));
    const entries = ledger();
    if (!(context.idempotencyKey in entries)) {
      entries[context.idempotencyKey] = 1;
      localStorage.setItem(LEDGER, JSON.stringify(entries));
    }
    return n;
  },
});

async function open() {
  const store = await new IndexedDbStore('cugar-reload-test').open();
  return { store, orchestrator: new Orchestrator({ registry, store }) };
}

const api = {
  async start(runId: string, steps: number) {
    const { orchestrator } = await open();
    const plan = Array.from({ length: steps }, (_, n) => ({ tool: 'slow_write', input: { n } }));
    // Not awaited: the page is reloaded while this runs.
    void orchestrator.start('write slowly', 'page', { runId, plan });
    return 'started';
  },
  async progress(runId: string) {
    const { store } = await open();
    const journal = await store.readJournal(runId);
    return journal.filter((e) => e.type === 'tool_call_complete').length;
  },
  async resumeAll() {
    const { store, orchestrator } = await open();
    const unfinished = (await store.listRuns()).filter((r) => r.status !== 'completed');
    const outcomes = [];
    for (const run of unfinished) outcomes.push((await orchestrator.resume(run.runId)).status);
    return outcomes;
  },
  async report(runId: string) {
    const { store } = await open();
    const { verifyJournal } = await import('../../../src/core/index.ts');
    const journal = await store.readJournal(runId);
    const run = await store.getRun(runId);
    return {
      status: run?.status,
      verified: verifyJournal(journal, run?.head).ok,
      resumed: journal.filter((e) => e.type === 'run_resumed').length,
      ledger: ledger(),
      outputs: (journal.at(-1)?.data as { outputs?: unknown } | undefined)?.outputs,
    };
  },
};
(globalThis as unknown as { cugarReload: typeof api }).cugarReload = api;
