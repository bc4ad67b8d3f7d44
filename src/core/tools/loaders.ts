import { PolicyViolationError } from '../errors.ts';
import { tools as arithmeticTools } from './arithmetic.ts';
import { tools as textTools } from './text.ts';
import type { ToolSpec } from './tool.ts';
import { ToolRegistry } from './toolRegistry.ts';

/** The one namespace dynamic tools may come from. */
export const TOOL_NAMESPACE = 'cugar.tools';

/**
 * The allow-list of dynamically loadable tool modules. Loading goes through this table and
 * nothing else: a module id is looked up, never turned into a path or URL, so relative,
 * absolute and remote specifiers cannot be reached at all.
 */
// Static imports: the built-ins load these modules anyway, and an `import()` of a module that is
// also imported statically makes bundlers wrap it, and all it imports (zod included), in lazy
// initialisers: over 1 KB gzipped of the core entry for no deferred loading.
const LOADERS: Readonly<Record<string, () => Promise<{ tools: Record<string, ToolSpec> }>>> = {
  'cugar.tools.arithmetic': async () => ({ tools: arithmeticTools }),
  'cugar.tools.text': async () => ({ tools: textTools }),
};

const MODULE_ID = /^cugar\.tools\.[a-z][a-z0-9_]*$/;

/** The module ids that can be loaded. */
export function loadableToolModules(): string[] {
  return Object.keys(LOADERS).sort();
}

/**
 * Register every tool of the allow-listed module `moduleId` into `profile`.
 * Anything outside `cugar.tools.*`, or not on the list, is refused with a `PolicyViolationError`.
 * Returns the names registered.
 *
 * @example
 * await loadTools(registry, 'demo', 'cugar.tools.arithmetic'); // ['add', 'calculate', …]
 */
export async function loadTools(registry: ToolRegistry, profile: string, moduleId: string): Promise<string[]> {
  if (typeof moduleId !== 'string' || !MODULE_ID.test(moduleId)) {
    throw new PolicyViolationError(`dynamic tools load only from ${TOOL_NAMESPACE}.*; refused ${JSON.stringify(moduleId)}`, {
      code: 'import_not_allowed',
      details: { moduleId: String(moduleId) },
    });
  }
  const loader = Object.hasOwn(LOADERS, moduleId) ? LOADERS[moduleId] : undefined;
  if (!loader) {
    throw new PolicyViolationError(`no tool module ${moduleId} in ${TOOL_NAMESPACE}; loadable: ${loadableToolModules().join(', ')}`, {
      code: 'import_not_allowed',
      details: { moduleId },
    });
  }
  const { tools } = await loader();
  // Stage into a fresh registry, then merge: merge is all-or-nothing, so a conflict registers nothing.
  const staged = new ToolRegistry();
  const names = Object.keys(tools).sort();
  for (const name of names) staged.register(profile, name, tools[name]!);
  registry.merge(staged);
  return names;
}
