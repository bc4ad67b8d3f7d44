import { ValidationError } from '../errors.ts';

/** Longest expression accepted, in characters. */
export const MAX_EXPRESSION_LENGTH = 1000;
const MAX_DEPTH = 64;

const FUNCTIONS: Readonly<Record<string, { arity: [number, number]; apply: (...args: number[]) => number }>> = {
  abs: { arity: [1, 1], apply: Math.abs },
  sqrt: { arity: [1, 1], apply: Math.sqrt },
  cbrt: { arity: [1, 1], apply: Math.cbrt },
  exp: { arity: [1, 1], apply: Math.exp },
  ln: { arity: [1, 1], apply: Math.log },
  log: { arity: [1, 1], apply: Math.log10 },
  log2: { arity: [1, 1], apply: Math.log2 },
  sin: { arity: [1, 1], apply: Math.sin },
  cos: { arity: [1, 1], apply: Math.cos },
  tan: { arity: [1, 1], apply: Math.tan },
  floor: { arity: [1, 1], apply: Math.floor },
  ceil: { arity: [1, 1], apply: Math.ceil },
  round: { arity: [1, 1], apply: Math.round },
  min: { arity: [1, 64], apply: Math.min },
  max: { arity: [1, 64], apply: Math.max },
  pow: { arity: [2, 2], apply: Math.pow },
};

const CONSTANTS: Readonly<Record<string, number>> = { pi: Math.PI, e: Math.E, tau: 2 * Math.PI };

type Token = { kind: 'number'; value: number; at: number } | { kind: 'name'; value: string; at: number } | { kind: 'op'; value: string; at: number };

function fail(message: string, at: number, code = 'invalid_expression'): never {
  throw new ValidationError(`${message} at position ${at + 1}`, { code, details: { position: at } });
}

function lex(source: string): Token[] {
  const tokens: Token[] = [];
  const number = /\d+(?:\.\d*)?(?:e[+-]?\d+)?|\.\d+(?:e[+-]?\d+)?/iy;
  const name = /[a-z_][a-z0-9_]*/iy;
  for (let i = 0; i < source.length;) {
    const c = source[i]!;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++;
      continue;
    }
    number.lastIndex = i;
    const numberMatch = number.exec(source);
    if (numberMatch) {
      tokens.push({ kind: 'number', value: Number(numberMatch[0]), at: i });
      i += numberMatch[0].length;
      continue;
    }
    name.lastIndex = i;
    const nameMatch = name.exec(source);
    if (nameMatch) {
      tokens.push({ kind: 'name', value: nameMatch[0].toLowerCase(), at: i });
      i += nameMatch[0].length;
      continue;
    }
    if (c === '*' && source[i + 1] === '*') {
      tokens.push({ kind: 'op', value: '^', at: i });
      i += 2;
      continue;
    }
    if ('+-*/%^(),×÷−'.includes(c)) {
      const value = c === '×' ? '*' : c === '÷' ? '/' : c === '−' ? '-' : c;
      tokens.push({ kind: 'op', value, at: i });
      i++;
      continue;
    }
    fail(`unexpected character ${JSON.stringify(c)}`, i);
  }
  return tokens;
}

/**
 * Evaluate an arithmetic expression with a small recursive-descent parser — never `eval`.
 * Supports `+ - * / % ^ **`, parentheses, unary signs, the constants `pi`, `e`, `tau`, and
 * `abs sqrt cbrt exp ln log log2 sin cos tan floor ceil round min max pow`.
 * Throws a `ValidationError` (`invalid_expression`, `division_by_zero`, `non_finite_result`).
 *
 * @example
 * evaluateExpression('(2 + 3) * 4 ^ 2'); // 80
 */
export function evaluateExpression(source: string): number {
  if (typeof source !== 'string' || source.trim() === '') throw new ValidationError('the expression is empty', { code: 'invalid_expression' });
  if (source.length > MAX_EXPRESSION_LENGTH)
    throw new ValidationError(`the expression is longer than ${MAX_EXPRESSION_LENGTH} characters`, { code: 'invalid_expression' });
  const tokens = lex(source);
  let position = 0;
  let depth = 0;

  const peek = (): Token | undefined => tokens[position];
  const end = (): number => tokens[position]?.at ?? source.length;
  const isOp = (value: string): boolean => {
    const token = peek();
    return token?.kind === 'op' && token.value === value;
  };
  const expect = (value: string): void => {
    if (!isOp(value)) fail(`expected "${value}"`, end());
    position++;
  };
  const enter = (): void => {
    if (++depth > MAX_DEPTH) fail('the expression is nested too deeply', end());
  };

  const expression = (): number => {
    enter();
    let value = term();
    while (isOp('+') || isOp('-')) {
      const op = (tokens[position++] as { value: string }).value;
      const right = term();
      value = op === '+' ? value + right : value - right;
    }
    depth--;
    return value;
  };

  const term = (): number => {
    let value = unary();
    while (isOp('*') || isOp('/') || isOp('%')) {
      const token = tokens[position++]!;
      const right = unary();
      if ((token.value === '/' || token.value === '%') && right === 0) fail('division by zero', token.at, 'division_by_zero');
      value = token.value === '*' ? value * right : token.value === '/' ? value / right : value % right;
    }
    return value;
  };

  const unary = (): number => {
    if (isOp('-') || isOp('+')) {
      const op = tokens[position++]!.value;
      enter();
      const value = unary();
      depth--;
      return op === '-' ? -value : value;
    }
    return power();
  };

  const power = (): number => {
    const base = primary();
    if (isOp('^')) {
      position++;
      enter();
      const exponent = unary();
      depth--;
      return Math.pow(base, exponent);
    }
    return base;
  };

  const primary = (): number => {
    const token = peek();
    if (!token) fail('unexpected end of expression', source.length);
    if (token.kind === 'number') {
      position++;
      return token.value;
    }
    if (token.kind === 'name') {
      position++;
      // Own properties only: a name like `constructor` must never reach Object.prototype.
      const fn = Object.hasOwn(FUNCTIONS, token.value) ? FUNCTIONS[token.value] : undefined;
      if (fn && isOp('(')) {
        position++;
        const args: number[] = [];
        if (!isOp(')')) {
          args.push(expression());
          while (isOp(',')) {
            position++;
            args.push(expression());
          }
        }
        expect(')');
        const [min, max] = fn.arity;
        if (args.length < min || args.length > max) fail(`${token.value}() takes ${min === max ? min : `${min} to ${max}`} argument(s)`, token.at);
        return fn.apply(...args);
      }
      const constant = Object.hasOwn(CONSTANTS, token.value) ? CONSTANTS[token.value] : undefined;
      if (constant !== undefined) return constant;
      fail(`unknown name "${token.value}"`, token.at);
    }
    if (token.value === '(') {
      position++;
      const value = expression();
      expect(')');
      return value;
    }
    fail(`unexpected "${token.value}"`, token.at);
  };

  const value = expression();
  if (position < tokens.length) fail(`unexpected "${tokens[position]!.value}"`, tokens[position]!.at);
  if (!Number.isFinite(value)) throw new ValidationError(`the expression does not have a finite value`, { code: 'non_finite_result' });
  return value;
}
