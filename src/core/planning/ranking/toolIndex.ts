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
import { fold, identifierWords, tokenize } from './tokens.ts';

/** A tool field: how much a match in it counts, and its typical length in content words. */
interface Field {
  weight: number;
  typicalLength: number;
}

const FIELDS = {
  name: { weight: 5, typicalLength: 2.5 },
  aliases: { weight: 4, typicalLength: 3 },
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
  /** Folded words (5 letters or more) of the tool's texts, for typo look-ups. */
  words: readonly string[];
  /**
   * The terms (stems and synonym groups) of each distinctive action verb in the tool's name
   * (`cancel_flight` → cancel; not the generic get, list, search…): a request that says none of
   * them asks for another action on the same things.
   */
  verbs: ReadonlyArray<readonly string[]>;
  /**
   * The terms of the tool's examples that none of its own texts (name, aliases, description,
   * parameters) has: a request word matched only there is a value of an example ("kitchen" in
   * "apaga las luces de la cocina"), not what the tool does.
   */
  exampleOnly: ReadonlySet<string>;
  /**
   * The terms only the tool's parameter names have (not its name, aliases, description,
   * parameter descriptions, enum values or examples): a request that matches nothing else ("the
   * speed limit" for a `limit` parameter) speaks of a value the tool takes, not of what it does.
   */
  parameterOnly: ReadonlySet<string>;
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
  // A name written run together (`calendar_createevent`) is split by the words of the tool's own texts.
  const vocabulary = new Set<string>(NAME_VERBS);
  for (const field of ['description', 'parameterNames', 'parameterDescriptions', 'aliases'] as const)
    for (const text of texts[field]) for (const token of tokenize(text)) vocabulary.add(token.word);
  texts.name = [
    identifierWords(tool.name)
      .flatMap((w) => segment(w, vocabulary))
      .join(' '),
  ];
  const own = new Set<string>();
  const inExamples = new Set<string>();
  const inParameters = new Set<string>();
  const identity = new Set<string>();
  for (const field of Object.keys(FIELDS) as FieldName[]) {
    const { weight, typicalLength } = FIELDS[field];
    for (const text of texts[field]) {
      const tf = new Map<string, number>();
      // Examples may be in any language; the rest is the author's (usually English) prose.
      const language = field === 'examples' || field === 'aliases' ? guessLanguage(text, tokenize(text)) : 'en';
      const length = fieldTerms(text, language, tf);
      if (length === 0) continue;
      for (const term of tf.keys()) {
        (field === 'examples' ? inExamples : own).add(term);
        (field === 'parameterNames' ? inParameters : identity).add(term);
      }
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
  const words = new Set<string>();
  for (const field of Object.keys(FIELDS) as FieldName[])
    for (const text of texts[field]) for (const token of tokenize(text)) if (token.word.length >= 5 && !/\d/.test(token.word)) words.add(token.word);
  const nameWords = texts.name[0]!.split(' ');
  const verbs = nameWords
    .filter((word) => DISTINCTIVE_VERB.test(word) && !GENERIC_ACTION.test(word))
    .map((word) => termsOf(word, 'en'))
    .filter((terms) => terms !== null)
    .map((terms) => [...terms.stems, ...terms.groups]);
  const entry: IndexedTool = {
    tool,
    words: [...words],
    verbs,
    terms,
    nameWords,
    exampleOnly: new Set([...inExamples].filter((term) => !own.has(term))),
    parameterOnly: new Set([...inParameters].filter((term) => !identity.has(term))),
    sideEffects: tool.requiresApproval || (!tool.idempotent && changesWorld(nameWords, tool.description)),
  };
  indexed.set(tool, entry);
  return entry;
}

/** Verbs of calls that change something: sending, writing, paying, deleting, booking… */
const WORLD_CHANGING_WORDS =
  'send post publish delete remove erase create add insert book reserve buy purchase order pay transfer cancel update edit modify set write save store remember share move rename upload apply lock unlock start stop turn switch log record schedule invite submit approve reject refund return archive empty clear reset install uninstall deploy restart shutdown kill notify email text call dial reply forward mark assign close open enable disable subscribe unsubscribe follow unfollow like rate review charge withdraw deposit'.split(
    ' ',
  );
const WORLD_CHANGING = new RegExp(`^(${WORLD_CHANGING_WORDS.join('|')})$`);
/** Verbs of a tool name that say what it does to its object, beyond the world-changing ones. */
const OTHER_VERB_WORDS =
  'compare convert calculate compute translate track scale solve estimate play define summarize summarise compress extract generate find locate geocode check'.split(
    ' ',
  );
export const DISTINCTIVE_VERB = new RegExp(`${WORLD_CHANGING.source}|^(${OTHER_VERB_WORDS.join('|')})$`);
/** Verbs that say only that something is read or shown: any request about the tool's object may use others. */
const GENERIC_WORDS = 'get list search find show fetch lookup look read view check set make put give take locate'.split(' ');
export const GENERIC_ACTION = new RegExp(`^(${GENERIC_WORDS.join('|')})$`);
/** The verbs tool names start with, for splitting a name written run together ("moveevent", "getweather"). */
const NAME_VERBS: readonly string[] = [...new Set([...WORLD_CHANGING_WORDS, ...OTHER_VERB_WORDS, ...GENERIC_WORDS])];

/**
 * Whether a tool that did not declare itself idempotent changes the world, by its name and the
 * first word of its description ("Send …", "Delete …"); a tool that only reads ("Search …",
 * "Current weather …") needs no more evidence than any other.
 */
function changesWorld(nameWords: readonly string[], description: string): boolean {
  const first = fold(/^[\p{L}]+/u.exec(description.trim())?.[0] ?? '');
  return [...nameWords, first].some((word) => WORLD_CHANGING.test(word));
}

/** BM25 saturation. */
const K1 = 1.2;
/** The most one word can add, per unit of weight: a perfect match saturates here. */
export const SATURATION = K1 + 1;

/** A BM25F pseudo-frequency saturated: what one matched word adds per unit of weight. */
export function saturate(x: number): number {
  return (x * SATURATION) / (x + K1);
}

/** The tools of one term: positions in the index and each one's saturated match, side by side. */
export interface Posting {
  positions: readonly number[];
  saturated: readonly number[];
}

/** An inverted index over a list of tools. */
export interface ToolIndex {
  tools: readonly IndexedTool[];
  /** Term → the tools that have it and their saturated BM25F match. */
  postings: ReadonlyMap<string, Posting>;
  /** Each word of the tools' texts (5 letters or more) and each of its one-letter deletions → the words: typo look-ups. */
  nearWords: ReadonlyMap<string, readonly string[]>;
  /**
   * A stem's beginnings of {@link MIN_PREFIX} letters or more → the longer stems that start so:
   * words of one family whose stems differ ("percent" and "percentage" → `percentag`).
   */
  extensions: ReadonlyMap<string, readonly string[]>;
  /** A tool name's letters run together (`sendmessage`) → the tools so named: a clause can name them outright. */
  byJoinedName: ReadonlyMap<string, readonly number[]>;
  /** Every beginning of a key of {@link byJoinedName} (the key itself included): words that cannot start a name are not joined further. */
  joinedNameStarts: ReadonlySet<string>;
  /** The list it was last asked for: the same array (a registry's shared list) is its own answer. */
  source: readonly ToolDefinition[];
  /** The highest cost and latency among the tools (1 when all are 0), for preference weights. */
  maxCost: number;
  maxLatency: number;
}

/** A word and its one-letter deletions (the keys of a deletion-neighbourhood typo index). */
export function deletions(word: string): string[] {
  const keys = [word];
  for (let i = 0; i < word.length; i++) keys.push(word.slice(0, i) + word.slice(i + 1));
  return keys;
}

/**
 * Split a run-together word ("createevent", "listunreademails") into words of `vocabulary`,
 * cheapest first: a known piece costs 1, an unknown one (four letters or more) more the longer it is.
 * Returns the word itself when no split has two known pieces.
 */
export function segment(word: string, vocabulary: ReadonlySet<string>): string[] {
  if (word.length < 6 || vocabulary.has(word)) return [word];
  const n = word.length;
  const best: Array<{ cost: number; known: number; pieces: string[] } | undefined> = [{ cost: 0, known: 0, pieces: [] }];
  for (let end = 1; end <= n; end++) {
    for (let start = Math.max(0, end - 20); start < end; start++) {
      const before = best[start];
      if (!before) continue;
      const piece = word.slice(start, end);
      const known = piece.length >= 2 && vocabulary.has(piece);
      if (!known && piece.length < 4) continue;
      // An unknown piece costs more the longer it is, so a long unknown word loses to known words around a short unknown rest.
      const cost = before.cost + (known ? 1 : 1 + piece.length / 4);
      const current = best[end];
      if (!current || cost < current.cost) best[end] = { cost, known: before.known + (known ? 1 : 0), pieces: [...before.pieces, piece] };
    }
  }
  const result = best[n];
  return result && result.known >= 2 && result.pieces.length > 1 ? result.pieces : [word];
}

/** Shortest beginning of a stem that finds the longer stems of its family. */
export const MIN_PREFIX = 6;

const recent: ToolIndex[] = [];
const RECENT_LIMIT = 8;

function sameTools(indexed: readonly IndexedTool[], tools: readonly ToolDefinition[]): boolean {
  if (indexed.length !== tools.length) return false;
  for (let i = 0; i < tools.length; i++) if (indexed[i]!.tool !== tools[i]) return false;
  return true;
}

/** The index of `tools`, reused while the same tool definitions are asked for again. */
export function indexTools(tools: readonly ToolDefinition[]): ToolIndex {
  for (const index of recent) if (index.source === tools) return index;
  for (const index of recent)
    if (sameTools(index.tools, tools)) {
      index.source = tools;
      return index;
    }
  const entries = tools.map(indexTool);
  const postings = new Map<string, { positions: number[]; saturated: number[] }>();
  const nearWords = new Map<string, string[]>();
  const extensions = new Map<string, string[]>();
  entries.forEach((entry, position) => {
    for (const [term, value] of entry.terms) {
      let list = postings.get(term);
      if (!list) {
        postings.set(term, (list = { positions: [], saturated: [] }));
        // English stems only: groups (`g:`) and other languages' stems (`fr:`) have families of their own.
        if (!term.includes(':'))
          for (let k = MIN_PREFIX; k < term.length; k++) {
            const key = term.slice(0, k);
            const longer = extensions.get(key);
            if (!longer) extensions.set(key, [term]);
            else longer.push(term);
          }
      }
      list.positions.push(position);
      list.saturated.push(saturate(value));
    }
    for (const word of entry.words) {
      for (const key of deletions(word)) {
        const list = nearWords.get(key);
        if (!list) nearWords.set(key, [word]);
        else if (!list.includes(word)) list.push(word);
      }
    }
  });
  const maxCost = entries.reduce((m, e) => Math.max(m, e.tool.cost), 0) || 1;
  const maxLatency = entries.reduce((m, e) => Math.max(m, e.tool.latency), 0) || 1;
  const byJoinedName = new Map<string, number[]>();
  entries.forEach((entry, position) => {
    const joined = fold(entry.tool.name).replace(/[^\p{L}\p{N}]/gu, '');
    if (joined.length < 6) return;
    const list = byJoinedName.get(joined);
    if (list) list.push(position);
    else byJoinedName.set(joined, [position]);
  });
  const joinedNameStarts = new Set<string>();
  for (const joined of byJoinedName.keys()) for (let end = 1; end <= joined.length; end++) joinedNameStarts.add(joined.slice(0, end));
  const index: ToolIndex = { tools: entries, source: tools, postings, nearWords, extensions, byJoinedName, joinedNameStarts, maxCost, maxLatency };
  recent.unshift(index);
  if (recent.length > RECENT_LIMIT) recent.pop();
  return index;
}
