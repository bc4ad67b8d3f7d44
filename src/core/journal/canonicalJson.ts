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
  return write(value, [], new Set());
}

function fail(path: readonly (string | number)[], what: string): never {
  throw new ValidationError(`${what} at ${path.length ? path.join('.') : '(root)'} has no canonical JSON form`, {
    code: 'not_canonical',
    details: { path: path.join('.') },
  });
}

function write(value: unknown, path: (string | number)[], seen: Set<object>): string {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      if (!Number.isFinite(value)) fail(path, String(value));
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object': {
      if (value === null) return 'null';
      if (seen.has(value)) fail(path, 'a cycle');
      seen.add(value);
      try {
        if (Array.isArray(value)) {
          const parts: string[] = [];
          for (let i = 0; i < value.length; i++) {
            const item: unknown = value[i];
            parts.push(item === undefined ? 'null' : write(item, [...path, i], seen));
          }
          return `[${parts.join(',')}]`;
        }
        if (ArrayBuffer.isView(value) || value instanceof Map || value instanceof Set) fail(path, value.constructor.name);
        const toJSON = (value as { toJSON?: unknown }).toJSON;
        if (typeof toJSON === 'function') return write((toJSON as () => unknown).call(value), path, seen);
        const keys = Object.keys(value).sort();
        const parts: string[] = [];
        for (const key of keys) {
          const item = (value as Record<string, unknown>)[key];
          if (item === undefined) continue;
          parts.push(`${JSON.stringify(key)}:${write(item, [...path, key], seen)}`);
        }
        return `{${parts.join(',')}}`;
      } finally {
        seen.delete(value);
      }
    }
    case 'undefined':
      return 'null';
    default:
      return fail(path, typeof value);
  }
}

/** A deep copy of `value` as plain JSON data (what a journal stores and a replay gets back). */
export function toJsonData<T = unknown>(value: unknown): T {
  return JSON.parse(canonicalJson(value)) as T;
}
