import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createHeadSigner, generateSigningKey, verifyHeadSignature, verifyLogHeadSignature } from '../../src/core/signing.ts';
import { createNodeHeadSigner } from '../../src/edge/nodeSigner.ts';

const hex64 = fc.stringMatching(/^[0-9a-f]{64}$/);

describe('the Node host signer (native Ed25519)', () => {
  it('signs run heads and log heads byte for byte as the portable signer does', () => {
    fc.assert(
      fc.property(hex64, fc.string(), fc.nat(), hex64, fc.nat(), (secret, runId, seq, hash, size) => {
        const native = createNodeHeadSigner(secret);
        const portable = createHeadSigner(secret);
        expect(native.keyId).toBe(portable.keyId);
        expect(native.publicKey).toBe(portable.publicKey);
        expect(native.sign(runId, { seq, hash })).toEqual(portable.sign(runId, { seq, hash }));
        expect(native.signLog({ size, hash })).toEqual(portable.signLog({ size, hash }));
      }),
      { numRuns: 40 },
    );
  });

  it('makes signatures the portable verifier accepts, for that head only', () => {
    const signer = createNodeHeadSigner(generateSigningKey());
    const head = { seq: 12, hash: 'c'.repeat(64) };
    const signature = signer.sign('run_1', head);
    expect(verifyHeadSignature('run_1', head, signature, signer.publicKey)).toBe(true);
    expect(signer.verify('run_1', head, signature)).toBe(true);
    expect(verifyHeadSignature('run_1', { ...head, seq: 13 }, signature, signer.publicKey)).toBe(false);
    const log = { size: 4, hash: 'd'.repeat(64) };
    expect(verifyLogHeadSignature(log, signer.signLog(log), signer.publicKey)).toBe(true);
    expect(verifyLogHeadSignature({ ...log, size: 5 }, signer.signLog(log), signer.publicKey)).toBe(false);
  });

  it('refuses a malformed key as the portable signer does', () => {
    expect(() => createNodeHeadSigner('not a key')).toThrow(/64 lowercase hex/);
  });
});
