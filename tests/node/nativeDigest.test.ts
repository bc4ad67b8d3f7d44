import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJournal, sha256Hex, useNativeSha256, verifyJournal } from '../../src/core/index.ts';
import { installNodeDigest } from '../../src/edge/nodeDigest.ts';
import legacy from '../fixtures/legacy-journals.ndjson?raw';

const native = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

describe('the native SHA-256 port on Node', () => {
  it('refuses a digest that disagrees with the portable one, and keeps the portable one', () => {
    const before = sha256Hex('abc');
    expect(() => useNativeSha256((text) => native(`${text} `))).toThrow(expect.objectContaining({ code: 'digest_mismatch' }));
    expect(sha256Hex('abc')).toBe(before);
  });

  it('hashes every string exactly as the portable digest, lone surrogates and long texts included', () => {
    const portable = (text: string) => sha256Hex(text);
    const samples = fc.sample(fc.string({ unit: 'binary', maxLength: 300 }), 300).concat(['x'.repeat(100_000), '\ud800', '\udc00a']);
    const expected = samples.map(portable);
    installNodeDigest();
    expect(samples.map(sha256Hex)).toEqual(expected);
    expect(samples.map(native)).toEqual(expected);
  });

  it('verifies journals written with the portable digest', () => {
    installNodeDigest();
    const events = parseJournal(legacy);
    let start = 0;
    for (let i = 1; i <= events.length; i++)
      if (i === events.length || events[i]!.seq === 0) {
        expect(verifyJournal(events.slice(start, i))).toMatchObject({ ok: true });
        start = i;
      }
  });
});
