import { describe, expect, it } from 'vitest';
import { createRandomIds } from '../../src/core/index.ts';

describe('createRandomIds', () => {
  it('makes 128-bit hex ids that sort by the time they were made, unique within one millisecond', () => {
    let now = Date.UTC(2026, 10, 28);
    const ids = createRandomIds({ now: () => now });
    const made: string[] = [];
    for (let i = 0; i < 200; i++) {
      made.push(ids.next('run'));
      if (i % 50 === 49) now += 1;
    }
    for (const id of made) expect(id).toMatch(/^run_[0-9a-f]{32}$/);
    expect(new Set(made).size).toBe(made.length);
    // Ids of a later millisecond sort after every id of an earlier one.
    for (let i = 50; i < made.length; i += 50) expect(made.slice(0, i).every((earlier) => earlier < made[i]!)).toBe(true);
    expect(made[0]!.slice(4, 16)).toBe(Date.UTC(2026, 10, 28).toString(16).padStart(12, '0'));
    expect(ids.next()).toMatch(/^[0-9a-f]{32}$/);
  });

  it('keeps the time part to 48 bits for clocks out of range', () => {
    for (const now of [-5, Number.NaN, 2 ** 60]) {
      const id = createRandomIds({ now: () => now }).next();
      expect(id).toMatch(/^[0-9a-f]{32}$/);
    }
  });
});
