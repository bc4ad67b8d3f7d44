/**
 * What slot filling works with: the tool's parameters read from its JSON Schema, and the
 * values found in a clause ("mentions"), each with its span of the clause.
 */
import { stem, type Language } from '../ranking/stem.ts';
import { groups } from '../ranking/synonyms.ts';
import { identifierWords, tokenize, type Token } from '../ranking/tokens.ts';

type JsonSchema = Record<string, unknown>;

/** The JSON type of a parameter as slot filling treats it. */
export type ParamType = 'string' | 'number' | 'integer' | 'boolean' | 'array' | 'enum' | 'unknown';

/** One parameter of a tool. */
export interface Param {
  name: string;
  type: ParamType;
  schema: JsonSchema;
  required: boolean;
  description: string;
  /** Folded words of the name. */
  nameWords: readonly string[];
  /** English stems (and synonym groups) of the name and description: words that point at this parameter. */
  cues: ReadonlySet<string>;
  /** Stems of the name alone. */
  nameCues: ReadonlySet<string>;
  /** For arrays: the items' type. */
  itemType?: ParamType;
  /** For enums: the allowed strings. */
  options?: readonly string[];
}

/** A value found in the clause. */
export interface Mention {
  kind: 'number' | 'money' | 'percent' | 'date' | 'time' | 'datetime' | 'quoted' | 'url' | 'email' | 'path';
  value: string | number;
  /** Offsets in the clause. */
  start: number;
  end: number;
  /** For numbers: the word right after (a unit: "tickets", "km"); for money: the currency code. */
  unit?: string;
  /** For numbers written as a multiplier word ("double", "half"): used only when nothing else fits. */
  implicit?: boolean;
}

/** A filled value and where it came from. */
export interface Filled {
  value: unknown;
  start: number;
  end: number;
  reason: string;
}

/** The clause being read. */
export interface Clause {
  text: string;
  tokens: readonly Token[];
  language: Language;
  /** Offset of the clause in the goal. */
  offset: number;
}

function typeOf(schema: JsonSchema): ParamType {
  if (Array.isArray(schema['enum']) && schema['enum'].some((v) => typeof v === 'string')) return 'enum';
  let type = schema['type'];
  if (Array.isArray(type)) type = type.find((t) => t !== 'null');
  if (type === 'string' || type === 'number' || type === 'integer' || type === 'boolean' || type === 'array') return type;
  if (Array.isArray(schema['anyOf'])) {
    const first = (schema['anyOf'] as JsonSchema[]).find((s) => s && s['type'] !== 'null');
    return first ? typeOf(first) : 'unknown';
  }
  return 'unknown';
}

function cueSet(text: string): Set<string> {
  const cues = new Set<string>();
  for (const token of tokenize(text)) {
    if (token.word.length < 2 || /^\d+$/.test(token.word)) continue;
    const s = stem(token.word);
    cues.add(s);
    for (const g of groups(s)) cues.add(`g:${g}`);
  }
  return cues;
}

const known = new WeakMap<JsonSchema, Param[]>();

/** The parameters of an input schema, in declaration order (read once per schema object). */
export function paramsOf(inputSchema: JsonSchema): Param[] {
  let params = known.get(inputSchema);
  if (!params) known.set(inputSchema, (params = readParams(inputSchema)));
  return params;
}

function readParams(inputSchema: JsonSchema): Param[] {
  const properties = inputSchema['properties'];
  if (typeof properties !== 'object' || properties === null) return [];
  const required = new Set(Array.isArray(inputSchema['required']) ? (inputSchema['required'] as unknown[]).filter((r) => typeof r === 'string') : []);
  return Object.entries(properties as Record<string, JsonSchema>)
    .filter(([, schema]) => typeof schema === 'object' && schema !== null)
    .map(([name, schema]) => {
      const type = typeOf(schema);
      const description = typeof schema['description'] === 'string' ? schema['description'].slice(0, 500) : '';
      const nameWords = identifierWords(name);
      const nameCues = cueSet(nameWords.join(' '));
      const cues = cueSet(`${nameWords.join(' ')} ${description}`);
      const items = schema['items'];
      // A parameter with a default is filled by the tool itself when the request leaves it out.
      const param: Param = { name, type, schema, required: required.has(name) && schema['default'] === undefined, description, nameWords, cues, nameCues };
      if (type === 'array' && typeof items === 'object' && items !== null && !Array.isArray(items)) param.itemType = typeOf(items as JsonSchema);
      if (type === 'enum') param.options = (schema['enum'] as unknown[]).filter((v): v is string => typeof v === 'string');
      return param;
    });
}

/** Whether a mention's span overlaps any of `taken`. */
export function overlaps(start: number, end: number, taken: ReadonlyArray<{ start: number; end: number }>): boolean {
  return taken.some((t) => start < t.end && end > t.start);
}

/** The kind of date or time a parameter holds, by its format, pattern, type and name; undefined for other parameters. */
export function dateKind(param: Param): 'date' | 'time' | 'datetime' | undefined {
  let kind = dateKinds.get(param);
  if (kind === undefined) dateKinds.set(param, (kind = readDateKind(param) ?? 'none'));
  return kind === 'none' ? undefined : kind;
}

const dateKinds = new WeakMap<Param, 'date' | 'time' | 'datetime' | 'none'>();

function readDateKind(param: Param): 'date' | 'time' | 'datetime' | undefined {
  const format = param.schema['format'];
  if (format === 'date') return 'date';
  if (format === 'date-time') return 'datetime';
  if (format === 'time') return 'time';
  const pattern = param.schema['pattern'];
  if (typeof pattern === 'string' && pattern.includes(':') && /\\d|\[0-/.test(pattern) && !/\d{4}/.test(pattern)) return 'time';
  if (param.type !== 'string') return undefined;
  if (param.nameWords.some((w) => /^(date|day|birthday|deadline|due)$/.test(w))) return 'date';
  if (param.nameWords.some((w) => /^(time|hour)$/.test(w))) return 'time';
  if (param.nameWords.some((w) => /^(when|datetime|at)$/.test(w))) return 'datetime';
  return undefined;
}

/**
 * Order two scores higher first, as `b - a` would, but as -1, 0 or 1: a comparator that returns a
 * fraction has it boxed on every call of the sort (0 also for NaN, which `b - a` treats alike).
 */
export function higherFirst(a: number, b: number): number {
  return a > b ? -1 : a < b ? 1 : 0;
}
