/**
 * `cugar/signing`: Ed25519 signatures of run heads and of a store's log of heads. A host that
 * holds a key signs the head of every run at rest and, in the same write, the head of its store's
 * log; anyone with the host's public key (`GET /v1/keys`) verifies both offline.
 * Kept out of the main entry so bundles that never sign or verify carry no curve code.
 */
export {
  createHeadSigner,
  generateSigningKey,
  verifyHeadSignature,
  verifyLogHeadSignature,
  type HeadSignature,
  type HeadSigner,
} from './journal/headSignature.ts';
