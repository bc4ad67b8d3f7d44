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

/** Value shapes that are secrets wherever they appear, whatever key (if any) they sit under. */
const SECRET_VALUES: ReadonlyArray<RegExp> = [
  /\b(?:Bearer|bearer|BEARER)\s+[A-Za-z0-9\-._~+/]{8,}=*/g,
  /\bBasic\s+[A-Za-z0-9+/]{8,}=*/g,
  // OpenAI / Anthropic (`sk-proj-…`, `sk-ant-…`) and Stripe (`sk_live_…`, `rk_test_…`) keys.
  /\b(?:sk|pk|rk)-(?:[A-Za-z0-9]+-)*[A-Za-z0-9_]{16,}\b/g,
  /\b(?:sk|pk|rk)_(?:live|test)_[A-Za-z0-9]{16,}\b/g,
  // GitHub, GitLab, npm, Hugging Face, Slack tokens and Slack webhooks.
  /\bgh[pousr]_[A-Za-z0-9]{20,}\b/g,
  /\bgithub_pat_[A-Za-z0-9_]{20,}\b/g,
  /\bglpat-[A-Za-z0-9_-]{20,}\b/g,
  /\bnpm_[A-Za-z0-9]{36}\b/g,
  /\bhf_[A-Za-z0-9]{30,}\b/g,
  /\bxox[abposr]-[A-Za-z0-9-]{10,}\b/g,
  /https:\/\/hooks\.slack\.com\/services\/[A-Za-z0-9/]{20,}/g,
  // AWS access key ids, Google API keys and OAuth access tokens.
  /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g,
  /\bAIza[0-9A-Za-z\-_]{35}\b/g,
  /\bya29\.[0-9A-Za-z\-_]{20,}/g,
  // JSON Web Tokens, and PEM private keys (whole blocks).
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\b/g,
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g,
  // Credentials in URLs: `scheme://user:password@host`.
  /(?<=\b[A-Za-z][A-Za-z0-9+.-]*:\/\/[^\s:/@]+:)[^\s@/]+(?=@)/g,
];
/** The shapes as one pattern: one pass over each string instead of one per shape. */
const SECRET_SHAPES = new RegExp(SECRET_VALUES.map((pattern) => pattern.source).join('|'), 'g');

/**
 * Free-text `key=value`, `key: value` and `"key": "value"` pairs (also JSON escaped inside a
 * JSON string, `\\"key\\":\\"value\\"`): the value is a secret when the key is
 * ({@link isSecretKey}), so `password=hunter2` and `api_key: abc` lose their values while
 * `max_tokens=100` and `token_count: 3` keep theirs. Quoted values may hold spaces. The value
 * of a key that is not secret is scanned too: `message: "password=x"` still loses `x`.
 */
const PAIR_KEY = /([A-Za-z_][A-Za-z0-9_.-]{0,63})(\\?["']?\s*[:=](?!\/\/)\s*)/g;
const PAIR_VALUE = /\\"((?:[^"\\\n]|\\(?!")[^\n]){1,512}?)\\"|"((?:[^"\\\n]|\\.){1,512})"|'([^'\n]{1,512})'|([^\s"',;&(){}[\]\\][^\s"',;&)}\]\\]{0,511})/y;

function redactPairs(text: string): string {
  let out = '';
  let copied = 0;
  PAIR_KEY.lastIndex = 0;
  for (let match = PAIR_KEY.exec(text); match; match = PAIR_KEY.exec(text)) {
    if (!isSecretKey(match[1]!)) continue;
    const start = match.index + match[0].length;
    PAIR_VALUE.lastIndex = start;
    const value = PAIR_VALUE.exec(text);
    if (!value) continue;
    const inner = value[1] ?? value[2] ?? value[3] ?? value[4] ?? '';
    if (inner.startsWith(REDACTED.slice(0, -1))) continue;
    const quote = value[1] !== undefined ? '\\"' : value[2] !== undefined ? '"' : value[3] !== undefined ? "'" : '';
    out += text.slice(copied, start) + quote + REDACTED + quote;
    copied = start + value[0].length;
    PAIR_KEY.lastIndex = copied;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/**
 * Secret values the host knows by value — what its secrets port holds, the model key, API
 * tokens — replaced wherever they appear, whatever shape they have. Process-wide on purpose:
 * a value that is a secret anywhere in this process is a secret on every channel (API, SSE,
 * logs, exports), including the ones that never see the host's configuration.
 */
const knownSecrets = new Set<string>();
let knownPattern: RegExp | undefined;

/** The shortest value {@link registerSecretValues} accepts: shorter ones would blank ordinary words. */
export const MIN_KNOWN_SECRET_LENGTH = 8;

/**
 * Make every channel redact these values literally from now on. Values shorter than
 * {@link MIN_KNOWN_SECRET_LENGTH} are ignored (a 3-letter secret would erase ordinary text).
 */
export function registerSecretValues(values: Iterable<string>): void {
  let added = false;
  for (const value of values)
    if (typeof value === 'string' && value.length >= MIN_KNOWN_SECRET_LENGTH && !knownSecrets.has(value)) {
      knownSecrets.add(value);
      added = true;
    }
  if (!added) return;
  // Longest first, so a secret that contains another is replaced whole.
  const escaped = [...knownSecrets].sort((a, b) => b.length - a.length).map((v) => v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  knownPattern = new RegExp(escaped.join('|'), 'g');
}

// Keys repeat (every message has `role` and `content`, every event the same field names): each
// key is classified once. Bounded, so a stream of distinct keys cannot grow it without limit.
const keyVerdicts = new Map<string, boolean>();
const MAX_KEY_VERDICTS = 4096;

/** Whether a key names a secret (`password`, `apiKey`, `x-auth-token`, `Authorization`, …). */
export function isSecretKey(key: string): boolean {
  let verdict = keyVerdicts.get(key);
  if (verdict === undefined) {
    verdict = classifyKey(key);
    if (keyVerdicts.size >= MAX_KEY_VERDICTS) keyVerdicts.clear();
    keyVerdicts.set(key, verdict);
  }
  return verdict;
}

function classifyKey(key: string): boolean {
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

/** Replace secret-shaped substrings of `text`: known secret values, secret-named pairs and secret shapes. */
export function redactText(text: string): string {
  let out = knownPattern ? text.replace(knownPattern, REDACTED) : text;
  out = out.replace(SECRET_SHAPES, REDACTED);
  if (out.length < 3 || !/[:=]/.test(out)) return out;
  return redactPairs(out);
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
