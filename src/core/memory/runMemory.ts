import type { MemoryManager } from './memoryManager.ts';

/** A note from an earlier run that an agent run reads before it starts. */
export interface RecalledNote {
  id: string;
  text: string;
}

/**
 * What agent runs keep between runs of a profile: before planning, the reflections of earlier
 * runs relevant to the goal (journaled as `memory_recalled`, so replay reads them from the
 * journal); after finishing, the run's own reflection.
 */
export interface RunMemory {
  recall(profile: string, goal: string): Promise<RecalledNote[]>;
  remember(profile: string, note: { runId: string; goal: string; summary: string; success: boolean }): Promise<void>;
}

/** The namespace reflections are kept in. */
export const REFLECTION_NAMESPACE = 'reflection';

/**
 * Run memory over a profile's {@link MemoryManager}: reflections are facts in the `reflection`
 * namespace (keyed by run, so writing one twice keeps one) and texts for semantic search; a
 * recall returns the `k` reflections most similar to the goal.
 */
export function memoryManagerRunMemory(memory: MemoryManager, k = 3): RunMemory {
  return {
    async recall(profile, goal) {
      if (!goal.trim()) return [];
      const hits = await memory.semanticSearch(profile, goal, k * 8);
      return hits
        .filter((hit) => hit.metadata['namespace'] === REFLECTION_NAMESPACE)
        .slice(0, k)
        .map((hit) => ({ id: hit.id, text: hit.text }));
    },
    async remember(profile, { runId, goal, summary, success }) {
      await memory.storeFact(profile, REFLECTION_NAMESPACE, { runId, goal, summary, success }, { key: runId });
      await memory.storeText(profile, `${goal}\n${summary}`, { namespace: REFLECTION_NAMESPACE, runId, success }, `reflection:${runId}`);
    },
  };
}
