/**
 * Phase 0 of planning: tool calls written out in the goal, found without any model.
 * Two forms are recognised, for tools the profile actually has:
 *
 * - call syntax: `add(a=10, b=5)`, `add(a: 10, b: 5)`, `add(10, 5)`, `calculate((2+3)*4)`;
 * - a JSON object: `{"tool": "add", "input": {"a": 1, "b": 2}}` (also `name`/`arguments`/`args`,
 *   with `arguments` possibly a JSON string, as function-calling models write it).
 */

/** A call found in the goal, in the order it appears. */
export interface DetectedCall {
  tool: string;
  input: Record<string, unknown>;
  /** Character offsets of the call in the goal. */
  start: number;
  end: number;
}

/** The tools that may be called and their parameter names in declaration order (for positional arguments). */
export type CallableTools = ReadonlyMap<string, readonly string[]>;

const CALL_START = /\b([a-z][a-z0-9_]*)\s*\(/g;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Index just past the bracket that closes the one at `open`, honouring quotes; -1 when unbalanced. */
function matchClosing(text: string, open: number, openChar: string, closeChar: string): number {
  let depth = 0;
  let quote = '';
  for (let i = open; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = '';
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === openChar) depth++;
    else if (c === closeChar && --depth === 0) return i + 1;
  }
  return -1;
}

/** Split on top-level commas (outside quotes and brackets). */
function splitArguments(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote = '';
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = '';
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') depth--;
    else if (c === ',' && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts.map((p) => p.trim()).filter((p) => p.length > 0);
}

/** A literal as written: JSON, a single-quoted string, or the bare text. */
function parseLiteral(raw: string): unknown {
  const text = raw.trim();
  if (/^'(?:[^'\\]|\\.)*'$/.test(text)) return text.slice(1, -1).replace(/\\(.)/g, '$1');
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const NAMED_ARGUMENT = /^([A-Za-z_][A-Za-z0-9_]*)\s*[=:](?![=:])\s*([\s\S]*)$/;

function parseCallArguments(body: string, parameters: readonly string[]): Record<string, unknown> | undefined {
  const parts = splitArguments(body);
  // `tool({"a": 1})` or `tool({})`: a single JSON object is the whole input.
  if (parts.length === 1 && parts[0]!.startsWith('{')) {
    const value = parseLiteral(parts[0]!);
    if (
      typeof value === 'object' &&
      value !== null &&
      !Array.isArray(value) &&
      !(parameters.length === 1 && parameters[0] !== undefined && Object.keys(value).length > 0 && !Object.hasOwn(value, parameters[0]))
    ) {
      return value as Record<string, unknown>;
    }
  }
  const named = parts.map((part) => NAMED_ARGUMENT.exec(part));
  // A one-parameter tool called positionally keeps its argument whole, commas and all.
  if (parameters.length === 1 && parts.length > 0 && named.every((m) => m === null))
    return { [parameters[0]!]: parseLiteral(parts.length === 1 ? parts[0]! : body) };
  const input: Record<string, unknown> = {};
  let positional = 0;
  for (let i = 0; i < parts.length; i++) {
    const match = named[i];
    if (match) {
      input[match[1]!] = parseLiteral(match[2]!);
      continue;
    }
    const name = parameters[positional++];
    if (name === undefined) return undefined;
    input[name] = parseLiteral(parts[i]!);
  }
  return input;
}

function fromJsonObject(value: unknown, tools: CallableTools): { tool: string; input: Record<string, unknown> } | undefined {
  if (!isPlainObject(value)) return undefined;
  const tool = typeof value['tool'] === 'string' ? value['tool'] : typeof value['name'] === 'string' ? value['name'] : undefined;
  if (tool === undefined || !tools.has(tool)) return undefined;
  let input: unknown = value['input'] ?? value['arguments'] ?? value['args'] ?? {};
  if (typeof input === 'string') {
    try {
      input = JSON.parse(input);
    } catch {
      return undefined;
    }
  }
  return isPlainObject(input) ? { tool, input } : undefined;
}

/**
 * Find explicit tool calls in `goal`. Names not in `tools` are ignored, so ordinary prose
 * with parentheses ("the total (roughly)") is not mistaken for a call.
 */
export function detectToolCalls(goal: string, tools: CallableTools): DetectedCall[] {
  const calls: DetectedCall[] = [];
  const taken: Array<[number, number]> = [];
  const overlaps = (start: number, end: number): boolean => taken.some(([s, e]) => start < e && end > s);

  for (let i = goal.indexOf('{'); i >= 0; i = goal.indexOf('{', i + 1)) {
    if (overlaps(i, i + 1)) continue;
    const end = matchClosing(goal, i, '{', '}');
    if (end < 0) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(goal.slice(i, end));
    } catch {
      continue;
    }
    const call = fromJsonObject(parsed, tools);
    if (call) {
      calls.push({ ...call, start: i, end });
      taken.push([i, end]);
    }
  }

  CALL_START.lastIndex = 0;
  for (let match = CALL_START.exec(goal); match; match = CALL_START.exec(goal)) {
    const name = match[1]!;
    const parameters = tools.get(name);
    const open = match.index + match[0].length - 1;
    if (!parameters || overlaps(match.index, open + 1)) continue;
    const end = matchClosing(goal, open, '(', ')');
    if (end < 0) continue;
    // `calculate (2+3)*4` is an expression that starts with a group, not a call.
    if (/^\s*(?:[-+*/%^×÷]|\*\*)/.test(goal.slice(end))) continue;
    const input = parseCallArguments(goal.slice(open + 1, end - 1), parameters);
    if (!input) continue;
    calls.push({ tool: name, input, start: match.index, end });
    taken.push([match.index, end]);
    CALL_START.lastIndex = end;
  }

  return calls.sort((a, b) => a.start - b.start);
}
