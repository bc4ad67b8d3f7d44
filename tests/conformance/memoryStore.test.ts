import { InMemoryStore } from '../../src/core/index.ts';
import { describeStoreConformance } from '../support/storeConformance.ts';

describeStoreConformance('in memory', { open: async () => new InMemoryStore() });
