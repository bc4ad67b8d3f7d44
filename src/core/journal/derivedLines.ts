import { redact } from '../policy/redaction.ts';
import type { JournalEvent } from '../schema/journalEvent.ts';
import { canonicalJson } from './canonicalJson.ts';
import { GENESIS_HASH, sealEvent } from './journal.ts';
import type { DerivedFrom } from './redactedJournal.ts';
import { sha256Hex } from './sha256.ts';

// The redacted NDJSON journal, line by line (see `deriveEvent` and `exportJournal`). A derived
// event is sealed over the canonical text of its envelope; its line is that text with the hash
// put in its place, so the event is serialised once. The hash comes after the data in the
// canonical key order (at, data, hash, prev, runId, seq, type), so a large event's line can be
// sent piece by piece while its data is redacted and only the end waits for the hash.

/** The link a derived event needs of the one before it. */
export type DerivedLink = Pick<JournalEvent, 'seq' | 'hash'>;

/** Objects and arrays nested deeper than this are redacted and written in one piece. */
const PIECE_DEPTH = 3;
/** Data with more values than this is written in pieces; smaller data (nearly every event) in one. */
export const PIECES_ABOVE = 4096;

/** Whether `data` holds more than `limit` values (counting stops there). */
function isLarge(data: unknown, limit: number): boolean {
  const stack = [data];
  let count = 0;
  while (stack.length) {
    const value = stack.pop();
    if (++count > limit) return true;
    if (typeof value !== 'object' || value === null) continue;
    if (Array.isArray(value)) for (const item of value) stack.push(item);
    else for (const key in value) stack.push((value as Record<string, unknown>)[key]);
  }
  return false;
}

function isOpenable(value: unknown): value is Record<string, unknown> | unknown[] {
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) return true;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** A key whose value the redaction policy replaces whole (a finite number is otherwise kept as it is). */
function isSecretKey(key: string): boolean {
  return (redact({ [key]: 0 }) as Record<string, unknown>)[key] !== 0;
}

/** `canonicalJson(redact(value))` as pieces: arrays and plain objects down to {@link PIECE_DEPTH} are written member by member. */
function* redactedPieces(value: unknown, depth: number, extra?: [string, unknown]): Generator<string, void, void> {
  if (depth >= PIECE_DEPTH || !isOpenable(value)) {
    const redacted = redact(value);
    yield redacted === undefined ? 'null' : canonicalJson(redacted);
    return;
  }
  if (Array.isArray(value)) {
    yield '[';
    for (let i = 0; i < value.length; i++) {
      if (i) yield ',';
      yield* redactedPieces(value[i], depth + 1);
    }
    yield ']';
    return;
  }
  const keys = Object.keys(value);
  if (extra && !(extra[0] in value)) keys.push(extra[0]);
  keys.sort();
  yield '{';
  let first = true;
  for (const key of keys) {
    const item = value[key];
    if (extra && key === extra[0]) {
      yield `${first ? '' : ','}${JSON.stringify(key)}:${canonicalJson(extra[1])}`;
    } else if (isSecretKey(key) || !isOpenable(item)) {
      const member = canonicalJson(redact({ [key]: item })).slice(1, -1);
      if (!member) continue;
      yield first ? member : `,${member}`;
    } else {
      yield `${first ? '' : ','}${JSON.stringify(key)}:`;
      yield* redactedPieces(item, depth + 1);
    }
    first = false;
  }
  yield '}';
}

/**
 * The NDJSON line of the redacted derivation of `event` after `previous` (`exportJournal` of
 * `deriveEvent`), in pieces: data of more than `piecesAbove` values is written member by member
 * after the envelope's opening, smaller data in one piece with it; the hash and the rest of the
 * envelope end the line. Returns the derived event's link.
 */
export function* derivedEventPieces(
  previous: DerivedLink | undefined,
  event: JournalEvent,
  derivedFrom: DerivedFrom,
  piecesAbove = PIECES_ABOVE,
): Generator<string, DerivedLink, void> {
  const { runId, type, at } = event;
  const seq = previous ? previous.seq + 1 : 0;
  if (!Number.isFinite(at) || !isOpenable(event.data) || Array.isArray(event.data)) {
    const data = redact(event.data) as Record<string, unknown>;
    if (!previous) data['derivedFrom'] = derivedFrom;
    const sealed = sealEvent(previous, runId, type, at, data as never) as JournalEvent;
    yield `${canonicalJson(sealed)}\n`;
    return sealed;
  }
  const prev = previous ? previous.hash : GENESIS_HASH;
  const head = `{"at":${JSON.stringify(at)},"data":`;
  const text = [head];
  if (isLarge(event.data, piecesAbove)) {
    yield head;
    for (const piece of redactedPieces(event.data, 0, previous ? undefined : ['derivedFrom', derivedFrom])) {
      text.push(piece);
      yield piece;
    }
  } else {
    const data = redact(event.data) as Record<string, unknown>;
    if (!previous) data['derivedFrom'] = derivedFrom;
    const written = canonicalJson(data);
    text.push(written);
    yield head + written;
  }
  const tail = `"prev":${JSON.stringify(prev)},"runId":${JSON.stringify(runId)},"seq":${seq},"type":${JSON.stringify(type)}}`;
  text.push(',', tail);
  const hash = sha256Hex(text.join(''));
  yield `,"hash":"${hash}",${tail}\n`;
  return { seq, hash };
}

/** {@link derivedEventPieces} in one string, with the derived event's link. */
export function derivedEventLine(
  previous: DerivedLink | undefined,
  event: JournalEvent,
  derivedFrom: DerivedFrom,
  piecesAbove = PIECES_ABOVE,
): { link: DerivedLink; line: string } {
  const pieces = derivedEventPieces(previous, event, derivedFrom, piecesAbove);
  let line = '';
  for (;;) {
    const step = pieces.next();
    if (step.done) return { link: step.value, line };
    line += step.value;
  }
}
