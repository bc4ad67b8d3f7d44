import { NotFoundError } from '../../errors.ts';
import type { RunInputs } from '../../schema/journalEvent.ts';
import type { ToolRegistry } from '../toolRegistry.ts';
import { toolVersionKey } from './toolVersion.ts';
import type { ToolVersionSource } from './toolVersionSource.ts';

/**
 * Register in a run's own registry the exact tool versions its inputs recorded, so every step
 * resolves `name` to `name@hash` however the profile's active versions have changed since. A
 * name the registry already holds is left as it is (a replay registers its recorded stand-ins
 * first). Throws `NotFoundError('unknown_tool_version')` when a recorded version is not known here.
 */
export function registerPinnedVersions(
  registry: ToolRegistry,
  inputs: Pick<RunInputs, 'profile' | 'toolVersions'>,
  source: ToolVersionSource | undefined,
): void {
  for (const [name, hash] of Object.entries(inputs.toolVersions ?? {})) {
    if (registry.has(inputs.profile, name)) continue;
    const spec = source?.spec(inputs.profile, name, hash);
    if (!spec)
      throw new NotFoundError(`the run uses tool version ${toolVersionKey(name, hash)}, which this host does not have`, {
        code: 'unknown_tool_version',
        details: { profile: inputs.profile, tool: name, hash },
      });
    registry.register(inputs.profile, name, spec);
  }
}
