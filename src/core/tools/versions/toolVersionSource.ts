import type { ToolSpec } from '../tool.ts';

/**
 * Where an orchestrator finds the tools written at run time: which version of each is active in a
 * profile now (recorded in a run's inputs as `toolVersions` when the run starts), and the spec of
 * one exact version (what the run resolves its recorded hash to, on every later step, on resume
 * and on replay). Both answers are synchronous: the source keeps its profiles' versions loaded.
 */
export interface ToolVersionSource {
  /** Tool name → hash of its active version, for every versioned tool of `profile`. */
  active(profile: string): Record<string, string>;
  /** The spec of `name` at version `hash` in `profile`, or `undefined` when there is no such version. */
  spec(profile: string, name: string, hash: string): ToolSpec | undefined;
}
