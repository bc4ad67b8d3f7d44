import type { FailureMode } from '../errors.ts';

/** What a stopped run achieved, and how it might still finish. */
export interface PartialResult {
  /** Names (step ids) of the steps that completed, in order. */
  completedSteps: string[];
  /** The output of the last completed step, if any. */
  lastOutput: unknown;
  failureMode: FailureMode;
  /** Whether resuming can finish the run (false for `POLICY` and `USER` failures). */
  recoverable: boolean;
  /** Suggested next moves, most promising first. */
  recoveryStrategies: string[];
}

const STRATEGIES: Readonly<Record<FailureMode, readonly string[]>> = {
  RESOURCE: ['retry_with_backoff', 'resume'],
  SYSTEM: ['resume', 'retry_with_backoff'],
  AGENT: ['replan_without_failed_tool', 'resume'],
  POLICY: ['request_approval', 'raise_budget', 'change_profile_policy'],
  USER: ['fix_input_and_rerun'],
};

/** Whether a failure of this mode can be resumed. */
function isRecoverable(mode: FailureMode): boolean {
  return mode === 'RESOURCE' || mode === 'SYSTEM' || mode === 'AGENT';
}

/** Build a {@link PartialResult} for a run stopped by a failure of `mode`. */
export function partialResult(completedSteps: readonly string[], lastOutput: unknown, mode: FailureMode): PartialResult {
  return {
    completedSteps: [...completedSteps],
    lastOutput,
    failureMode: mode,
    recoverable: isRecoverable(mode),
    recoveryStrategies: [...STRATEGIES[mode]],
  };
}
