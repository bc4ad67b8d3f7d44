/** Each byte value's two lowercase hex digits: `BYTE_HEX[0xab] === 'ab'`. One table for every hex writer of the core. */
export const BYTE_HEX: readonly string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
