/**
 * `cugar/testing`: deterministic ports and journal helpers for tests of code built on CUGAr.
 * The same inputs with these ports give the same journal, hash for hash.
 *
 * @example
 * const orchestrator = new Orchestrator({ registry, clock: steppingClock(1_000, 5), ids: createSequentialIds('t') });
 */
export { ManualClock, createSeededRandom, createSequentialIds, steppingClock } from './ports.ts';
export { hashEvent, isWellFormed, sealEvent } from './journal/journal.ts';
export { applyEvent, initialRunState, projectRun, summarize } from './orchestrator/runState.ts';
export { diffJournals, formatDifference, type FieldDifference, type JournalDifference } from './journal/journalDiff.ts';
export { assertReplays } from './orchestrator/goldenJournal.ts';
