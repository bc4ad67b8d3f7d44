/**
 * The arithmetic of a request, for a parameter that takes an expression: the text from its
 * first operand to its last, with percentages written out ("15% of 240" → "15 / 100 * 240"),
 * "of" after a percentage read as times, and word operators turned into symbols.
 */

const AFTER_VERB = /\b(?:calculate|compute|evaluate|solve|work\s+out|what\s+is|what's|how\s+much\s+is|calcule[rz]?|calcula|berechne|calcola)\b\s*:?\s*/i;
const START = /(?:[-+(.\d]|\b(?:abs|sqrt|cbrt|exp|ln|log2?|sin|cos|tan|floor|ceil|round|min|max|pow|pi|tau)\b)/i;

/** The expression and its span in `text`, or undefined when there is none. */
export function expressionOf(text: string): { value: string; start: number; end: number } | undefined {
  const verb = AFTER_VERB.exec(text);
  const from = verb ? verb.index + verb[0].length : 0;
  const rest = text.slice(from);
  const start = START.exec(rest);
  if (!start) return undefined;
  const begin = from + start.index;
  let end = text.length;
  while (end > begin && /[\s?.!]/.test(text[end - 1]!)) end--;
  const written = text.slice(begin, end);
  if (!/\d|\bpi\b|\btau\b/i.test(written)) return undefined;
  const value = written
    .replace(/(\d+(?:\.\d+)?)\s*%\s*of\s+/gi, '$1 / 100 * ')
    .replace(/(\d+(?:\.\d+)?)\s*(?:%|percent\b)/gi, '($1 / 100)')
    .replace(/\bplus\b/gi, '+')
    .replace(/\bminus\b/gi, '-')
    .replace(/\b(?:times|multiplied\s+by)\b/gi, '*')
    .replace(/\bdivided\s+by\b/gi, '/')
    .replace(/\bsquare\s+root\s+of\s+(\d+(?:\.\d+)?)/gi, 'sqrt($1)')
    .replace(/\bto\s+the\s+power\s+of\b/gi, '^')
    .trim();
  return { value, start: begin, end };
}
