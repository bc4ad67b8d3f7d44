import { describe, expect, it } from 'vitest';
import { duration } from '../../src/web/dashboard/TraceView.tsx';

describe('durations in the dashboard', () => {
  it('read as milliseconds, seconds or minutes with their unit', () => {
    expect(duration(0.4567)).toBe('0.46 ms');
    expect(duration(7)).toBe('7 ms');
    expect(duration(999.4)).toBe('999 ms');
    expect(duration(16_949)).toBe('16.9 s');
    expect(duration(1000)).toBe('1.0 s');
    expect(duration(59_949)).toBe('59.9 s');
    expect(duration(125_400)).toBe('2 min 5 s');
  });
});
