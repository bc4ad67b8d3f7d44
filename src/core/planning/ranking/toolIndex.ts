/**
 * The searchable form of a profile's tools: each tool as a document of weighted fields (name,
 * aliases, description, parameter names and descriptions, enum values, examples), turned into
 * BM25F term weights once per tool and gathered into one inverted index per tool list. Field
 * lengths are normalised against fixed typical lengths, not the collection's, so a tool scores
 * the same among 3 tools or 300.
 */
import type { ToolDefinition } from '../../tools/tool.ts';
import { guessLanguage, type Language } from './stem.ts';
import { termsOf } from './terms.ts';
import { identifierWords, tokenize } from './tokens.ts';

/** A tool field: how much a match in it counts, and its typical length in content words. */
interface Field {
  weight: number;
  typicalLength: number;
}

const FIELDS = {
  name: { weight: 3, typicalLength: 2.5 },
  aliases: { weight: 2.5, typicalLength: 3 },
  description: { weight: 1, typicalLength: 12 },
  parameterNames: { weight: 0.6, typicalLength: 4 },
  parameterDescriptions: { weight: 0.4, typicalLength: 12 },
  enumValues: { weight: 0.3, typicalLength: 6 },
  examples: { weight: 1.2, typicalLength: 12 },
} as const satisfies Record<string, Field>;
type FieldName = keyof typeof FIELDS;

/** BM25 length normalisation strength. */
const B = 0.5;

/** One tool as ranking sees it. */
export interface IndexedTool {
  tool: ToolDefinition;
  /** Term → BM25F pseudo-frequency (fields weighted and length-normalised). */
  terms: ReadonlyMap<string, number>;
  /** Folded words of the tool's name, for explicit mentions. */
  nameWords: readonly string[];
  /** Whether a call changes the world: it asks for approval or is not safe to repeat. */
  sideEffects: boolean;
}

type JsonSchema = Record<string, unknown>;

function fieldTexts(tool: ToolDefinition): Record<FieldName, string[]> {
  const properties = (tool.inputSchema['properties'] ?? {}) as Record<string, JsonSchema>;
  const texts: Record<FieldName, string[]> = {
    name: [identifierWords(tool.name).join(' ')],
    aliases: [...(tool.aliases ?? [])],
    description: [tool.description],
    parameterNames: [],
    parameterDescriptions: [],
    enumValues: [],
    examples: [...(tool.examples ?? [])],
  };
  for (const [name, schema] of Object.entries(properties)) {
    texts.parameterNames.push(identifierWords(name).join(' '));
    if (typeof schema?.['description'] === 'string') texts.parameterDescriptions.push(schema['description']);
    if (Array.isArray(schema?.['enum'])) texts.enumValues.push(schema['enum'].filter((v) => typeof v === 'string').join(' '));
  }
  return texts;
}

function fieldTerms(text: string, language: Language, into: Map<string, number>): number {
  let length = 0;
  for (const token of tokenize(text)) {
    const terms = termsOf(token.word, language);
    if (!terms) continue;
    length++;
    for (const term of terms.stems) into.set(term, (into.get(term) ?? 0) + 1);
    for (const term of terms.groups) into.set(term, (into.get(term) ?? 0) + 1);
  }
  return length;
}

const indexed = new WeakMap<ToolDefinition, IndexedTool>();

/** The searchable form of one tool (computed once per tool definition). */
export function indexTool(tool: ToolDefinition): IndexedTool {
  const known = indexed.get(tool);
  if (known) return known;
  const weights = new Map<string, number>();
  const texts = fieldTexts(tool);
  for (const field of Object.keys(FIELDS) as FieldName[]) {
    const { weight, typicalLength } = FIELDS[field];
    for (const text of texts[field]) {
      const tf = new Map<string, number>();
      // Examples may be in any language; the rest is the author's (usually English) prose.
      const language = field === 'examples' || field === 'aliases' ? guessLanguage(text, tokenize(text)) : 'en';
      const length = fieldTerms(text, language, tf);
      if (length === 0) continue;
      const norm = 1 - B + (B * length) / typicalLength;
      for (const [term, count] of tf) {
        const value = (weight * Math.min(count, 3)) / norm;
        // Several texts of one field (examples) count as one field: the best text, not their sum.
        const key = `${field}\u0000${term}`;
        const previous = weights.get(key) ?? 0;
        if (value > previous) weights.set(key, value);
      }
    }
  }
  const terms = new Map<string, number>();
  for (const [key, value] of weights) {
    const term = key.slice(key.indexOf('\u0000') + 1);
    terms.set(term, (terms.get(term) ?? 0) + value);
  }
  const entry: IndexedTool = {
    tool,
    terms,
    nameWords: identifierWords(tool.name),
    sideEffects: tool.requiresApproval || !tool.idempotent,
  };
  indexed.set(tool, entry);
  return entry;
}

/** An inverted index over a list of tools. */
export interface ToolIndex {
  tools: readonly IndexedTool[];
  /** Term → (position in `tools`, pseudo-frequency). */
  postings: ReadonlyMap<string, ReadonlyArray<readonly [number, number]>>;
}

const recent: ToolIndex[] = [];
const RECENT_LIMIT = 8;

/** The index of `tools`, reused while the same tool definitions are asked for again. */
export function indexTools(tools: readonly ToolDefinition[]): ToolIndex {
  for (const index of recent) {
    if (index.tools.length === tools.length && index.tools.every((t, i) => t.tool === tools[i])) return index;
  }
  const entries = tools.map(indexTool);
  const postings = new Map<string, Array<readonly [number, number]>>();
  entries.forEach((entry, position) => {
    for (const [term, value] of entry.terms) {
      let list = postings.get(term);
      if (!list) postings.set(term, (list = []));
      list.push([position, value]);
    }
  });
  const index: ToolIndex = { tools: entries, postings };
  recent.unshift(index);
  if (recent.length > RECENT_LIMIT) recent.pop();
  return index;
}
