/**
 * A lookup table keyed by words of requests and tools. It has no prototype, so a word such as
 * "constructor" or "toString" finds nothing instead of one of `Object.prototype`'s functions.
 */
export function wordTable<T>(entries: Readonly<Record<string, T>> = {}): Record<string, T> {
  return Object.assign(Object.create(null) as Record<string, T>, entries);
}
