// The engines of the orchestrator benchmark. Each runs one plan length in its own process
// (bench/isolate.ts) and answers the milliseconds of its timed runs, after untimed warm-up runs.
import { z } from 'zod';
import { InMemoryStore, Orchestrator, ToolRegistry, exportJournal, verifyJournal, type JournalEvent } from '../src/core/index.ts';
import { createSequentialIds, sealEvent } from '../src/core/testing.ts';
import { installNodeDigest } from '../src/edge/nodeDigest.ts';
import { collect, time } from './stats.ts';

export const LENGTHS = [100, 1_000, 10_000] as const;
export const JOURNAL_EVENTS = 100_000;
/** The longest plan LangGraph.js runs here. */
export const LANGGRAPH_MAX_STEPS = 1_000;

/** Timed runs per process: more for short plans, whose runs are short and noisier. */
function roundsFor(steps: number): number {
  return steps >= 10_000 ? 3 : steps >= 1_000 ? 9 : 25;
}

/** Milliseconds of each timed run of `once`, after warm-up runs (JIT, caches) and a GC between runs. */
async function timedRuns(steps: number, once: () => Promise<void>): Promise<number[]> {
  const rounds = roundsFor(steps);
  for (let i = 0; i < Math.max(2, Math.ceil(rounds / 3)); i++) await once();
  const samples: number[] = [];
  for (let i = 0; i < rounds; i++) {
    collect();
    samples.push(await time(once));
  }
  return samples;
}

function noopRegistry(): ToolRegistry {
  const registry = new ToolRegistry();
  registry.register('bench', 'noop', { description: 'does nothing', parameters: z.object({ i: z.number() }), idempotent: true, handler: ({ i }) => i });
  return registry;
}

async function cugar(steps: number, native: boolean): Promise<number[]> {
  if (native) installNodeDigest();
  const registry = noopRegistry();
  const plan = Array.from({ length: steps }, (_, i) => ({ tool: 'noop', input: { i } }));
  let n = 0;
  return timedRuns(steps, async () => {
    const orchestrator = new Orchestrator({ registry, store: new InMemoryStore(), ids: createSequentialIds(`b${n++}`), autonomy: { maxRepeats: steps + 1 } });
    const outcome = await orchestrator.start('run the plan', 'bench', { plan });
    if (outcome.status !== 'completed' || Object.keys(outcome.outputs).length !== steps) throw new Error(`run did not complete: ${outcome.status}`);
  });
}

async function mastra(steps: number): Promise<number[]> {
  const { createWorkflow, createStep } = await import('@mastra/core/workflows');
  const counter = z.object({ i: z.number() });
  const step = createStep({ id: 'noop', inputSchema: counter, outputSchema: counter, execute: async ({ inputData }) => ({ i: inputData.i + 1 }) });
  const workflow = createWorkflow({ id: 'loop', inputSchema: counter, outputSchema: counter })
    .dountil(step, async ({ inputData }) => inputData.i >= steps)
    .commit();
  return timedRuns(steps, async () => {
    const run = await workflow.createRunAsync();
    const result = await run.start({ inputData: { i: 0 } });
    if (result.status !== 'success' || (result.result as { i: number }).i !== steps) throw new Error(`workflow stopped: ${result.status}`);
  });
}

async function langgraph(steps: number, checkpoint: boolean): Promise<number[]> {
  const { Annotation, StateGraph, START, END, MemorySaver } = await import('@langchain/langgraph');
  const State = Annotation.Root({
    i: Annotation<number>({ reducer: (_, next) => next, default: () => 0 }),
    outputs: Annotation<number[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
  });
  const graph = new StateGraph(State)
    .addNode('step', async (state: { i: number }) => ({ i: state.i + 1, outputs: [state.i] }))
    .addEdge(START, 'step')
    .addConditionalEdges('step', (state: { i: number }) => (state.i >= steps ? END : 'step'));
  const app = checkpoint ? graph.compile({ checkpointer: new MemorySaver() }) : graph.compile();
  let thread = 0;
  return timedRuns(steps, async () => {
    const result = await app.invoke({ i: 0 }, { recursionLimit: steps + 10, configurable: { thread_id: `t${thread++}` } });
    if (result.i !== steps) throw new Error('graph stopped early');
  });
}

async function plainLoop(steps: number): Promise<number[]> {
  const handler = async ({ i }: { i: number }) => i;
  return timedRuns(steps, async () => {
    const outputs: Record<string, unknown> = {};
    for (let i = 0; i < steps; i++) outputs[`step-${i}`] = await handler({ i });
    if (Object.keys(outputs).length !== steps) throw new Error('lost outputs');
  });
}

const HASH = 'a'.repeat(64);
const HEALTH = { score: 1, signals: { latency: 1, repetition: 1, substance: 1 }, action: 'continue' as const };

/** A journal of well-formed typed events of a typical size (a start and a completion per step). */
export function syntheticJournal(): JournalEvent[] {
  const events: JournalEvent[] = [];
  for (let i = 0; i < JOURNAL_EVENTS; i++) {
    const stepId = `step-${i >> 1}`;
    const at = 1_700_000_000_000 + i;
    events.push(
      i % 2
        ? sealEvent(events.at(-1), 'run-bench', 'tool_call_complete', at, {
            stepId,
            attempt: 1,
            argsHash: HASH,
            output: { value: i, note: 'synthetic payload of a typical size' },
            durationMs: 1,
            health: HEALTH,
          })
        : sealEvent(events.at(-1), 'run-bench', 'tool_call_start', at, {
            stepId,
            index: i >> 1,
            tool: 'noop',
            input: { i },
            argsHash: HASH,
            attempt: 1,
            idempotencyKey: `run-bench:${stepId}`,
            worker: 'local',
            reserved: { cost: 0, calls: 1, tokens: 0 },
          }),
    );
  }
  return events;
}

async function verify(native: boolean): Promise<number[]> {
  if (native) installNodeDigest();
  const journal = syntheticJournal();
  return timedRuns(10_000, async () => {
    if (!verifyJournal(journal).ok) throw new Error('journal did not verify');
  });
}

async function jsonParse(): Promise<number[]> {
  const text = exportJournal(syntheticJournal());
  return timedRuns(10_000, async () => {
    let count = 0;
    for (const line of text.split('\n')) if (line) count += JSON.parse(line) ? 1 : 0;
    if (count !== JOURNAL_EVENTS) throw new Error('lost lines');
  });
}

/** The engines by name: `engine@steps` for the runs, plain names for verification. */
export const engines: Record<string, () => Promise<number[]>> = {
  verifyPortable: () => verify(false),
  verifyNative: () => verify(true),
  jsonParse,
};
for (const steps of LENGTHS) {
  engines[`cugarPortable@${steps}`] = () => cugar(steps, false);
  engines[`cugarNative@${steps}`] = () => cugar(steps, true);
  engines[`mastra@${steps}`] = () => mastra(steps);
  // LangGraph.js at 10,000 steps takes 5–30 s a run (with MemorySaver its checkpoints grow with
  // the square of the plan: 1.8 GB), which would make the suite many minutes longer.
  if (steps <= LANGGRAPH_MAX_STEPS) {
    engines[`langgraph@${steps}`] = () => langgraph(steps, false);
    engines[`langgraphMemorySaver@${steps}`] = () => langgraph(steps, true);
  }
  engines[`plainLoop@${steps}`] = () => plainLoop(steps);
}
