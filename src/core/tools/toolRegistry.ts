import * as z from 'zod';
import { ConflictError, NotFoundError, ValidationError } from '../errors.ts';
import { ProfileNameSchema, ToolNameSchema } from '../schema/common.ts';
import { parseOrThrow } from '../schema/validate.ts';
import { ToolMetaSchema, type ToolDefinition, type ToolInfo, type ToolSpec } from './tool.ts';

function sameDefinition(a: ToolDefinition, b: ToolDefinition): boolean {
  return (
    a.handler === b.handler &&
    a.parameters === b.parameters &&
    a.description === b.description &&
    a.cost === b.cost &&
    a.latency === b.latency &&
    a.allowNetwork === b.allowNetwork &&
    a.idempotent === b.idempotent &&
    a.requiresApproval === b.requiresApproval &&
    a.tokens === b.tokens &&
    a.mcpServer === b.mcpServer &&
    a.secrets.join('\u0000') === b.secrets.join('\u0000') &&
    a.capabilities.join('\u0000') === b.capabilities.join('\u0000') &&
    (a.aliases ?? []).join('\u0000') === (b.aliases ?? []).join('\u0000') &&
    (a.examples ?? []).join('\u0000') === (b.examples ?? []).join('\u0000')
  );
}

/**
 * Tools by profile. Profiles never see each other's tools: `resolve` and `list` take the
 * profile, and `sandbox(profile)` hands out an isolated copy holding only that profile.
 * Registering a different tool under a taken name (or merging one in) throws a
 * `ConflictError` and changes nothing; registering the identical tool again is a no-op.
 *
 * @example
 * const registry = new ToolRegistry();
 * registry.register('demo', 'add', {
 *   description: 'Add two numbers',
 *   parameters: z.object({ a: z.number(), b: z.number() }),
 *   handler: ({ a, b }) => a + b,
 * });
 * registry.resolve('demo', 'add').handler({ a: 1, b: 2 }, context); // 3
 */
export class ToolRegistry {
  #profiles = new Map<string, Map<string, ToolDefinition>>();
  /** Each profile's tools sorted by name, kept until the profile's tools change (the planner asks on every plan). */
  #sorted = new Map<Map<string, ToolDefinition>, { size: number; tools: readonly ToolDefinition[] }>();

  /** Register `name` in `profile`. Throws `ValidationError` for a bad spec, `ConflictError` for a taken name. */
  register<S extends z.ZodType>(profile: string, name: string, spec: ToolSpec<S>): ToolDefinition {
    const definition = ToolRegistry.define(profile, name, spec);
    const existing = this.#profiles.get(definition.profile)?.get(definition.name);
    if (existing) {
      if (sameDefinition(existing, definition)) return existing;
      throw new ConflictError(`tool "${definition.name}" is already registered in profile "${definition.profile}"`, {
        code: 'duplicate_tool',
        details: { profile: definition.profile, tool: definition.name },
      });
    }
    this.#tools(definition.profile, true).set(definition.name, definition);
    return definition;
  }

  /** Validate a spec into a frozen {@link ToolDefinition} without registering it. */
  static define<S extends z.ZodType>(profile: string, name: string, spec: ToolSpec<S>): ToolDefinition {
    const validProfile = parseOrThrow(ProfileNameSchema, profile, 'profile name', 'invalid_profile');
    const validName = parseOrThrow(ToolNameSchema, name, 'tool name', 'invalid_tool_name');
    if (spec === null || typeof spec !== 'object') throw new ValidationError(`tool "${validName}": spec must be an object`, { code: 'invalid_tool_spec' });
    if (typeof spec.handler !== 'function') throw new ValidationError(`tool "${validName}": handler must be a function`, { code: 'invalid_tool_spec' });
    if (!(spec.parameters instanceof z.ZodType))
      throw new ValidationError(`tool "${validName}": parameters must be a zod schema`, { code: 'invalid_tool_spec' });
    const meta = parseOrThrow(
      ToolMetaSchema,
      {
        description: spec.description,
        cost: spec.cost,
        latency: spec.latency,
        capabilities: spec.capabilities,
        allowNetwork: spec.allowNetwork,
        idempotent: spec.idempotent,
        requiresApproval: spec.requiresApproval,
        tokens: spec.tokens,
        secrets: spec.secrets,
        mcpServer: spec.mcpServer,
        aliases: spec.aliases,
        examples: spec.examples,
      },
      `tool "${validName}"`,
      'invalid_tool_spec',
    );
    let inputSchema: Record<string, unknown>;
    try {
      inputSchema = z.toJSONSchema(spec.parameters, { unrepresentable: 'any' }) as Record<string, unknown>;
    } catch (cause) {
      throw new ValidationError(`tool "${validName}": parameters cannot be described as JSON Schema`, { code: 'invalid_tool_spec', cause });
    }
    return Object.freeze({
      ...meta,
      capabilities: Object.freeze([...meta.capabilities]) as string[],
      secrets: Object.freeze([...meta.secrets]) as string[],
      ...(meta.aliases ? { aliases: Object.freeze([...meta.aliases]) as string[] } : {}),
      ...(meta.examples ? { examples: Object.freeze([...meta.examples]) as string[] } : {}),
      profile: validProfile,
      name: validName,
      parameters: spec.parameters,
      handler: spec.handler,
      ...(typeof spec.verify === 'function' ? { verify: spec.verify } : {}),
      inputSchema: Object.freeze(inputSchema),
    });
  }

  /** The tool `name` of `profile`. Throws `NotFoundError` (`unknown_profile` / `unknown_tool`). */
  resolve(profile: string, name: string): ToolDefinition {
    const tool = this.#requireProfile(profile).get(name);
    if (!tool) {
      throw new NotFoundError(`profile "${profile}" has no tool "${name}"`, { code: 'unknown_tool', details: { profile, tool: name } });
    }
    return tool;
  }

  /** Whether `profile` has a tool `name`. */
  has(profile: string, name: string): boolean {
    return this.#profiles.get(profile)?.has(name) ?? false;
  }

  /** Profiles with at least one tool, sorted. */
  profiles(): string[] {
    return [...this.#profiles.keys()].sort();
  }

  /** Whether the registry knows `profile`. */
  hasProfile(profile: string): boolean {
    return this.#profiles.has(profile);
  }

  /** The tools of `profile`, sorted by name. Throws `NotFoundError` for an unknown profile. */
  definitions(profile: string): ToolDefinition[] {
    return [...this.sortedDefinitions(profile)];
  }

  /**
   * The same list, shared and frozen: the same array while the profile's tools are unchanged, so
   * a caller that plans often (the planner) can keep what it derived from it.
   */
  sortedDefinitions(profile: string): readonly ToolDefinition[] {
    const tools = this.#requireProfile(profile);
    let sorted = this.#sorted.get(tools);
    // Tools are only ever added (a name is never replaced), so the count tells whether the sorted list is current.
    if (!sorted || sorted.size !== tools.size) {
      sorted = { size: tools.size, tools: Object.freeze([...tools.values()].sort((a, b) => (a.name < b.name ? -1 : 1))) };
      this.#sorted.set(tools, sorted);
    }
    return sorted.tools;
  }

  /** The tools of `profile` as callers see them, each with its JSON Schema. */
  list(profile: string): ToolInfo[] {
    return this.definitions(profile).map((tool) => ({
      profile: tool.profile,
      name: tool.name,
      description: tool.description,
      cost: tool.cost,
      latency: tool.latency,
      capabilities: [...tool.capabilities],
      allowNetwork: tool.allowNetwork,
      idempotent: tool.idempotent,
      requiresApproval: tool.requiresApproval,
      tokens: tool.tokens,
      secrets: [...tool.secrets],
      ...(tool.mcpServer === undefined ? {} : { mcpServer: tool.mcpServer }),
      ...(tool.aliases ? { aliases: [...tool.aliases] } : {}),
      ...(tool.examples ? { examples: [...tool.examples] } : {}),
      inputSchema: structuredClone(tool.inputSchema) as Record<string, unknown>,
    }));
  }

  /** An isolated copy holding only `profile`: changes to either never reach the other. */
  sandbox(profile: string): ToolRegistry {
    const tools = this.#requireProfile(profile);
    const copy = new ToolRegistry();
    copy.#profiles.set(profile, new Map(tools));
    return copy;
  }

  /** Add every tool of `other`. All-or-nothing: one conflict throws before anything changes. */
  merge(other: ToolRegistry): void {
    for (const [profile, tools] of other.#profiles) {
      for (const [name, tool] of tools) {
        const existing = this.#profiles.get(profile)?.get(name);
        if (existing && !sameDefinition(existing, tool)) {
          throw new ConflictError(`merge conflict: tool "${name}" differs in profile "${profile}"`, {
            code: 'duplicate_tool',
            details: { profile, tool: name },
          });
        }
      }
    }
    for (const [profile, tools] of other.#profiles) {
      const target = this.#tools(profile, true);
      for (const [name, tool] of tools) target.set(name, tool);
    }
  }

  #tools(profile: string, create: true): Map<string, ToolDefinition>;
  #tools(profile: string, create: false): Map<string, ToolDefinition> | undefined;
  #tools(profile: string, create: boolean): Map<string, ToolDefinition> | undefined {
    let tools = this.#profiles.get(profile);
    if (!tools && create) this.#profiles.set(profile, (tools = new Map()));
    return tools;
  }

  #requireProfile(profile: string): Map<string, ToolDefinition> {
    const tools = this.#profiles.get(profile);
    if (!tools) throw new NotFoundError(`unknown profile "${profile}"`, { code: 'unknown_profile', details: { profile } });
    return tools;
  }
}
