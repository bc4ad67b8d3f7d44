/** What redaction puts in place of a secret. */
export const REDACTED = '[REDACTED]';

/** Words that make a key secret on their own. */
const SECRET_WORDS = new Set([
  'password',
  'passwd',
  'pwd',
  'passphrase',
  'secret',
  'secrets',
  'token',
  'apikey',
  'auth',
  'authorization',
  'bearer',
  'cookie',
  'cookies',
  'credential',
  'credentials',
  'privatekey',
  'signature',
]);
/** Words that turn a key into a measure of a secret rather than the secret itself. */
const NOT_SECRET_QUALIFIERS = new Set([
  'count',
  'counts',
  'ceiling',
  'limit',
  'usage',
  'used',
  'budget',
  'length',
  'type',
  'expiry',
  'expires',
  'max',
  'min',
  'required',
  'policy',
]);

/** Word pairs that make a key secret (`api_key`, `privateKey`, `session-id`). */
const SECRET_PAIRS = new Set([
  'api key',
  'private key',
  'access key',
  'secret key',
  'session id',
  'client secret',
  'refresh token',
  'access token',
  'set cookie',
]);

/** Value shapes that are secrets wherever they appear. Each keeps a short prefix so logs stay readable. */
const SECRET_VALUES: ReadonlyArray<RegExp> = [
  /\bBearer\s+[A-Za-z0-9\-._~+/]{8,}=*/gi,
  /\bBasic\s+[A-Za-z0-9+/]{8,}=*/g,
  /\b(?:sk|pk|rk)-(?:[A-Za-z0-9]+-)*[A-Za-z0-9_]{16,}\b/g,
  /\bgh[pousr]_[A-Za-z0-9]{20,}\b/g,
  /\bgithub_pat_[A-Za-z0-9_]{20,}\b/g,
  /\bxox[abposr]-[A-Za-z0-9-]{10,}\b/g,
  /\bAKIA[0-9A-Z]{16}\b/g,
  /\bAIza[0-9A-Za-z\-_]{35}\b/g,
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\b/g,
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g,
];

/** Whether a key names a secret (`password`, `apiKey`, `x-auth-token`, `Authorization`, …). */
export function isSecretKey(key: string): boolean {
  // Whole words only, camelCase split, so `apiKey` is secret and `authored` is not.
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  // `tokenCeiling`, `token_count`, `passwordLength`: numbers about secrets, not secrets.
  if (words.some((word) => NOT_SECRET_QUALIFIERS.has(word))) return false;
  return words.some((word, i) => SECRET_WORDS.has(word) || (i > 0 && SECRET_PAIRS.has(`${words[i - 1]} ${word}`)));
}

/** Replace secret-shaped substrings of `text`. */
export function redactText(text: string): string {
  let out = text;
  for (const pattern of SECRET_VALUES) out = out.replace(pattern, REDACTED);
  return out;
}

/**
 * A deep copy of `value` with secrets removed: values under secret-named keys become
 * `[REDACTED]`, and secret-shaped strings anywhere are replaced. Cycles are cut, typed arrays
 * and non-plain objects are summarised, so the result is always JSON-safe.
 *
 * @example
 * redact({ user: 'ada', apiKey: 'abc', note: 'Bearer eyJhbGciOi…' });
 * // { user: 'ada', apiKey: '[REDACTED]', note: '[REDACTED]' }
 */
export function redact<T>(value: T): T {
  return redactValue(value, new WeakSet()) as T;
}

function redactValue(value: unknown, seen: WeakSet<object>): unknown {
  if (typeof value === 'string') return redactText(value);
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  if (typeof value === 'bigint') return value.toString();
  if (value === null || typeof value !== 'object') return typeof value === 'function' || typeof value === 'symbol' ? undefined : value;
  if (seen.has(value)) return '[Circular]';
  seen.add(value);
  try {
    if (Array.isArray(value)) return value.map((item) => redactValue(item, seen) ?? null);
    if (ArrayBuffer.isView(value)) return `[${value.constructor.name} ${value.byteLength} bytes]`;
    if (value instanceof Date) return value.toISOString();
    if (value instanceof Error) return { name: value.name, message: redactText(value.message) };
    if (value instanceof Map) return redactValue(Object.fromEntries(value), seen);
    if (value instanceof Set) return redactValue([...value], seen);
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      if (isSecretKey(key)) out[key] = REDACTED;
      else {
        const redacted = redactValue(item, seen);
        if (redacted !== undefined) out[key] = redacted;
      }
    }
    return out;
  } finally {
    seen.delete(value);
  }
}
