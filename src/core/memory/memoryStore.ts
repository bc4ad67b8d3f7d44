import * as z from 'zod';
import { JsonValueSchema, ProfileNameSchema, type JsonValue } from '../schema/common.ts';

/** A namespace of facts: lowercase words joined by `.`, `_` or `-` (`preferences`, `rag.documents`). */
export const NamespaceSchema = z.string().regex(/^[a-z][a-z0-9_.-]{0,63}$/, 'namespaces are 1-64 lowercase letters, digits, ".", "_" or "-"');

/** One stored fact. */
export const FactRecordSchema = z.object({
  id: z.string().min(1),
  profile: ProfileNameSchema,
  namespace: NamespaceSchema,
  /** Optional key: `latest` by key, and re-storing a key keeps history. */
  key: z.string().max(256).optional(),
  value: JsonValueSchema,
  /** Milliseconds since the epoch (UTC). */
  at: z.number(),
  /** `at` as ISO 8601 UTC. */
  timestamp: z.string(),
});
export type FactRecord = z.infer<typeof FactRecordSchema>;

/** Filters for reading facts; results are newest first. */
export interface FactQuery {
  namespace?: string;
  key?: string;
  /** Keep facts whose JSON text contains this (case-insensitive). */
  contains?: string;
  since?: number;
  limit?: number;
}

/** The storage port for symbolic facts; every read and write names its profile. */
export interface MemoryStore {
  /** Keep `facts`, in one write; a fact whose id is already stored replaces it. */
  putFacts(facts: readonly FactRecord[]): Promise<void>;
  queryFacts(profile: string, query?: FactQuery): Promise<FactRecord[]>;
  namespaces(profile: string): Promise<string[]>;
  deleteFacts(profile: string, namespace?: string): Promise<number>;
}

/** Apply a {@link FactQuery} to facts of one profile (shared by adapters that filter in memory). */
export function filterFacts(facts: readonly FactRecord[], query: FactQuery = {}): FactRecord[] {
  const needle = query.contains?.toLowerCase();
  const matched = facts.filter(
    (f) =>
      (query.namespace === undefined || f.namespace === query.namespace) &&
      (query.key === undefined || f.key === query.key) &&
      (query.since === undefined || f.at >= query.since) &&
      (needle === undefined || JSON.stringify(f.value).toLowerCase().includes(needle) || (f.key ?? '').toLowerCase().includes(needle)),
  );
  matched.sort((a, b) => b.at - a.at || (a.id < b.id ? 1 : -1));
  return query.limit === undefined ? matched : matched.slice(0, query.limit);
}

/** The in-memory {@link MemoryStore}. */
export class InMemoryMemoryStore implements MemoryStore {
  #facts = new Map<string, FactRecord[]>();

  async putFacts(facts: readonly FactRecord[]): Promise<void> {
    for (const fact of facts) {
      const list = (this.#facts.get(fact.profile) ?? []).filter((kept) => kept.id !== fact.id);
      list.push(structuredClone(fact));
      this.#facts.set(fact.profile, list);
    }
  }

  async queryFacts(profile: string, query?: FactQuery): Promise<FactRecord[]> {
    return structuredClone(filterFacts(this.#facts.get(profile) ?? [], query));
  }

  async namespaces(profile: string): Promise<string[]> {
    return [...new Set((this.#facts.get(profile) ?? []).map((f) => f.namespace))].sort();
  }

  async deleteFacts(profile: string, namespace?: string): Promise<number> {
    const list = this.#facts.get(profile) ?? [];
    const kept = namespace === undefined ? [] : list.filter((f) => f.namespace !== namespace);
    this.#facts.set(profile, kept);
    return list.length - kept.length;
  }
}

export type { JsonValue };
