import * as crypto from 'node:crypto';
import { useNativeSha256 } from '../core/index.ts';

/** `crypto.hash` (Node 20.12 and later): one call, no Hash object — about twice `createHash` on journal-sized events. */
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: 'hex') => string }).hash;

/**
 * Hash journals with Node's native SHA-256 in this process (about three times the portable
 * digest on journal-sized events). The core checks it against its own digest before using it.
 */
export function installNodeDigest(): void {
  useNativeSha256(oneShot ? (text) => oneShot('sha256', text, 'hex') : (text) => crypto.createHash('sha256').update(text, 'utf8').digest('hex'));
}
