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
  let hex = '';
  for (let i = 0; i < digest.length; i++) hex += HEX[digest[i]!];
  return hex;
}
