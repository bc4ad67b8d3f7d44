import { InMemoryStore } from '../../src/core/index.ts';
import { createHeadSigner, generateSigningKey } from '../../src/core/signing.ts';
import { describeMemoryConformance, describeStoreConformance } from '../support/storeConformance.ts';

describeStoreConformance('in memory', { open: async () => new InMemoryStore() });
const signer = createHeadSigner(generateSigningKey());
describeStoreConformance('in memory, with a key', { open: async () => new InMemoryStore({ signer }), signer });
// Nothing outlives the object in memory, so a reopen is the same store.
describeMemoryConformance('in memory', { open: async () => new InMemoryStore(), reopen: async (store) => store });
