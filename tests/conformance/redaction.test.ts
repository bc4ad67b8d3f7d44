import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REDACTED, isSecretKey, redact, redactText } from '../../src/core/index.ts';

describe('redact', () => {
  it('hides values under secret-named keys at any depth', () => {
    const input = {
      user: 'ada',
      password: 'p',
      nested: { apiKey: 'k', list: [{ Authorization: 'x', token_count: 3 }] },
      clientSecret: 's',
      'x-auth-token': 't',
    };
    expect(redact(input)).toEqual({
      user: 'ada',
      password: REDACTED,
      nested: { apiKey: REDACTED, list: [{ Authorization: REDACTED, token_count: 3 }] },
      clientSecret: REDACTED,
      'x-auth-token': REDACTED,
    });
    expect(input.password).toBe('p');
    for (const key of ['password', 'PASSWORD', 'api_key', 'apiKey', 'secret', 'accessToken', 'authorization', 'cookie', 'private_key'])
      expect(isSecretKey(key), key).toBe(true);
    for (const key of ['user', 'message', 'path', 'authored', 'tokens', 'tokenCeiling', 'token_count', 'passwordPolicy'])
      expect(isSecretKey(key), key).toBe(false);
  });

  it('replaces secret-shaped values anywhere in text', () => {
    const secrets = [
      'Bearer abcdefghijklmnop.qrstu',
      'sk-proj-abcdefghijklmnopqrstuvwxyz012345',
      'ghp_abcdefghijklmnopqrstuvwxyz0123456789',
      'AKIAABCDEFGHIJKLMNOP',
      'xoxb-1234567890-abcdefghij',
      'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
    ];
    for (const secret of secrets) {
      const out = redactText(`before ${secret} after`);
      expect(out, secret).toBe(`before ${REDACTED} after`);
    }
    expect(redactText('nothing secret here, just words')).toBe('nothing secret here, just words');
  });

  it('never lets a generated token through, and always returns JSON-safe data', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9]{24,40}$/), fc.string(), (token, noise) => {
        const out = JSON.stringify(redact({ note: `${noise} sk-${token} ${noise}`, header: `Bearer ${token}`, password: token }));
        return !out.includes(`sk-${token}`) && !out.includes(`Bearer ${token}`);
      }),
      { numRuns: 300 },
    );
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic['self'] = cyclic;
    expect(redact({ cyclic, big: 10n, f: () => 1, n: Number.POSITIVE_INFINITY, bytes: new Uint8Array(4) })).toEqual({
      cyclic: { a: 1, self: '[Circular]' },
      big: '10',
      n: 'Infinity',
      bytes: '[Uint8Array 4 bytes]',
    });
  });
});
