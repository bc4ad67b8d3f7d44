/**
 * `cugar/signing`: Ed25519 signatures of run heads. A host that holds a key signs the head of
 * every run at rest; anyone with the host's public key (`GET /v1/keys`) verifies a head offline.
 * Kept out of the main entry so bundles that never sign or verify carry no curve code.
 */
export { createHeadSigner, generateSigningKey, verifyHeadSignature, type HeadSignature, type HeadSigner } from './journal/headSignature.ts';
