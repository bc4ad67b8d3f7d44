import { SystemError } from '../errors.ts';
import { sha256BytesHex } from './sha256Blocks.ts';

const encoder = new TextEncoder();
/** Reused input buffer: most journal events encode into it without an allocation. */
const scratch = new Uint8Array(64 * 1024);

/** The pure-TS digest (`sha256Blocks.ts`): the same bytes in a tab, a Worker and Node. */
export function portableSha256Hex(text: string): string {
  // Each UTF-16 unit encodes to at most 3 bytes, so a text this short always fits.
  if (text.length * 3 <= scratch.length) return sha256BytesHex(scratch, encoder.encodeInto(text, scratch).written);
  return sha256BytesHex(encoder.encode(text));
}

let digestHex: (text: string) => string = portableSha256Hex;

/**
 * Lowercase hex SHA-256 of a string's UTF-8 bytes. Synchronous, so appending and verifying
 * journal events needs no await per event. Pure TypeScript everywhere, unless the host
 * installed its native digest ({@link useNativeSha256}); both give the same hex.
 */
export function sha256Hex(text: string): string {
  return digestHex(text);
}

/** Texts a native digest must hash exactly as the portable one before it is used: empty, ASCII, multi-byte, astral, long. */
const PROBES = ['', 'abc', 'caf\u00e9 \u6f22\u5b57 \ud83d\ude42', 'lone \ud800 surrogate', 'x'.repeat(70_000), '{"a":[1,2,{"b":null}]}'];

/**
 * Install a host's native SHA-256 (Node's `crypto.hash`, about three times as fast as the
 * portable digest on an event-sized text). It is checked against the portable digest on a set of probes first;
 * one that disagrees is refused with a `SystemError` and the portable digest stays.
 */
export function useNativeSha256(native: (text: string) => string): void {
  for (const probe of PROBES)
    if (native(probe) !== portableSha256Hex(probe))
      throw new SystemError('the native SHA-256 disagrees with the portable one; it is not used', { code: 'digest_mismatch' });
  digestHex = native;
}
