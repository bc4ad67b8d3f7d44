import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deriveEvent, derivedEventLine, exportJournal, verifyJournal, type DerivedFrom, type JournalEvent } from '../../src/core/index.ts';
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

const derivedFrom: DerivedFrom = { runId: 'run-1', head: { seq: 9, hash: 'ab'.repeat(32) } } as DerivedFrom;

function journalOf(datas: ReadonlyArray<Record<string, unknown>>, types: readonly string[]): JournalEvent[] {
  const events: JournalEvent[] = [];
  datas.forEach((data, i) =>
    events.push(sealEvent(events.at(-1), 'run-1', types[i % types.length] as never, 1_700_000_000_000 + i * 37, data as never) as JournalEvent),
  );
  return events;
}

describe('derivedEventLine', () => {
  it('gives the event deriveEvent gives and the line exportJournal writes of it, for any data', () => {
    fc.assert(
      fc.property(
        fc.array(fc.dictionary(keyArbitrary, valueArbitrary, { maxKeys: 5 }), { minLength: 1, maxLength: 6 }),
        fc.array(fc.constantFrom('stage', 'tool_call_start', 'tool_call_complete', 'run_completed'), { minLength: 1, maxLength: 3 }),
        (datas, types) => {
          const journal = journalOf(datas, types);
          const expected: JournalEvent[] = [];
          let lines = '';
          let previous: JournalEvent | undefined;
          for (const event of journal) {
            expected.push(deriveEvent(expected.at(-1), event, derivedFrom));
            const derived = derivedEventLine(previous, event, derivedFrom);
            previous = derived.event;
            lines += derived.line;
            expect(derived.event).toEqual(expected.at(-1));
          }
          expect(lines).toBe(exportJournal(expected));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('seals a chain that verifies and leaves no secret in the line', () => {
    const journal = journalOf(
      [{ stage: 'initialize', inputs: { password: 'hunter2hunter2', plan: [{ tool: 'add' }] } }, { note: 'api_key: k123secretvalue' }],
      ['stage'],
    );
    let previous: JournalEvent | undefined;
    const derived: JournalEvent[] = [];
    let text = '';
    for (const event of journal) {
      const next = derivedEventLine(previous, event, derivedFrom);
      derived.push((previous = next.event));
      text += next.line;
    }
    expect(verifyJournal(derived).ok).toBe(true);
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain('secretvalue');
    expect(text.split('\n')).toHaveLength(3);
  });
});
