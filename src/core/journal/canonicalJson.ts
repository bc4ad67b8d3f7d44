import { ValidationError } from '../errors.ts';

/**
 * Canonical JSON: object keys sorted (UTF-16 code unit order), no whitespace, `undefined`
 * properties left out. The same value always serialises to the same string in every
 * engine, which is what makes journal hashes portable. Non-finite numbers, bigints,
 * functions, symbols and cycles are refused with a `ValidationError` (`not_canonical`):
 * they have no JSON form, so they could not be replayed.
 *
 * @example
 * canonicalJson({ b: 1, a: [true, null] }); // '{"a":[true,null],"b":1}'
 */
export function canonicalJson(value: unknown): string {
  try {
    try {
      return write(value, 0, undefined);
    } catch (error) {
      if (!(error instanceof TooDeep)) throw error;
      // Deeper than any journal value: either a cycle or unusual nesting. The exact walk tells.
      return write(value, 0, new Set());
    }
  } catch (error) {
    if (!(error instanceof NotCanonical)) throw error;
    // The fast path keeps no path; walk again to say where the bad value is.
    const path = locate(value, []) ?? [];
    throw new ValidationError(`${error.what} at ${path.length ? path.join('.') : '(root)'} has no canonical JSON form`, {
      code: 'not_canonical',
      details: { path: path.join('.') },
    });
  }
}

/** Nesting at which the fast writer hands over to the exact one (which tracks cycles). */
const FAST_DEPTH = 64;

class TooDeep extends Error {}

class NotCanonical extends Error {
  constructor(readonly what: string) {
    super(what);
  }
}

function describeBad(value: unknown): string | undefined {
  switch (typeof value) {
    case 'number':
      return Number.isFinite(value) ? undefined : String(value);
    case 'bigint':
    case 'function':
    case 'symbol':
      return typeof value;
    case 'object':
      return value !== null && (ArrayBuffer.isView(value) || value instanceof Map || value instanceof Set) ? value.constructor.name : undefined;
    default:
      return undefined;
  }
}

function locate(value: unknown, path: Array<string | number>, seen = new Set<object>()): Array<string | number> | undefined {
  if (describeBad(value) !== undefined) return path;
  if (typeof value !== 'object' || value === null) return undefined;
  if (seen.has(value)) return path;
  seen.add(value);
  const entries: Array<[string | number, unknown]> = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value);
  for (const [key, item] of entries) {
    const found = locate(item, [...path, key], seen);
    if (found) return found;
  }
  seen.delete(value);
  return undefined;
}

/** Keys that JSON.stringify would quote without escaping anything. */
const PLAIN_KEY = /^[\w$.:@ -]*$/;

/** Quoted keys by key: journal events repeat a few dozen keys, so each is tested and escaped once. */
const quotedKeys = new Map<string, string>();

function quoteKey(key: string): string {
  let quoted = quotedKeys.get(key);
  if (quoted === undefined) {
    quoted = '"' + (PLAIN_KEY.test(key) ? key : JSON.stringify(key).slice(1, -1)) + '":';
    if (quotedKeys.size < 4096) quotedKeys.set(key, quoted);
  }
  return quoted;
}

/**
 * Whether JSON.stringify would write `text` as it is between quotes: no quote, backslash,
 * control character or surrogate (a lone one is escaped). A loop over a short string beats the
 * call into JSON.stringify, and most journal strings are short ids, names and hashes.
 */
function plainString(text: string): boolean {
  if (text.length > 64) return false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || (c >= 0xd800 && c <= 0xdfff)) return false;
  }
  return true;
}

/** A string as JSON writes it, quotes included: as it is when nothing in it needs escaping. */
export function quoteJson(text: string): string {
  return plainString(text) ? '"' + text + '"' : JSON.stringify(text);
}

/** Sort an object's keys by UTF-16 code units, as `Array.prototype.sort` does: a few keys by insertion, without the call machinery. */
function sortKeys(keys: string[]): void {
  if (keys.length > 12) {
    keys.sort();
    return;
  }
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i]!;
    let j = i - 1;
    while (j >= 0 && keys[j]! > key) {
      keys[j + 1] = keys[j]!;
      j--;
    }
    keys[j + 1] = key;
  }
}

/**
 * Write `value`. Without `seen` (everyday values) no set of the objects on the path is kept: a
 * cycle cannot be told from deep nesting then, so past {@link FAST_DEPTH} levels the writer gives
 * up (`TooDeep`) and the caller writes again with `seen`, which refuses cycles exactly.
 */
function write(value: unknown, depth: number, seen: Set<object> | undefined): string {
  switch (typeof value) {
    case 'string':
      return quoteJson(value);
    case 'number':
      if (!Number.isFinite(value)) throw new NotCanonical(String(value));
      // JSON writes a finite number as its string form (-0 as "0"), without the call.
      return '' + value;
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object': {
      if (value === null) return 'null';
      if (seen) {
        if (seen.has(value)) throw new NotCanonical('a cycle');
        seen.add(value);
      } else if (depth > FAST_DEPTH) throw new TooDeep();
      let out: string;
      if (Array.isArray(value)) {
        out = '[';
        for (let i = 0; i < value.length; i++) {
          const item: unknown = value[i];
          out += (i ? ',' : '') + (item === undefined ? 'null' : write(item, depth + 1, seen));
        }
        out += ']';
      } else {
        if (ArrayBuffer.isView(value) || value instanceof Map || value instanceof Set) throw new NotCanonical(value.constructor.name);
        const toJSON = (value as { toJSON?: unknown }).toJSON;
        if (typeof toJSON === 'function') {
          seen?.delete(value);
          return write((toJSON as () => unknown).call(value), depth + 1, seen);
        }
        const keys = Object.keys(value);
        if (keys.length > 1) sortKeys(keys);
        out = '{';
        let first = true;
        for (let i = 0; i < keys.length; i++) {
          const key = keys[i]!;
          const item = (value as Record<string, unknown>)[key];
          if (item === undefined) continue;
          out += (first ? '' : ',') + quoteKey(key) + write(item, depth + 1, seen);
          first = false;
        }
        out += '}';
      }
      seen?.delete(value);
      return out;
    }
    case 'undefined':
      return 'null';
    default:
      throw new NotCanonical(typeof value);
  }
}

/** A deep copy of `value` as plain JSON data (what a journal stores and a replay gets back). */
export function toJsonData<T = unknown>(value: unknown): T {
  return JSON.parse(canonicalJson(value)) as T;
}
