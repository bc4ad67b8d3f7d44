/**
 * Phase 4 of planning: fill a step's inputs from the words of its goal clause, driven by the
 * tool's JSON Schema (see `slots/fill.ts`). This module keeps the small surface the rest of the
 * runtime uses: step references and the one-call `fillSlots`.
 */
import { guessLanguage } from './ranking/stem.ts';
import { tokenize } from './ranking/tokens.ts';
import { fillArguments } from './slots/fill.ts';

export { extractNumbers } from './slots/numbers.ts';

/** A reference to an earlier step's output, resolved by the executor just before the step runs. */
export interface StepReference {
  $ref: string;
}

/** Whether `value` is a {@link StepReference}. */
export function isStepReference(value: unknown): value is StepReference {
  return (
    typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 1 && typeof (value as StepReference).$ref === 'string'
  );
}

/** What slot filling works from. */
export interface SlotContext {
  /** The clause of the goal this step serves. */
  clause: string;
  /** The whole goal. */
  goal: string;
  /** The tool's name (its words are not values). */
  tool: string;
  /** The name of the previous step, for "…the result" references. */
  previousStep?: string;
  /** Reference instant for relative dates. */
  now?: number;
}

/**
 * Fill the top-level fields of `inputSchema` from `context.clause`; a field that cannot be
 * filled is left out, so schema validation reports it by name before any handler runs.
 *
 * @example
 * fillSlots(addSchema, { clause: 'add 10 and 5', goal: 'add 10 and 5', tool: 'add' }); // { a: 10, b: 5 }
 */
export function fillSlots(inputSchema: Record<string, unknown>, context: SlotContext): Record<string, unknown> {
  const toolWords = new Set(tokenize(context.tool.replace(/[_.-]/g, ' ')).map((t) => t.word));
  return fillArguments(inputSchema, {
    clause: context.clause,
    offset: 0,
    language: guessLanguage(context.clause, tokenize(context.clause)),
    toolWords,
    ...(context.previousStep ? { previousStep: context.previousStep } : {}),
    ...(context.now !== undefined ? { now: context.now } : {}),
  }).input;
}
