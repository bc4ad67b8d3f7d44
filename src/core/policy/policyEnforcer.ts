import * as z from 'zod';
import { PolicyViolationError, ValidationError } from '../errors.ts';
import { MetadataSchema, ProfileNameSchema, type Metadata } from '../schema/common.ts';
import { parseOrThrow } from '../schema/validate.ts';
import type { ToolDefinition } from '../tools/tool.ts';

/** What a profile is allowed to do. */
export const ProfilePolicySchema = z.object({
  /** Whether tools that declare `allowNetwork` may run. Default `false`. */
  allowNetwork: z.boolean().default(false),
  /** When set, only these tools may run. */
  allowedTools: z.array(z.string()).optional(),
  /** Tools that may never run. */
  deniedTools: z.array(z.string()).default([]),
  /** Largest step input, in bytes of JSON. Default 1 MiB. */
  maxInputBytes: z
    .number()
    .int()
    .min(1)
    .max(64 * 1024 * 1024)
    .default(1024 * 1024),
});
export type ProfilePolicy = z.output<typeof ProfilePolicySchema>;
export type ProfilePolicyInput = z.input<typeof ProfilePolicySchema>;

/** Largest metadata object, in bytes of JSON. */
export const MAX_METADATA_BYTES = 64 * 1024;

/**
 * The guardrails checked before any handler runs: request metadata must be plain JSON of
 * bounded size; a step's tool must be allowed for the profile (allow/deny lists, network);
 * and its inputs must satisfy the tool's zod schema.
 */
export class PolicyEnforcer {
  readonly #policies = new Map<string, ProfilePolicy>();
  readonly #defaults: ProfilePolicy;

  constructor(policies: Record<string, ProfilePolicyInput> = {}, defaults: ProfilePolicyInput = {}) {
    this.#defaults = parseOrThrow(ProfilePolicySchema, defaults, 'default profile policy');
    for (const [profile, policy] of Object.entries(policies)) {
      parseOrThrow(ProfileNameSchema, profile, 'profile name', 'invalid_profile');
      this.#policies.set(profile, parseOrThrow(ProfilePolicySchema, policy, `policy of profile "${profile}"`));
    }
  }

  /** The effective policy of `profile`. */
  policyFor(profile: string): ProfilePolicy {
    return this.#policies.get(profile) ?? this.#defaults;
  }

  /** Validate request metadata: a JSON object of at most {@link MAX_METADATA_BYTES}. */
  checkMetadata(metadata: unknown): Metadata {
    const parsed = parseOrThrow(MetadataSchema, metadata ?? {}, 'metadata', 'invalid_metadata');
    if (JSON.stringify(parsed).length > MAX_METADATA_BYTES) {
      throw new ValidationError(`metadata is larger than ${MAX_METADATA_BYTES} bytes`, { code: 'invalid_metadata' });
    }
    return parsed;
  }

  /** Whether `profile` may run `tool` at all; throws `PolicyViolationError` when not. */
  checkTool(profile: string, tool: ToolDefinition): void {
    const policy = this.policyFor(profile);
    if (policy.deniedTools.includes(tool.name) || (policy.allowedTools && !policy.allowedTools.includes(tool.name))) {
      throw new PolicyViolationError(`tool "${tool.name}" is not allowed in profile "${profile}"`, {
        code: 'tool_not_allowed',
        details: { profile, tool: tool.name },
      });
    }
    if (tool.allowNetwork && !policy.allowNetwork) {
      throw new PolicyViolationError(`tool "${tool.name}" needs the network, which profile "${profile}" does not allow`, {
        code: 'network_not_allowed',
        details: { profile, tool: tool.name },
      });
    }
  }

  /** Check `tool` for `profile` and validate `input` against its schema; returns the parsed input. */
  checkStep(profile: string, tool: ToolDefinition, input: unknown): unknown {
    this.checkTool(profile, tool);
    let size: number;
    try {
      size = JSON.stringify(input ?? {}).length;
    } catch (cause) {
      throw new ValidationError(`input of "${tool.name}" is not JSON-serialisable`, { code: 'invalid_input', cause });
    }
    if (size > this.policyFor(profile).maxInputBytes) {
      throw new ValidationError(`input of "${tool.name}" is larger than ${this.policyFor(profile).maxInputBytes} bytes`, { code: 'invalid_input' });
    }
    return parseOrThrow(tool.parameters, input, `input of tool "${tool.name}"`, 'invalid_input');
  }
}
