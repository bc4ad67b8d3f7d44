import * as z from 'zod';
import { redact } from '../policy/redaction.ts';
import type { JournalEvent } from '../schema/journalEvent.ts';
import type { HeadSignature } from './headSignature.ts';
import { JournalHeadSchema, sealEvent, type JournalHead } from './journal.ts';

// A journal's hashes cover its bytes, so a journal with its secrets blanked out cannot keep
// them: redacting a value changes the hash of its event and of every event after it. Rather
// than ship events whose hashes no longer verify, a redacted export is a *derived* journal:
// the same events with their data redacted, re-sealed into a fresh chain that verifies on its
// own, whose first event names the source — run, head and, when the host signed it, the head's
// signature. A verifier checks the derived chain and, with the host's public key, that the
// named source head is one the host attested; it cannot (and does not claim to) prove that the
// redacted values were what the source held — that takes the raw journal.

/** What a derived journal says about its source, in its first event's `derivedFrom`. */
export const DerivedFromSchema = z.object({
  /** How the data was derived: `cugar-redact-1` is {@link redact} over every event's data. */
  redaction: z.literal('cugar-redact-1'),
  runId: z.string().min(1),
  /** The source journal's last event. */
  head: JournalHeadSchema,
  /** The host's signature of the source head, when it had one. */
  signature: z.object({ keyId: z.string(), sig: z.string() }).optional(),
});
export type DerivedFrom = z.infer<typeof DerivedFromSchema>;

/**
 * The journal with every event's data redacted, re-sealed as a derived journal naming its
 * source head (and the host's signature of it, if given). It verifies with `verifyJournal`;
 * `derivedFromOf` reads where it came from.
 */
export function redactJournal(events: readonly JournalEvent[], signature?: HeadSignature): JournalEvent[] {
  const derivedFrom = derivationOf(events, signature);
  if (!derivedFrom) return [];
  const derived: JournalEvent[] = [];
  for (const event of events) derived.push(deriveEvent(derived[derived.length - 1], event, derivedFrom));
  return derived;
}

/** What a derivation of `events` names as its source: their last event, and the host's signature of it if given. */
export function derivationOf(events: readonly JournalEvent[], signature?: HeadSignature): DerivedFrom | undefined {
  const last = events[events.length - 1];
  return last && derivationAt(last.runId, { seq: last.seq, hash: last.hash }, signature);
}

/** What a derivation of run `runId`'s journal up to `head` names as its source (for a journal read page by page, whose last event comes last). */
export function derivationAt(runId: string, head: JournalHead, signature?: HeadSignature): DerivedFrom {
  return {
    redaction: 'cugar-redact-1',
    runId,
    head: { seq: head.seq, hash: head.hash },
    ...(signature ? { signature: { keyId: signature.keyId, sig: signature.sig } } : {}),
  };
}

/** One event of a derived journal: `event` with its data redacted, sealed after `previous` (the first one names the source). */
export function deriveEvent(previous: JournalEvent | undefined, event: JournalEvent, derivedFrom: DerivedFrom): JournalEvent {
  const data = redact(event.data) as Record<string, unknown>;
  if (!previous) data['derivedFrom'] = derivedFrom;
  return sealEvent(previous, event.runId, event.type, event.at, data as never) as JournalEvent;
}

/** Where a derived journal came from, or undefined for a journal recorded as it ran. */
export function derivedFromOf(events: readonly JournalEvent[]): DerivedFrom | undefined {
  const first = events[0];
  if (!first || first.seq !== 0) return undefined;
  const parsed = DerivedFromSchema.safeParse((first.data as Record<string, unknown>)['derivedFrom']);
  return parsed.success ? parsed.data : undefined;
}
