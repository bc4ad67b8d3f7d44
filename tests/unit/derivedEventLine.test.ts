import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  deriveEvent,
  derivedEventLine,
  derivedEventPieces,
  exportJournal,
  verifyJournal,
  type DerivedFrom,
  type DerivedLink,
  type JournalEvent,
} from '../../src/core/index.ts';
import { sealEvent } from '../../src/core/testing.ts';

// The redacted NDJSON journal writes each derived line from the text its hash was computed
// over; it must be exactly what deriving the event and exporting it gave.

const keyArbitrary = fc.oneof(fc.constantFrom('password', 'api_key', 'token', 'note', 'Zeta', 'alpha', 'é', '\u{1F600}', 'a b'), fc.string({ maxLength: 6 }));
const leafArbitrary = fc.oneof(
  fc.constantFrom('sk-secretsecretsecret', 'password: hunter2hunter2', 'plain text', '', 'line\nbreak "quoted" \\'),
  fc.string({ maxLength: 12 }),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
);
const { value: valueArbitrary } = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, leafArbitrary, fc.array(tie('value'), { maxLength: 4 }), fc.dictionary(keyArbitrary, tie('value'), { maxKeys: 4 })),
}));

const dictionaryArbitrary = fc.dictionary(keyArbitrary, valueArbitrary, { maxKeys: 5 });
/** Event data, some of it nested below the depth at which lines are written member by member. */
const dataArbitrary = fc.oneof(
  dictionaryArbitrary,
  fc.tuple(dictionaryArbitrary, dictionaryArbitrary).map(([a, b]) => ({ ...a, inputs: { plan: [a, { deeper: [b, a] }], password: b } })),
);

const derivedFrom: DerivedFrom = { runId: 'run-1', head: { seq: 9, hash: 'ab'.repeat(32) } } as DerivedFrom;

function journalOf(datas: ReadonlyArray<Record<string, unknown>>, types: readonly string[]): JournalEvent[] {
  const events: JournalEvent[] = [];
  datas.forEach((data, i) =>
    events.push(sealEvent(events.at(-1), 'run-1', types[i % types.length] as never, 1_700_000_000_000 + i * 37, data as never) as JournalEvent),
  );
  return events;
}

describe('derivedEventLine', () => {
  it('gives the event deriveEvent gives and the line exportJournal writes of it, for any data, in one piece or many', () => {
    fc.assert(
      fc.property(
        fc.array(dataArbitrary, { minLength: 1, maxLength: 6 }),
        fc.array(fc.constantFrom('stage', 'tool_call_start', 'tool_call_complete', 'run_completed'), { minLength: 1, maxLength: 3 }),
        fc.constantFrom(0, 3, 4096),
        (datas, types, piecesAbove) => {
          const journal = journalOf(datas, types);
          const expected: JournalEvent[] = [];
          let lines = '';
          let previous: DerivedLink | undefined;
          for (const event of journal) {
            const sealed = deriveEvent(expected.at(-1), event, derivedFrom);
            expected.push(sealed);
            const derived = derivedEventLine(previous, event, derivedFrom, piecesAbove);
            previous = derived.link;
            lines += derived.line;
            expect(derived.link).toEqual({ seq: sealed.seq, hash: sealed.hash });
          }
          expect(lines).toBe(exportJournal(expected));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('writes a large event in many pieces, the envelope opening first', () => {
    const plan = Array.from({ length: 1500 }, (_, i) => ({ tool: 'add', input: { a: i, b: 1, token: `sk-secret${i}secretsecret` } }));
    const [event] = journalOf([{ stage: 'initialize', inputs: { goal: 'add', plan } }], ['stage']);
    const pieces: string[] = [];
    const steps = derivedEventPieces(undefined, event!, derivedFrom);
    let step = steps.next();
    for (; !step.done; step = steps.next()) pieces.push(step.value);
    const sealed = deriveEvent(undefined, event!, derivedFrom);
    expect(step.value).toEqual({ seq: 0, hash: sealed.hash });
    expect(pieces[0]).toBe(`{"at":${event!.at},"data":`);
    expect(pieces.length).toBeGreaterThan(plan.length);
    expect(Math.max(...pieces.map((piece) => piece.length))).toBeLessThan(200);
    expect(pieces.join('')).toBe(exportJournal([sealed]));
    expect(pieces.join('')).not.toContain('secretsecret');
    // A small event is one piece and its end.
    const [small] = journalOf([{ stage: 'initialize', inputs: { goal: 'add', plan: plan.slice(0, 3) } }], ['stage']);
    expect([...derivedEventPieces(undefined, small!, derivedFrom)]).toHaveLength(2);
  });

  it('seals a chain that verifies and leaves no secret in the line', () => {
    const journal = journalOf(
      [{ stage: 'initialize', inputs: { password: 'hunter2hunter2', plan: [{ tool: 'add' }] } }, { note: 'api_key: k123secretvalue' }],
      ['stage'],
    );
    let previous: DerivedLink | undefined;
    let text = '';
    for (const event of journal) {
      const next = derivedEventLine(previous, event, derivedFrom);
      previous = next.link;
      text += next.line;
    }
    expect(
      verifyJournal(
        text
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line) as unknown),
      ).ok,
    ).toBe(true);
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain('secretvalue');
    expect(text.split('\n')).toHaveLength(3);
  });
});
