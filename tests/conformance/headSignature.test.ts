import { describe, expect, it } from 'vitest';
import { InMemoryStore, Orchestrator, ToolRegistry, ValidationError, registerBuiltinTools } from '../../src/core/index.ts';
import { createHeadSigner, generateSigningKey, verifyHeadSignature } from '../../src/core/signing.ts';

describe('signed run heads', () => {
  const signer = createHeadSigner(generateSigningKey());
  const head = { seq: 12, hash: 'a'.repeat(64) };

  it('verifies a head with the public key only, and nothing else', () => {
    const signature = signer.sign('run_1', head);
    expect(signature.keyId).toBe(signer.keyId);
    expect(verifyHeadSignature('run_1', head, signature, signer.publicKey)).toBe(true);
    expect(verifyHeadSignature('run_1', { ...head, seq: 13 }, signature, signer.publicKey)).toBe(false);
    expect(verifyHeadSignature('run_1', { ...head, hash: 'b'.repeat(64) }, signature, signer.publicKey)).toBe(false);
    expect(verifyHeadSignature('run_2', head, signature, signer.publicKey)).toBe(false);
    expect(verifyHeadSignature('run_1', head, signature, createHeadSigner(generateSigningKey()).publicKey)).toBe(false);
    expect(verifyHeadSignature('run_1', head, { ...signature, sig: 'zz' }, signer.publicKey)).toBe(false);
    expect(() => createHeadSigner('not a key')).toThrow(ValidationError);
  });

  it("signs a run's head when it comes to rest, in the same write as its events", async () => {
    const registry = new ToolRegistry();
    registerBuiltinTools(registry);
    const store = new InMemoryStore();
    const outcome = await new Orchestrator({ registry, store, signer }).start('add 2 and 3', 'demo');
    const summary = (await store.getRun(outcome.runId))!;
    expect(summary.head).toEqual(outcome.head);
    expect(verifyHeadSignature(outcome.runId, summary.head, summary.signature!, signer.publicKey)).toBe(true);
    // Without a signer, heads stay unsigned.
    const plain = await new Orchestrator({ registry, store }).start('add 2 and 3', 'demo');
    expect((await store.getRun(plain.runId))!.signature).toBeUndefined();
  });
});
