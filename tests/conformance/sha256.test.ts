import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { portableSha256Hex } from '../../src/core/journal/sha256.ts';
import { sha256BytesHex } from '../../src/core/journal/sha256Blocks.ts';

const encoder = new TextEncoder();
/** The reference: the audited library on the text's UTF-8 bytes. */
const reference = (text: string) => bytesToHex(sha256(encoder.encode(text)));

describe('the portable SHA-256', () => {
  it('gives the FIPS 180-4 digests', () => {
    expect(portableSha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(portableSha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(portableSha256Hex('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')).toBe(
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    );
    expect(portableSha256Hex('a'.repeat(1_000_000))).toBe('cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0');
  });

  it('hashes every length across block boundaries as the reference does', () => {
    // 55, 56 and 64 bytes are where the padding needs a second block or the message fills one.
    for (let length = 0; length <= 200; length++) expect(portableSha256Hex('x'.repeat(length))).toBe(reference('x'.repeat(length)));
    const bytes = Uint8Array.from({ length: 300 }, (_, i) => (i * 37 + 11) & 255);
    for (const length of [0, 1, 55, 56, 63, 64, 65, 119, 120, 128, 300])
      expect(sha256BytesHex(bytes, length)).toBe(bytesToHex(sha256(bytes.subarray(0, length))));
  });

  it('hashes any string as the reference does: multi-byte, astral, lone surrogates, and texts too long for the reused buffer', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary', maxLength: 400 }), fc.string({ unit: 'grapheme', maxLength: 200 })), (text) => {
        expect(portableSha256Hex(text)).toBe(reference(text));
      }),
      { numRuns: 400 },
    );
    // Longer than the 64 KiB buffer holds (three bytes a unit), so encoded on its own.
    const long = '\u00e9\u6f22\ud83d\ude42'.repeat(6_000);
    expect(portableSha256Hex(long)).toBe(reference(long));
  });
});
