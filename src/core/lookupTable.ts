/**
 * A lookup table keyed by outside text: words of requests and tools, entity names, tag names,
 * record fields. It has no prototype, so a key such as "constructor" or "toString" finds nothing
 * instead of one of `Object.prototype`'s functions.
 */
export function lookupTable<T>(entries: Readonly<Record<string, T>> = {}): Record<string, T> {
  return Object.assign(Object.create(null) as Record<string, T>, entries);
}
