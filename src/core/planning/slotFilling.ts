/**
 * Phase 4 of planning: fill a step's inputs from the words of its goal clause, driven by the
 * tool's JSON Schema. Numbers go to number fields in order, quoted strings to string fields,
 * URLs and paths to fields named for them, enum words to enum fields, and free-text fields
 * get what is left of the clause. A field that cannot be filled is left out, so schema
 * validation reports it by name before any handler runs.
 */

/** A reference to an earlier step's output, resolved by the executor just before the step runs. */
export interface StepReference {
  $ref: string;
}

/** Whether `value` is a {@link StepReference}. */
export function isStepReference(value: unknown): value is StepReference {
  return (
    typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 1 && typeof (value as StepReference).$ref === 'string'
  );
}

const NUMBER_WORDS: Readonly<Record<string, number>> = {
  zero: 0,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  thirteen: 13,
  fourteen: 14,
  fifteen: 15,
  sixteen: 16,
  seventeen: 17,
  eighteen: 18,
  nineteen: 19,
  twenty: 20,
  thirty: 30,
  forty: 40,
  fifty: 50,
  sixty: 60,
  seventy: 70,
  eighty: 80,
  ninety: 90,
  hundred: 100,
};

const QUOTED = /"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|“([^”]*)”|‘([^’]*)’/g;
const URL_PATTERN = /\bhttps?:\/\/[^\s"'<>]+[^\s"'<>.,;:!?)]/gi;
const PATH_PATTERN =
  /(?:^|[\s("'])((?:\.{1,2}\/|\/)?[\w.-]+(?:\/[\w.-]+)+|[\w-]+\.(?:txt|md|markdown|json|html?|csv|ts|js|py|yaml|yml|pdf))(?=$|[\s)"',;:!?])/gi;
const NUMBER_PATTERN = /(?<![\w.])[-−]?\d+(?:[.,]\d+)?(?:e[+-]?\d+)?(?![\w])/gi;
const REFERENCE_WORDS = /\b(?:result|it|that|this|previous|answer|output|sum|product|total|difference|quotient)\b/i;
const EXPRESSION_START = /(?:[-+(.\d]|\b(?:abs|sqrt|cbrt|exp|ln|log2?|sin|cos|tan|floor|ceil|round|min|max|pow|pi|tau)\b)/i;

type JsonSchema = Record<string, unknown>;

interface FieldSpec {
  name: string;
  type: string;
  schema: JsonSchema;
}

function fieldType(schema: JsonSchema): string {
  const type = schema['type'];
  if (typeof type === 'string') return type;
  if (Array.isArray(type)) return String(type.find((t) => t !== 'null') ?? 'string');
  if (Array.isArray(schema['enum'])) return 'enum';
  return 'unknown';
}

function fieldsOf(inputSchema: JsonSchema): FieldSpec[] {
  const properties = inputSchema['properties'];
  if (typeof properties !== 'object' || properties === null) return [];
  return Object.entries(properties as Record<string, JsonSchema>).map(([name, schema]) => ({
    name,
    type: Array.isArray(schema['enum']) ? 'enum' : fieldType(schema),
    schema,
  }));
}

function unquote(match: RegExpExecArray): string {
  return (match[1] ?? match[2] ?? match[3] ?? match[4] ?? '').replace(/\\(.)/g, '$1');
}

/** Numbers written in the clause, in order (digits, or number words up to a hundred). */
export function extractNumbers(text: string): number[] {
  const found: Array<{ at: number; value: number }> = [];
  const unquoted = text.replace(QUOTED, (m) => ' '.repeat(m.length)).replace(URL_PATTERN, (m) => ' '.repeat(m.length));
  for (const match of unquoted.matchAll(NUMBER_PATTERN)) {
    const value = Number(match[0].replace('−', '-').replace(',', '.'));
    if (Number.isFinite(value)) found.push({ at: match.index, value });
  }
  for (const match of unquoted.matchAll(/\b[a-z]+\b/gi)) {
    const value = NUMBER_WORDS[match[0].toLowerCase()];
    if (value !== undefined) found.push({ at: match.index, value });
  }
  return found.sort((a, b) => a.at - b.at).map((f) => f.value);
}

/** The arithmetic expression in a clause: the text after the verb, from its first operand to its last. */
function extractExpression(text: string): string | undefined {
  const afterVerb = /\b(?:calculate|compute|evaluate|solve|what\s+is|what's|how\s+much\s+is)\b\s*:?\s*/i.exec(text);
  const rest = afterVerb ? text.slice(afterVerb.index + afterVerb[0].length) : text;
  const start = EXPRESSION_START.exec(rest);
  if (!start) return undefined;
  const tail = rest.slice(start.index);
  const end = /[\d)a-z]\s*[?.!]*\s*$/i.exec(tail) ? tail.replace(/\s*[?.!]+\s*$/, '') : tail;
  const expression = end.trim();
  return /\d|\bpi\b|\btau\b/i.test(expression) ? expression : undefined;
}

/** The free text of a clause: after a colon if there is one, else without the leading verb. */
function freeText(clause: string, verbs: readonly string[]): string {
  const colon = clause.indexOf(':');
  if (colon >= 0 && clause.slice(colon + 1).trim()) return clause.slice(colon + 1).trim();
  const words = clause.trim().split(/\s+/);
  while (words.length > 1 && verbs.includes(words[0]!.toLowerCase().replace(/[^a-z_]/g, ''))) words.shift();
  return words.join(' ');
}

/** What slot filling works from. */
export interface SlotContext {
  /** The clause of the goal this step serves. */
  clause: string;
  /** The whole goal. */
  goal: string;
  /** The tool's name (its words are dropped from free text). */
  tool: string;
  /** The name of the previous step, for "…the result" references. */
  previousStep?: string;
}

/**
 * Fill the top-level fields of `inputSchema` from `context.clause`.
 *
 * @example
 * fillSlots(addSchema, { clause: 'add 10 and 5', goal: 'add 10 and 5', tool: 'add' }); // { a: 10, b: 5 }
 */
export function fillSlots(inputSchema: JsonSchema, context: SlotContext): Record<string, unknown> {
  const { clause, tool } = context;
  const fields = fieldsOf(inputSchema);
  const input: Record<string, unknown> = {};
  const numbers = extractNumbers(clause);
  const quoted = [...clause.matchAll(QUOTED)].map(unquote);
  const urls = [...clause.matchAll(URL_PATTERN)].map((m) => m[0]);
  const paths = [...clause.matchAll(PATH_PATTERN)].map((m) => m[1]!).filter((p) => !/^https?:/i.test(p));
  const words = new Set(clause.toLowerCase().match(/[\p{L}\p{N}_-]+/gu) ?? []);
  const verbs = [...tool.split('_'), tool, 'please', 'echo', 'say', 'repeat', 'count', 'analyse', 'analyze', 'show'];
  const numericFields = fields.filter((f) => f.type === 'number' || f.type === 'integer');
  const referencesPrevious = context.previousStep !== undefined && REFERENCE_WORDS.test(clause) && numbers.length < numericFields.length;

  let numberIndex = 0;
  let quoteIndex = 0;
  let referenceUsed = false;
  for (const field of fields) {
    const name = field.name.toLowerCase();
    switch (field.type) {
      case 'number':
      case 'integer': {
        if (referencesPrevious && !referenceUsed) {
          input[field.name] = { $ref: context.previousStep! } satisfies StepReference;
          referenceUsed = true;
          break;
        }
        const value = numbers[numberIndex++];
        if (value !== undefined) input[field.name] = field.type === 'integer' ? Math.trunc(value) : value;
        break;
      }
      case 'enum': {
        const options = (field.schema['enum'] as unknown[]).filter((o): o is string => typeof o === 'string');
        const chosen = options.find((o) => words.has(o.toLowerCase()));
        if (chosen !== undefined) input[field.name] = chosen;
        break;
      }
      case 'boolean': {
        if (words.has(name) || words.has('true') || words.has('yes')) input[field.name] = true;
        else if (words.has('false') || words.has(`no`)) input[field.name] = false;
        break;
      }
      case 'string': {
        if (/ur[li]|link|href/.test(name) || field.schema['format'] === 'uri') {
          if (urls[0] !== undefined) input[field.name] = urls[0];
        } else if (/path|file/.test(name)) {
          if (paths[0] !== undefined) input[field.name] = paths[0];
        } else if (/expr|formula|equation/.test(name)) {
          const expression = quoted[quoteIndex] ?? extractExpression(clause);
          if (quoted[quoteIndex] !== undefined) quoteIndex++;
          if (expression !== undefined) input[field.name] = expression;
        } else if (quoted[quoteIndex] !== undefined) {
          input[field.name] = quoted[quoteIndex++];
        } else {
          const text = freeText(clause, verbs);
          if (text) input[field.name] = text;
        }
        break;
      }
      default:
        break;
    }
  }
  return input;
}
