import { ed25519 } from '@noble/curves/ed25519.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { ValidationError } from '../errors.ts';
import { canonicalJson } from './canonicalJson.ts';
import { logHeadMessage, type LogHead } from './headLog.ts';
import type { JournalHead } from './journal.ts';

// A hash chain proves that a journal was not changed after its head was recorded, but not
// that the recorded head is the host's: whoever can write the database can rewrite events and
// head together. A signature over the head with a key kept outside the database closes that gap.
// Ed25519 through @noble/curves: audited, pure TypeScript, the same in a tab, a Worker and Node.

/** A run head signed by a host: which key, and the signature (lowercase hex). */
export interface HeadSignature {
  keyId: string;
  sig: string;
}

/** The signing port: a host's key, used to sign the heads of runs at rest. */
export interface HeadSigner {
  /** Names the key; a verifier looks the public key up by it. */
  readonly keyId: string;
  /** The Ed25519 public key, lowercase hex. */
  readonly publicKey: string;
  sign(runId: string, head: JournalHead): HeadSignature;
  /** Whether `signature` is this key's signature of `runId`'s `head`. */
  verify(runId: string, head: JournalHead, signature: HeadSignature): boolean;
  /** Sign the head of a store's log of heads (see `headLog.ts`). */
  signLog(head: LogHead): HeadSignature;
  /** Whether `signature` is this key's signature of the log head `head`. */
  verifyLog(head: LogHead, signature: HeadSignature): boolean;
}

const HEX_SEED = /^[0-9a-f]{64}$/;

const encoder = new TextEncoder();

/** The bytes a head signature covers: the run, the head's position and its hash, canonical. */
function headMessage(runId: string, head: JournalHead): Uint8Array {
  return encoder.encode(canonicalJson({ v: 'cugar-head-1', runId, seq: head.seq, hash: head.hash }));
}

/** A new Ed25519 secret key (32 random bytes, lowercase hex), from the platform's secure random source. */
export function generateSigningKey(): string {
  return bytesToHex(ed25519.utils.randomSecretKey());
}

/** A {@link HeadSigner} over `secretKey` (64 hex characters). The key id is derived from the public key. */
export function createHeadSigner(secretKey: string): HeadSigner {
  if (!HEX_SEED.test(secretKey)) throw new ValidationError('a signing key is 64 lowercase hex characters', { code: 'invalid_signing_key' });
  const secret = hexToBytes(secretKey);
  const publicKey = bytesToHex(ed25519.getPublicKey(secret));
  const keyId = `ed25519:${publicKey.slice(0, 16)}`;
  return {
    keyId,
    publicKey,
    sign: (runId, head) => ({ keyId, sig: bytesToHex(ed25519.sign(headMessage(runId, head), secret)) }),
    verify: (runId, head, signature) => signature.keyId === keyId && verifyHeadSignature(runId, head, signature, publicKey),
    signLog: (head) => ({ keyId, sig: bytesToHex(ed25519.sign(encoder.encode(logHeadMessage(head)), secret)) }),
    verifyLog: (head, signature) => signature.keyId === keyId && verifyLogHeadSignature(head, signature, publicKey),
  };
}

/** Whether `signature` is `publicKey`'s signature of `runId`'s `head`. Malformed input is simply not valid. */
export function verifyHeadSignature(runId: string, head: JournalHead, signature: HeadSignature, publicKey: string): boolean {
  try {
    return ed25519.verify(hexToBytes(signature.sig), headMessage(runId, head), hexToBytes(publicKey));
  } catch {
    return false;
  }
}

/** Whether `signature` is `publicKey`'s signature of a store's log head `head`. Malformed input is simply not valid. */
export function verifyLogHeadSignature(head: LogHead, signature: HeadSignature, publicKey: string): boolean {
  try {
    return ed25519.verify(hexToBytes(signature.sig), encoder.encode(logHeadMessage(head)), hexToBytes(publicKey));
  } catch {
    return false;
  }
}
