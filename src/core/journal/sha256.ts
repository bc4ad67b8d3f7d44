import { sha256 } from '@noble/hashes/sha2.js';

const encoder = new TextEncoder();
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/**
 * Lowercase hex SHA-256 of a string's UTF-8 bytes. Synchronous (audited pure-JS
 * `@noble/hashes`), so appending and verifying journal events needs no await per event and
 * gives the same digest in every runtime.
 */
export function sha256Hex(text: string): string {
  const digest = sha256(encoder.encode(text));
  const parts = new Array<string>(32);
  for (let i = 0; i < 32; i++) parts[i] = HEX[digest[i]!]!;
  return parts.join('');
}
