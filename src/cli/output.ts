import { redactText } from '../core/index.ts';

/** Terminal output helpers: colour only on a TTY and never when NO_COLOR is set. */
export interface Output {
  color: boolean;
  out(text: string): void;
  err(text: string): void;
  /** Write `text` to stdout as is: for journals, whose hashes any change would break (they are redacted as data first, or raw on purpose). */
  verbatim?(text: string): void;
}

/**
 * The CLI's terminal. Every line is redacted on its way out (secret shapes, secret-named
 * pairs, values the process knows as secrets): one policy for every command and format, on
 * top of the structured redaction commands apply to what they print.
 */
export function createOutput(stdout: NodeJS.WriteStream = process.stdout, stderr: NodeJS.WriteStream = process.stderr): Output {
  const noColor = process.env['NO_COLOR'] !== undefined && process.env['NO_COLOR'] !== '';
  return {
    color: Boolean(stdout.isTTY) && !noColor,
    out: (text) => void stdout.write(`${redactText(text)}\n`),
    err: (text) => void stderr.write(`${redactText(text)}\n`),
    verbatim: (text) => void stdout.write(text),
  };
}

const CODES = { bold: 1, dim: 2, red: 31, green: 32, yellow: 33, cyan: 36 } as const;

/** Wrap `text` in an ANSI style when `output.color` is on. */
export function paint(output: Output, style: keyof typeof CODES, text: string): string {
  return output.color ? `\u001b[${CODES[style]}m${text}\u001b[0m` : text;
}
