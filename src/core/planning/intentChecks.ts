/**
 * Readings of what a request asks for that matched words alone miss, tried on the tool its words
 * chose ({@link misreadingOf}, which also asks the head-word and how-to readings of
 * `headWords.ts` and `argumentFit.ts`):
 * - a verb of looking something up (find, search, show…) is no evidence for one tool over
 *   another when the request goes on to name what it is about ("find me a girlfriend"), nor is
 *   a possessor matched alone ("the store's opening hours" are about the hours);
 * - in English, a request that opens with a verb that changes something is not served by a tool
 *   that only reads ("set my status to away" is no flight status, "open a new savings account"
 *   no search of places nearby);
 * - in English, arithmetic written out ("what's 2 + 2") is served by a tool that takes the
 *   arithmetic or names its operation, not by one that matched nothing else and only has
 *   numbers to fill (a BMI from a weight of 2 and a height of 2).
 */
import { asksHowTo, type FitContext, type Fitted } from './argumentFit.ts';
import { qualifierOnly } from './headWords.ts';
import type { Query } from './ranking/bm25f.ts';
import { fold } from './ranking/tokens.ts';
import { actionOnlyLeftover } from './ranking/abstain.ts';
import type { IndexedTool } from './ranking/toolIndex.ts';

/**
 * Why `entry`, chosen by its words, does not serve what the request asks, as a refusal message;
 * undefined when nothing says so, or the request named the tool. The readings are tried in order:
 * a qualifier matched instead of the head, a how-to question, a change asked of a reader, a
 * possessor, a verb of looking up, arithmetic.
 */
export function misreadingOf(entry: IndexedTool, fitted: Fitted, context: FitContext): string | undefined {
  if (fitted.ranked.score.named) return undefined;
  const { query } = context;
  const name = entry.tool.name;
  const qualifier = qualifierOnly(query, fitted, context.clause, context.offset);
  if (qualifier) return `${name} matched "${qualifier.matched}", but the request is about "${qualifier.matched} ${qualifier.head}", which it does not serve`;
  const howTo = asksHowTo(entry, fitted, query, context);
  if (howTo) return `${name} matched the request, but "${howTo} …" asks how to do something, and ${name} does it rather than explains it`;
  const change = changeToReader(entry, query);
  if (change) return `${name} only reads, and "${change} …" asks to change something`;
  const possessor = possessorOnly(fitted);
  if (possessor) return `${name} matched only "${possessor}", and the request is about what belongs to it`;
  const generic = genericVerbOnly(entry, fitted, query);
  if (generic) return `${name} matched only "${generic}", which any tool may open with, and nothing of what the request names`;
  const arithmetic = arithmeticOnly(entry, fitted, query);
  if (arithmetic) return `${name} matched only the arithmetic "${arithmetic}", and it neither takes an expression nor does that operation`;
  return undefined;
}

/** Verbs that open a request to change something: set it, switch it, open it ("make" and "put" often create or play: "make a meal plan", "put on some jazz"). */
const CHANGING = /^(?:set|turn|switch|change|update|apply|open|enable|disable|activate|install|unlock|undo|redo|revert|restore)$/;
/** Words before the verb that leave it the opening one. */
const POLITE = /^(?:please|pls|plz|can|could|would|you|kindly|now|ok|okay|hey|and|then)$/;

/**
 * The opening verb of a request to change something that `entry` only reads, else undefined.
 * The tool answers questions about things; the request asks to act on them.
 */
function changeToReader(entry: IndexedTool, query: Query): string | undefined {
  if (query.language !== 'en' || entry.sideEffects) return undefined;
  const verb = query.folded.find((word) => !POLITE.test(word));
  // A tool named for the verb does it ("open_file" opens, whatever else it is said to do).
  return verb !== undefined && CHANGING.test(verb) && !entry.nameWords.includes(verb) ? verb : undefined;
}

/** Operators of written arithmetic and the words that name each in a tool's name or description. */
const OPERATIONS: ReadonlyArray<[RegExp, RegExp]> = [
  [/\+/, /\b(?:add|adds|addition|sum|sums|plus|total)\b/],
  [/\d\s+-\s+\d|−/, /\b(?:subtract|subtracts|subtraction|minus|difference)\b/],
  [/[*×]/, /\b(?:multiply|multiplies|multiplication|times|product)\b/],
  [/\d\s*\/\s*\d|÷/, /\b(?:divide|divides|division|quotient|ratio)\b/],
  [/\^|\*\*/, /\b(?:power|powers|exponent|exponentiation)\b/],
];

/**
 * The arithmetic `entry` matched and nothing else, when it neither takes an expression (a
 * parameter named as one: expression, formula, equation) nor names an operation the arithmetic
 * uses; else undefined.
 */
function arithmeticOnly(entry: IndexedTool, fitted: Fitted, query: Query): string | undefined {
  if (query.language !== 'en') return undefined;
  const arithmetic = query.words.find((w) => w.token.word === 'calculate' && w.token.raw !== 'calculate' && w.token.end > w.token.start);
  if (!arithmetic) return undefined;
  const matched = fitted.ranked.score.matched.filter((raw) => raw !== '?');
  if (matched.length === 0 || matched.some((raw) => raw !== arithmetic.token.raw)) return undefined;
  const properties = Object.keys((entry.tool.inputSchema as { properties?: Record<string, unknown> }).properties ?? {});
  if (properties.some((name) => /expr|formula|equation/i.test(name))) return undefined;
  const texts = fold(`${entry.nameWords.join(' ')} ${entry.tool.description}`);
  const written = arithmetic.token.raw;
  if (OPERATIONS.some(([operator, words]) => operator.test(written) && words.test(texts))) return undefined;
  return written;
}

/** Verbs of looking something up, which any tool that reads may open with ("put" or "set" with a particle act: "put on some jazz"). */
const LOOKING = /^(?:find|search|look|lookup|locate|show|get|fetch)$/;

/**
 * The verb `entry` matched and nothing else, when it is one that any tool may open with (find,
 * search, show, get…) and the request goes on to name what it is about: "find me a girlfriend"
 * says nothing of places nearby. Undefined when the tool matched more.
 */
function genericVerbOnly(entry: IndexedTool, fitted: Fitted, query: Query): string | undefined {
  const matched = fitted.ranked.score.matched;
  if (!actionOnlyLeftover(query, matched, entry.verbs)) return undefined;
  const verb = query.words.find((w) => matched.includes(w.token.raw));
  return verb && LOOKING.test(verb.token.word) ? verb.token.raw : undefined;
}

/**
 * The possessor `entry` matched when that is all it matched: in "the store's opening hours" the
 * request is about the hours, not the store. Undefined when the tool matched more.
 */
function possessorOnly(fitted: Fitted): string | undefined {
  const matched = fitted.ranked.score.matched.filter((raw) => raw !== '?');
  return matched.length > 0 && matched.every((raw) => /\p{L}['’]s$/u.test(raw)) ? matched[0] : undefined;
}
