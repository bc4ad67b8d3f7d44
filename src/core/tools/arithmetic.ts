import * as z from 'zod';
import { ValidationError } from '../errors.ts';
import { evaluateExpression, MAX_EXPRESSION_LENGTH } from './calculator.ts';
import { defineTool, type ToolSpec } from './tool.ts';

const Operands = z.object({
  a: z.number().describe('first operand'),
  b: z.number().describe('second operand'),
});

function finite(value: number): number {
  if (!Number.isFinite(value)) throw new ValidationError('the result is not a finite number', { code: 'non_finite_result' });
  return value;
}

const arithmeticMeta = { cost: 0.1, latency: 1, capabilities: ['math'], idempotent: true } as const;

/** The arithmetic tools: `add`, `subtract`, `multiply`, `divide`, `calculate`. */
export const tools: Record<string, ToolSpec> = {
  add: defineTool({
    ...arithmeticMeta,
    description: 'Add two numbers: the sum, plus, total of a and b.',
    parameters: Operands,
    handler: ({ a, b }) => finite(a + b),
  }),
  subtract: defineTool({
    ...arithmeticMeta,
    description: 'Subtract b from a: the difference, minus, take away.',
    parameters: Operands,
    handler: ({ a, b }) => finite(a - b),
  }),
  multiply: defineTool({
    ...arithmeticMeta,
    description: 'Multiply two numbers: the product, times.',
    parameters: Operands,
    handler: ({ a, b }) => finite(a * b),
  }),
  divide: defineTool({
    ...arithmeticMeta,
    description: 'Divide a by b: the quotient, ratio, divided by.',
    parameters: Operands,
    handler: ({ a, b }) => {
      if (b === 0) throw new ValidationError('cannot divide by zero', { code: 'division_by_zero' });
      return finite(a / b);
    },
  }),
  calculate: defineTool({
    ...arithmeticMeta,
    cost: 0.2,
    description: 'Calculate or evaluate an arithmetic expression or formula with parentheses, powers and functions like sqrt, compute math.',
    // For the planner's ranking only (a model is shown the description and the schema).
    examples: ['what is 15% of 240', 'calculate a percentage of a number'],
    parameters: z.object({ expression: z.string().min(1).max(MAX_EXPRESSION_LENGTH).describe('arithmetic expression, e.g. (2 + 3) * 4') }),
    handler: ({ expression }) => evaluateExpression(expression),
  }),
};
