import { createPrivateKey, sign as nodeSign, type KeyObject } from 'node:crypto';
import { canonicalJson, type JournalHead } from '../core/index.ts';
import { createHeadSigner, type HeadSigner } from '../core/signing.ts';
import type { LogHead } from '../core/stores.ts';

/** The DER prefix of a PKCS #8 Ed25519 private key; the 32-byte seed follows it. */
const PKCS8_ED25519 = Buffer.from('302e020100300506032b657004220420', 'hex');

const headMessage = (runId: string, head: JournalHead) => canonicalJson({ v: 'cugar-head-1', runId, seq: head.seq, hash: head.hash });
const logMessage = (head: LogHead) => canonicalJson({ v: 'cugar-log-head-1', size: head.size, hash: head.hash });

/**
 * The {@link HeadSigner} of `secretKey` with Node's native Ed25519 doing the signing (tens of
 * times the portable curve's speed; a run at rest is signed on every finish). Ed25519 is
 * deterministic, so the signatures are the portable signer's byte for byte: that is checked on a
 * probe head and a probe log head when the signer is made, and the portable signer is used
 * unchanged when they differ. Verification stays the portable signer's.
 */
export function createNodeHeadSigner(secretKey: string): HeadSigner {
  const portable = createHeadSigner(secretKey);
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, Buffer.from(secretKey, 'hex')]), format: 'der', type: 'pkcs8' });
  } catch {
    return portable;
  }
  const { keyId } = portable;
  const signText = (text: string) => nodeSign(null, Buffer.from(text, 'utf8'), key).toString('hex');
  const native: HeadSigner = {
    keyId,
    publicKey: portable.publicKey,
    sign: (runId, head) => ({ keyId, sig: signText(headMessage(runId, head)) }),
    verify: (runId, head, signature) => portable.verify(runId, head, signature),
    signLog: (head) => ({ keyId, sig: signText(logMessage(head)) }),
    verifyLog: (head, signature) => portable.verifyLog(head, signature),
  };
  const probeHead = { seq: 3, hash: 'a'.repeat(64) };
  const probeLog = { size: 7, hash: 'b'.repeat(64) };
  const same =
    native.sign('run_probe', probeHead).sig === portable.sign('run_probe', probeHead).sig && native.signLog(probeLog).sig === portable.signLog(probeLog).sig;
  return same ? native : portable;
}
