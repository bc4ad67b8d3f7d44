import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValidationError, evaluateExpression, textStats } from '../../src/core/index.ts';

describe('evaluateExpression', () => {
  it('follows precedence, associativity and functions', () => {
    expect(evaluateExpression('(2 + 3) * 4 ^ 2')).toBe(80);
    expect(evaluateExpression('2 ^ 3 ^ 2')).toBe(512);
    expect(evaluateExpression('2 ** 3')).toBe(8);
    expect(evaluateExpression('-2 ^ 2')).toBe(-4);
    expect(evaluateExpression('10 - 4 - 3')).toBe(3);
    expect(evaluateExpression('100 / 10 / 5')).toBe(2);
    expect(evaluateExpression('7 % 4 + sqrt(16) * max(1, 2, 3)')).toBe(15);
    expect(evaluateExpression('round(pi * 100) / 100')).toBe(3.14);
    expect(evaluateExpression('6 × 7 ÷ 2 − 1')).toBe(20);
    expect(evaluateExpression('1.5e3 + .5')).toBe(1500.5);
  });

  it('agrees with integer arithmetic on random expressions', () => {
    const leaf = fc.integer({ min: 0, max: 99 }).map((n) => ({ text: String(n), value: n }));
    const expr = fc.letrec<{ node: { text: string; value: number } }>((tie) => ({
      node: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        leaf,
        fc.tuple(tie('node'), fc.constantFrom('+', '-', '*'), tie('node')).map(([a, op, b]) => ({
          text: `(${a.text} ${op} ${b.text})`,
          value: op === '+' ? a.value + b.value : op === '-' ? a.value - b.value : a.value * b.value,
        })),
      ),
    })).node;
    fc.assert(
      fc.property(expr, ({ text, value }) => evaluateExpression(text) === value),
      { numRuns: 300 },
    );
  });

  it('rejects bad expressions with typed errors and never evaluates code', () => {
    const cases: Array<[string, string]> = [
      ['', 'invalid_expression'],
      ['1 +', 'invalid_expression'],
      ['(1 + 2', 'invalid_expression'],
      ['1 / 0', 'division_by_zero'],
      ['5 % 0', 'division_by_zero'],
      ['alert(1)', 'invalid_expression'],
      ['constructor', 'invalid_expression'],
      ['process.exit(1)', 'invalid_expression'],
      ['10 ^ 400', 'non_finite_result'],
      ['sqrt(-1)', 'non_finite_result'],
      ['max()', 'invalid_expression'],
      ['('.repeat(100) + '1' + ')'.repeat(100), 'invalid_expression'],
      ['1'.repeat(1001), 'invalid_expression'],
    ];
    for (const [source, code] of cases) {
      expect(() => evaluateExpression(source), source).toThrow(ValidationError);
      try {
        evaluateExpression(source);
      } catch (error) {
        expect((error as ValidationError).code, source).toBe(code);
      }
    }
  });

  it('never throws anything but a ValidationError on arbitrary input', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (source) => {
        try {
          const value = evaluateExpression(source);
          return Number.isFinite(value);
        } catch (error) {
          return error instanceof ValidationError;
        }
      }),
      { numRuns: 1000 },
    );
  });
});

describe('textStats', () => {
  it('counts words, sentences, lines and top words', () => {
    expect(textStats('The cat sat.\nThe cat ran! Why?')).toEqual({
      characters: 30,
      words: 7,
      uniqueWords: 5,
      sentences: 3,
      lines: 2,
      averageWordLength: 3,
      topWords: [
        { word: 'cat', count: 2 },
        { word: 'the', count: 2 },
        { word: 'ran', count: 1 },
        { word: 'sat', count: 1 },
        { word: 'why', count: 1 },
      ],
    });
    expect(textStats('')).toMatchObject({ words: 0, lines: 0, sentences: 0, averageWordLength: 0 });
  });
});
