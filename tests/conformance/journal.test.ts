import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  GENESIS_HASH,
  ValidationError,
  canonicalJson,
  exportJournal,
  parseJournal,
  sha256Hex,
  verifyJournal,
  type JournalEvent,
} from '../../src/core/index.ts';
import { hashEvent, sealEvent } from '../../src/core/testing.ts';

function makeJournal(length: number, runId = 'run-1'): JournalEvent[] {
  const events: JournalEvent[] = [];
  const health = { score: 1, signals: { latency: 1, repetition: 1, substance: 1 }, action: 'continue' as const };
  for (let i = 0; i < length; i++) {
    const stepId = `step-${Math.floor(i / 2)}`;
    events.push(
      i % 2 === 0
        ? sealEvent(events.at(-1), runId, 'tool_call_start', 1_000 + i, {
            stepId,
            index: i / 2,
            tool: 'echo',
            input: { text: `value ${i} ✓` },
            argsHash: 'a'.repeat(64),
            attempt: 1,
            idempotencyKey: `${runId}:${stepId}`,
            worker: 'local',
            reserved: { cost: 0, calls: 1, tokens: 0 },
          })
        : sealEvent(events.at(-1), runId, 'tool_call_complete', 1_000 + i, {
            stepId,
            attempt: 1,
            argsHash: 'a'.repeat(64),
            output: { n: i, text: `value ${i} ✓` },
            durationMs: 1,
            health,
          }),
    );
  }
  return events;
}

describe('canonical JSON and hashing', () => {
  it('sorts keys at every depth and drops undefined', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: undefined }, e: 'é' })).toBe('{"a":{"d":[3,{"y":2,"z":1}]},"b":1,"e":"é"}');
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = canonicalJson(value);
        return canonicalJson(JSON.parse(text)) === text;
      }),
      { numRuns: 300 },
    );
  });

  it('writes what a sorted-key JSON.stringify writes, nested deep or shallow', () => {
    const sortedKeys = (_key: string, value: unknown) =>
      value !== null && typeof value === 'object' && !Array.isArray(value)
        ? Object.fromEntries(Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
        : value;
    const nest = (value: unknown, depth: number): unknown =>
      depth === 0 ? value : depth % 2 ? [nest(value, depth - 1)] : { k: nest(value, depth - 1), a: depth };
    fc.assert(
      fc.property(fc.jsonValue(), fc.integer({ min: 0, max: 150 }), (value, depth) => {
        const nested = nest(value, depth);
        // Object.fromEntries re-orders integer-like keys, so the reference compares parsed values.
        expect(JSON.parse(canonicalJson(nested))).toEqual(JSON.parse(JSON.stringify(nested, sortedKeys)));
        expect(canonicalJson(nested)).toBe(canonicalJson(JSON.parse(JSON.stringify(nested))));
      }),
      { numRuns: 300 },
    );
    expect(canonicalJson({ b: { '10': 1, '9': 2, z: [1, { y: undefined, x: 'é"\n' }] } })).toBe('{"b":{"10":1,"9":2,"z":[1,{"x":"é\\"\\n"}]}}');
  });

  it('writes every string, number and key exactly as JSON.stringify with sorted keys', () => {
    // The reference: the plain algorithm, with JSON.stringify for every string and number.
    const reference = (value: unknown): string => {
      if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? 'null' : reference(item))).join(',')}]`;
      if (value !== null && typeof value === 'object') {
        const record = value as Record<string, unknown>;
        const keys = Object.keys(record)
          .sort()
          .filter((key) => record[key] !== undefined);
        return `{${keys.map((key) => `${JSON.stringify(key)}:${reference(record[key])}`).join(',')}}`;
      }
      return JSON.stringify(value);
    };
    // Lone surrogates, quotes, backslashes and control characters, in short strings and long ones.
    const text = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 80 }),
      fc.string({ unit: fc.constantFrom('a', '"', '\\', '\n', '\u0000', '\u001f', '\u007f', '\ud800', '\udfff', 'é', '😀'), maxLength: 70 }),
    );
    const number = fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer(), fc.constant(-0), fc.constant(1e21), fc.constant(5e-7));
    const leaf = fc.oneof(text, number, fc.boolean(), fc.constant(null));
    // Objects of up to 20 keys: both the small-object sort and the large-object one.
    const { value } = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: 'small' }, leaf, tie('array'), tie('object')),
      array: fc.array(tie('value'), { maxLength: 4 }),
      object: fc.dictionary(text, tie('value'), { maxKeys: 20 }),
    }));
    fc.assert(
      fc.property(value, (generated) => {
        expect(canonicalJson(generated)).toBe(reference(generated));
      }),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(fc.dictionary(text, leaf, { minKeys: 13, maxKeys: 40 }), (generated) => {
        expect(canonicalJson(generated)).toBe(reference(generated));
      }),
      { numRuns: 100 },
    );
  });

  it('refuses a cycle however deep it starts', () => {
    const deep: Record<string, unknown> = {};
    let inner = deep;
    for (let i = 0; i < 200; i++) inner = (inner['next'] = {}) as Record<string, unknown>;
    inner['back'] = deep;
    expect(() => canonicalJson(deep)).toThrow(ValidationError);
  });

  it('refuses values without a JSON form', () => {
    for (const bad of [Number.NaN, Infinity, 10n, () => 1, Symbol('x'), new Uint8Array(2), new Map()]) {
      expect(() => canonicalJson({ x: bad })).toThrow(ValidationError);
    }
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    expect(() => canonicalJson(cyclic)).toThrow(ValidationError);
  });

  it('hashes with SHA-256 as the contract says', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    const [first] = makeJournal(1);
    expect(first!.prev).toBe(GENESIS_HASH);
    expect(first!.hash).toBe(sha256Hex(canonicalJson({ at: first!.at, data: first!.data, prev: first!.prev, runId: first!.runId, seq: 0, type: first!.type })));
    expect(hashEvent(first!)).toBe(first!.hash);
    fc.assert(
      fc.property(
        fc.string(),
        fc.nat(),
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        fc.string(),
        fc.jsonValue(),
        fc.string(),
        (runId, seq, at, type, data, prev) => {
          const event = { runId, seq, type, at, data, prev } as unknown as Omit<JournalEvent, 'hash'>;
          expect(hashEvent(event)).toBe(sha256Hex(canonicalJson({ at, data, prev, runId, seq, type })));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('seals the same event when asked for its data as text, and gives the text its hash covers', () => {
    fc.assert(
      fc.property(fc.string(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.jsonValue(), fc.boolean(), (runId, at, data, first) => {
        const previous = first ? undefined : { seq: 4, hash: 'b'.repeat(64) };
        const texts: string[] = ['earlier'];
        const sealed = sealEvent(previous, runId, 'stage', at, data as never, texts);
        expect(sealed).toEqual(sealEvent(previous, runId, 'stage', at, data as never));
        expect(texts).toEqual(['earlier', canonicalJson(data)]);
        expect(hashEvent(sealed)).toBe(sealed.hash);
      }),
      { numRuns: 300 },
    );
  });
});

describe('verifyJournal', () => {
  it('accepts an intact journal and reports its head', () => {
    const journal = makeJournal(20);
    expect(verifyJournal(journal)).toEqual({ ok: true, head: { seq: 19, hash: journal[19]!.hash }, count: 20 });
    expect(verifyJournal([])).toEqual({ ok: true, head: undefined, count: 0 });
  });

  it('round-trips through NDJSON and JSON arrays', () => {
    const journal = makeJournal(5);
    expect(parseJournal(exportJournal(journal))).toEqual(journal);
    expect(parseJournal(JSON.stringify(journal))).toEqual(journal);
    expect(() => parseJournal('{"not":"an event"}')).toThrow(ValidationError);
    expect(() => parseJournal('{broken')).toThrow(ValidationError);
  });

  it('detects 100% of random byte flips, deletions, reorderings and truncations (10,000 cases)', () => {
    const journal = makeJournal(12);
    const head = { seq: 11, hash: journal[11]!.hash };
    const text = exportJournal(journal);
    const bytes = new TextEncoder().encode(text);
    const decoder = new TextDecoder();
    let detected = 0;
    let cases = 0;
    const check = (candidate: () => unknown[]) => {
      cases++;
      let events: unknown[];
      try {
        events = candidate();
      } catch {
        detected++; // Unparseable is detected.
        return;
      }
      if (!verifyJournal(events, head).ok) detected++;
    };
    fc.assert(
      fc.property(
        fc.oneof(
          // Every byte of every event (the final newline only frames the last line).
          fc.record({ kind: fc.constant('flip' as const), at: fc.nat(bytes.length - 2), bit: fc.integer({ min: 0, max: 7 }) }),
          fc.record({ kind: fc.constant('delete' as const), at: fc.nat(journal.length - 1) }),
          fc.record({ kind: fc.constant('swap' as const), a: fc.nat(journal.length - 1), b: fc.nat(journal.length - 1) }).filter((r) => r.a !== r.b),
          fc.record({ kind: fc.constant('truncate' as const), keep: fc.nat(journal.length - 1) }),
        ),
        (mutation) => {
          switch (mutation.kind) {
            case 'flip': {
              const copy = bytes.slice();
              copy[mutation.at]! ^= 1 << mutation.bit;
              check(() => parseJournalLoose(decoder.decode(copy)));
              break;
            }
            case 'delete':
              check(() => journal.filter((_, i) => i !== mutation.at));
              break;
            case 'swap':
              check(() => {
                const copy = [...journal];
                [copy[mutation.a], copy[mutation.b]] = [copy[mutation.b]!, copy[mutation.a]!];
                return copy;
              });
              break;
            case 'truncate':
              check(() => journal.slice(0, mutation.keep));
              break;
          }
        },
      ),
      { numRuns: 10_000 },
    );
    expect(cases).toBe(10_000);
    expect(detected).toBe(cases);
  });

  it('names the first bad seq', () => {
    const journal = makeJournal(6);
    const edited = journal.map((e) => ({ ...e, data: { ...e.data } }));
    (edited[3]!.data as Record<string, unknown>)['output'] = 'changed';
    expect(verifyJournal(edited)).toMatchObject({ ok: false, seq: 3, reason: 'hash does not match the event' });
    expect(verifyJournal(journal.slice(0, 4), { seq: 5, hash: journal[5]!.hash })).toMatchObject({ ok: false, seq: 4 });
    expect(verifyJournal([journal[0], journal[2]])).toMatchObject({ ok: false, seq: 1 });
    const otherRun = makeJournal(3, 'run-2');
    expect(verifyJournal([journal[0], otherRun[1]])).toMatchObject({ ok: false, seq: 1 });
  });
});

/** NDJSON parsing without shape checks, so a flip that still parses reaches verifyJournal. */
function parseJournalLoose(text: string): unknown[] {
  return text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as unknown);
}
