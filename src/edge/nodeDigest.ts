import { createHash } from 'node:crypto';
import { useNativeSha256 } from '../core/index.ts';

/**
 * Hash journals with Node's native SHA-256 in this process (about four times the portable
 * digest on journal-sized events). The core checks it against its own digest before using it.
 */
export function installNodeDigest(): void {
  useNativeSha256((text) => createHash('sha256').update(text, 'utf8').digest('hex'));
}
