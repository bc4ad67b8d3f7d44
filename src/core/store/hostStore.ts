import type { MemoryStore } from '../memory/memoryStore.ts';
import type { VectorBackend } from '../vector/vectorBackend.ts';
import type { Store } from './store.ts';

/**
 * Everything a host keeps: journals with their projections ({@link Store}), facts
 * ({@link MemoryStore}) and a persisted vector backend per dimension. The SQLite, IndexedDB
 * and Durable Object adapters implement it; the in-memory one does too, for tests.
 */
export type HostStore = Store & MemoryStore & { vectors(dimension: number): VectorBackend };
