import { diffJournals, formatDifference } from '../journal/journalDiff.ts';
import type { JournalEvent } from '../schema/journalEvent.ts';
import type { ToolRegistry } from '../tools/toolRegistry.ts';
import { replay } from './replay.ts';

/**
 * Replay a recorded (golden) journal against the current code and throw when it diverges, with
 * the first differing event and fields in a form a CI log shows. Model answers and tool results
 * come from the recording, so a changed prompt, tool schema or decision is what fails.
 *
 * @example
 * await assertReplays(parseJournal(readFileSync('golden/agent-run.ndjson', 'utf8')), registry);
 */
export async function assertReplays(journal: readonly JournalEvent[], registry: ToolRegistry): Promise<void> {
  const result = await replay(journal, registry);
  if (result.ok) return;
  const { expected, actual, seq } = result.divergence;
  const difference = diffJournals(expected ? [expected] : [], actual ? [actual] : []) ?? { seq, fields: [] };
  throw new Error(formatDifference({ ...difference, seq }, { a: 'recorded', b: 'replayed' }));
}
