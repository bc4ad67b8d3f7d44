/** One call to the test worker's Durable Object store. */
export interface StoreCall {
  /** The store's name: what keeps one test's objects apart from another's. */
  name: string;
  method: string;
  args: unknown[];
}

/** JSON with Float32Arrays kept as such (vectors cross the wire exactly: a float32 survives a round trip through a double). */
export function encodeCall(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (v instanceof Float32Array ? { $f32: Array.from(v) } : v));
}

/** The inverse of {@link encodeCall}. */
export function decodeCall(text: string): unknown {
  return JSON.parse(text, (_key, v: unknown) => (v !== null && typeof v === 'object' && '$f32' in v ? Float32Array.from((v as { $f32: number[] }).$f32) : v));
}
