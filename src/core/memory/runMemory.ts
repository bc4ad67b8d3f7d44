import type { JsonValue } from '../schema/common.ts';
import type { MemoryManager } from './memoryManager.ts';

/** A note from an earlier run that a run reads before it plans. */
export interface RecalledNote {
  id: string;
  text: string;
  /** The earlier run's goal (notes kept by runs with memory in the loop). */
  goal?: string;
  success?: boolean;
  /** Tools whose calls failed for good in that run with an AGENT failure (the wrong tool, or a tool that could not do it). */
  failed?: string[];
  /** Tools whose calls completed in that run. */
  succeeded?: string[];
}

/** One step of a finished run as memory keeps it (`execution` namespace). */
export interface RememberedStep {
  stepId: string;
  tool: string;
  status: string;
  attempts: number;
  error?: { code: string; message: string };
}

/**
 * What a finished run keeps. `runId`, `goal`, `summary` and `success` make the reflection;
 * runs with memory in the loop add their plan and results, which also go to the `goals`,
 * `plans` and `execution` namespaces.
 */
export interface RunNote {
  runId: string;
  goal: string;
  summary: string;
  success: boolean;
  /** The last plan's steps (`revisions`: how many plans the run made, when it replanned). */
  plan?: { source: string; steps: Array<{ stepId: string; tool: string; input: Record<string, unknown> }>; revisions?: number };
  /** Every step that ran, those of replaced plans first. */
  results?: RememberedStep[];
  failed?: string[];
  succeeded?: string[];
}

/**
 * What runs keep between runs of a profile: before planning, the reflections of earlier runs
 * relevant to the goal (journaled as `memory_recalled`, so replay reads them from the
 * journal); after finishing, the run's goal, plan, results and reflection.
 */
export interface RunMemory {
  recall(profile: string, goal: string): Promise<RecalledNote[]>;
  remember(profile: string, note: RunNote): Promise<void>;
}

/** The namespaces runs write to (Sentinel MAX's memory layout). */
export const GOALS_NAMESPACE = 'goals';
export const PLANS_NAMESPACE = 'plans';
export const EXECUTION_NAMESPACE = 'execution';
export const REFLECTION_NAMESPACE = 'reflection';

function stringList(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.every((item) => typeof item === 'string') ? (value as string[]) : undefined;
}

/** A recalled hit as a note: its text, and the goal, outcome and tools when the run that kept it recorded them. */
function noteOf(hit: { id: string; text: string; metadata: Record<string, unknown> }): RecalledNote {
  const { goal, success } = hit.metadata;
  const failed = stringList(hit.metadata['failed']);
  const succeeded = stringList(hit.metadata['succeeded']);
  return {
    id: hit.id,
    text: hit.text,
    ...(typeof goal === 'string' ? { goal } : {}),
    ...(typeof success === 'boolean' ? { success } : {}),
    ...(failed ? { failed } : {}),
    ...(succeeded ? { succeeded } : {}),
  };
}

/**
 * Run memory over a profile's {@link MemoryManager}: reflections are facts in the `reflection`
 * namespace (keyed by run) and texts for semantic search; a recall returns the `k` reflections
 * most similar to the goal. A run with a plan also keeps its goal, plan and step results as
 * facts keyed by run in `goals`, `plans` and `execution`. A run that is remembered again (a
 * process that died after writing and resumed) is not written twice.
 */
export function memoryManagerRunMemory(memory: MemoryManager, k = 3): RunMemory {
  return {
    async recall(profile, goal) {
      if (!goal.trim()) return [];
      const hits = await memory.semanticSearch(profile, goal, k * 8);
      return hits
        .filter((hit) => hit.metadata['namespace'] === REFLECTION_NAMESPACE)
        .slice(0, k)
        .map(noteOf);
    },
    async remember(profile, note) {
      const { runId, goal, summary, success, plan, results, failed, succeeded } = note;
      const tools = { ...(failed ? { failed } : {}), ...(succeeded ? { succeeded } : {}) };
      // One write for the run's facts (a transaction of its own on SQLite and IndexedDB), one for
      // its reflection's text. Both are named by the run, so a run remembered again (a process
      // that died after writing, then resumed) replaces what it wrote rather than adding to it.
      const fact = (namespace: string, value: JsonValue) => ({ namespace, value, key: runId, id: `${namespace}:${runId}` });
      await memory.storeFacts(profile, [
        ...(plan
          ? [
              fact(GOALS_NAMESPACE, { runId, goal }),
              fact(PLANS_NAMESPACE, { runId, goal, ...plan } as JsonValue),
              fact(EXECUTION_NAMESPACE, { runId, success, steps: results ?? [] } as unknown as JsonValue),
            ]
          : []),
        fact(REFLECTION_NAMESPACE, { runId, goal, summary, success, ...tools }),
      ]);
      await memory.storeText(
        profile,
        `${goal}\n${summary}`,
        { namespace: REFLECTION_NAMESPACE, runId, success, ...(plan ? { goal, ...tools } : {}) },
        `reflection:${runId}`,
      );
    },
  };
}

/** The words of a goal, lowercased (letters and digits of any script). */
function goalWords(goal: string): Set<string> {
  return new Set(goal.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
}

/** Least share of words two goals have in common (Jaccard) to count as near-identical. */
export const NEAR_IDENTICAL_GOALS = 0.7;

/** Whether two goals are near-identical: the words they share are at least {@link NEAR_IDENTICAL_GOALS} of the words either has. */
export function nearIdenticalGoals(a: string, b: string): boolean {
  const left = goalWords(a);
  const right = goalWords(b);
  if (left.size === 0 || right.size === 0) return false;
  let shared = 0;
  for (const word of left) if (right.has(word)) shared++;
  return shared / (left.size + right.size - shared) >= NEAR_IDENTICAL_GOALS;
}

/**
 * The tools a plan for `goal` should be made without: those that failed (AGENT failures) in an
 * earlier run with a near-identical goal, unless one of those runs used the same tool
 * successfully. Sorted; a pure function of the recalled notes, so replay derives the same.
 */
export function toolsToAvoid(goal: string, notes: readonly RecalledNote[]): string[] {
  const near = notes.filter((note) => note.goal !== undefined && nearIdenticalGoals(goal, note.goal));
  const worked = new Set(near.flatMap((note) => note.succeeded ?? []));
  return [...new Set(near.flatMap((note) => note.failed ?? []))].filter((tool) => !worked.has(tool)).sort();
}
