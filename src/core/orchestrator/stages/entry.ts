import type { Planner } from '../../planning/planner.ts';
import type { PolicyEnforcer } from '../../policy/policyEnforcer.ts';
import type { Coordinator } from '../../routing/coordinator.ts';
import type { ErrorInfo } from '../../schema/error.ts';
import type { JournalEventData, JournalEventType } from '../../schema/journalEvent.ts';
import type { ToolRegistry } from '../../tools/toolRegistry.ts';
import type { ApprovalPredicate } from '../options.ts';

/**
 * One event a stage decided to append: its type, its data, and optionally the time already
 * read for it (otherwise the session reads the clock once for it, in order, so replays that
 * feed recorded times back reproduce every timestamp).
 */
export type Entry = { [T in JournalEventType]: readonly [type: T, data: JournalEventData<T>, at?: number] }[JournalEventType];

/** Build an {@link Entry}, checking its data against its type. */
export function entry<T extends JournalEventType>(type: T, data: JournalEventData<T>, at?: number): Entry {
  return (at === undefined ? [type, data] : [type, data, at]) as unknown as Entry;
}

/** Why a run stops, as a stage decides it. */
export interface Stop {
  stopReason: string;
  error?: ErrorInfo;
}

/** What the stage decisions read besides the run's state: the orchestrator's shared parts. */
export interface StageContext {
  policy: PolicyEnforcer;
  planner: Planner;
  coordinator: Coordinator;
  /** The run's profile, sandboxed. */
  registry: ToolRegistry;
  requiresApproval?: ApprovalPredicate;
}
