import { InMemoryStore } from '../../src/core/index.ts';
import { describeMemoryConformance, describeStoreConformance } from '../support/storeConformance.ts';

describeStoreConformance('in memory', { open: async () => new InMemoryStore() });
// Nothing outlives the object in memory, so a reopen is the same store.
describeMemoryConformance('in memory', { open: async () => new InMemoryStore(), reopen: async (store) => store });
