import * as z from 'zod';
import { ProfileNameSchema } from '../schema/common.ts';

/** One stored vector with its id and JSON metadata. */
export interface VectorRecord {
  id: string;
  vector: Float32Array;
  metadata?: Record<string, unknown>;
}

/** One search result: higher `score` is more similar (cosine, in [-1, 1]). */
export interface VectorHit {
  id: string;
  score: number;
  metadata: Record<string, unknown>;
}

/** Options of a vector search. */
export const VectorSearchOptionsSchema = z.object({
  /** How many hits at most. Default 10. */
  k: z.number().int().min(1).max(10_000).default(10),
  /** Drop hits scoring below this. */
  minScore: z.number().min(-1).max(1).optional(),
  /** Scan every record even where the index is approximate. */
  exact: z.boolean().optional(),
  /** Lists an approximate index scans (more: higher recall, slower); exact indexes ignore it. */
  probes: z.number().int().min(1).max(1_000_000).optional(),
  /**
   * `false`: the caller reads the hits' metadata elsewhere, and a backend that keeps metadata
   * apart from the vectors (a persisted one, after a restart) may return `{}` instead of reading
   * it. Default true.
   */
  metadata: z.boolean().optional(),
});
export type VectorSearchOptions = z.input<typeof VectorSearchOptionsSchema>;

/** A record id: 1–512 characters. */
export const RecordIdSchema = z.string().min(1).max(512);

/** Profile names are checked on every call; see {@link ProfileNameSchema}. */
export const VectorProfileSchema = ProfileNameSchema;

/**
 * The protocol every vector store implements (in memory, IndexedDB, SQLite, Durable Objects).
 *
 * The profile is part of every call and a backend must keep profiles apart: a search in one
 * profile never returns, counts or deletes another profile's records. Hits are ordered by
 * score, descending, ties broken by id ascending.
 */
export interface VectorBackend {
  /** Length of every vector this backend accepts. */
  readonly dimension: number;
  /** Open the backend; idempotent. Calls before `connect` fail with `not_connected`. */
  connect(): Promise<void>;
  /** Insert or replace records by id. All-or-nothing: an invalid record rejects the whole batch. */
  upsert(profile: string, records: readonly VectorRecord[]): Promise<void>;
  /** The `k` nearest records to `query` by cosine similarity. */
  search(profile: string, query: Float32Array, options?: VectorSearchOptions): Promise<VectorHit[]>;
  /** Remove records by id; returns how many existed. */
  delete(profile: string, ids: readonly string[]): Promise<number>;
  /** How many records the profile holds. */
  count(profile: string): Promise<number>;
  /** Every record of the profile (ids and metadata, vectors on request), in a stable order: for export and for rebuilding keyword indexes. */
  list(profile: string, options?: { vectors?: boolean }): Promise<VectorRecord[]>;
  /** Release resources; optional. */
  close?(): Promise<void>;
}
