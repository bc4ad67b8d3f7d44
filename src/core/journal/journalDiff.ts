import { canonicalJson } from './canonicalJson.ts';

/** What the diff reads of an event. */
interface EventView {
  seq: number;
  type: string;
  at: number;
  data: unknown;
  hash?: string;
}

/** One field that differs between two events: its JSON path and both values (canonical JSON, shortened). */
export interface FieldDifference {
  path: string;
  a: string | undefined;
  b: string | undefined;
}

/** The first place two journals part: the seq, both events (absent past a journal's end) and the fields that differ. */
export interface JournalDifference {
  seq: number;
  a?: { type: string; hash?: string };
  b?: { type: string; hash?: string };
  fields: FieldDifference[];
}

const VALUE_LIMIT = 120;
const FIELD_LIMIT = 12;

function shown(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  const text = canonicalJson(value);
  return text.length > VALUE_LIMIT ? `${text.slice(0, VALUE_LIMIT)}…` : text;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** The JSON paths where `a` and `b` differ (leaves only, at most `FIELD_LIMIT`), iteratively. */
function differingFields(a: unknown, b: unknown): FieldDifference[] {
  const out: FieldDifference[] = [];
  const stack: Array<[string, unknown, unknown]> = [['', a, b]];
  while (stack.length && out.length < FIELD_LIMIT) {
    const [path, x, y] = stack.pop()!;
    if (isRecord(x) && isRecord(y) && Array.isArray(x) === Array.isArray(y)) {
      const keys = [...new Set([...Object.keys(x), ...Object.keys(y)])].sort().reverse();
      for (const key of keys) stack.push([Array.isArray(x) ? `${path}[${key}]` : `${path}.${key}`, x[key], y[key]]);
    } else if ((x === undefined) !== (y === undefined) || (x !== undefined && canonicalJson(x) !== canonicalJson(y))) {
      out.push({ path: path || '.', a: shown(x), b: shown(y) });
    }
  }
  return out;
}

/**
 * The first event at which two journals differ (by type, time or data; hashes follow from those
 * and from everything before), or undefined when they are the same event for event.
 *
 * @example
 * const difference = diffJournals(golden, fresh);
 * if (difference) console.error(formatDifference(difference));
 */
export function diffJournals(a: readonly EventView[], b: readonly EventView[]): JournalDifference | undefined {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i];
    const y = b[i];
    if (x && y && x.type === y.type && x.at === y.at && canonicalJson(x.data) === canonicalJson(y.data)) continue;
    const view = (e: EventView | undefined) => (e ? { type: e.type, ...(e.hash ? { hash: e.hash } : {}) } : undefined);
    const fields = x && y ? differingFields({ type: x.type, at: x.at, data: x.data }, { type: y.type, at: y.at, data: y.data }) : [];
    return { seq: x?.seq ?? y?.seq ?? i, ...(x ? { a: view(x) } : {}), ...(y ? { b: view(y) } : {}), fields };
  }
  return undefined;
}

/** A difference as lines a CI log shows: where, which events, and each differing field. */
export function formatDifference(difference: JournalDifference, names: { a: string; b: string } = { a: 'a', b: 'b' }): string {
  const event = (side: { type: string } | undefined) => (side ? side.type : '(journal ended)');
  const lines = [`journals differ at seq ${difference.seq}: ${names.a} has ${event(difference.a)}, ${names.b} has ${event(difference.b)}`];
  for (const field of difference.fields) lines.push(`  ${field.path}: ${names.a}=${field.a ?? '(absent)'} ${names.b}=${field.b ?? '(absent)'}`);
  return lines.join('\n');
}
