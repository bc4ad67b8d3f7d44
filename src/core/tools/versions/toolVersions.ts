import * as z from 'zod';
import { ConflictError, NotFoundError, ValidationError } from '../../errors.ts';
import { toJsonData } from '../../journal/canonicalJson.ts';
import type { MemoryManager } from '../../memory/memoryManager.ts';
import type { Clock } from '../../ports.ts';
import { auditRefusal, auditToolSource, type AuditLimits } from '../../sandbox/patchAuditor.ts';
import type { Sandbox, SandboxedTool, SandboxLimits } from '../../sandbox/sandbox.ts';
import type { JsonValue } from '../../schema/common.ts';
import { ProfileNameSchema, ToolNameSchema } from '../../schema/common.ts';
import { parseOrThrow } from '../../schema/validate.ts';
import type { CodeParserSource } from '../codeAnalyzer/parseSource.ts';
import type { ToolSpec } from '../tool.ts';
import type { ToolRegistry } from '../toolRegistry.ts';
import { registerPinnedVersions } from './pinnedVersions.ts';
import {
  StoredToolVersionSchema,
  ToolVersionHashSchema,
  ToolVersionProposalSchema,
  toolVersionHash,
  toolVersionKey,
  type StoredToolVersion,
  type ToolVersion,
  type ToolVersionProposalInput,
} from './toolVersion.ts';
import type { ToolVersionSource } from './toolVersionSource.ts';

/** Facts namespace of the versions themselves (key `<name>@<hash>`). */
export const TOOL_VERSIONS_NAMESPACE = 'tool_versions';
/** Facts namespace of the active version per tool (key `<name>`). */
export const TOOL_ACTIVE_NAMESPACE = 'tool_versions.active';
/** Facts namespace of the trail: `tool_proposed`, `tool_registered` (approved) and `tool_activated`. */
export const TOOL_EVENTS_NAMESPACE = 'tool_versions.events';

const ActiveSchema = z.object({ hash: ToolVersionHashSchema, by: z.string(), at: z.number() });
type Active = z.output<typeof ActiveSchema>;

/** Options of {@link ToolVersions}. */
export interface ToolVersionsOptions {
  /** Where versions, active pointers and the trail are kept (the host's facts store). */
  memory: MemoryManager;
  /** The host's shipped tools: a proposal may not take one of their names, and only their profiles take proposals. */
  registry: ToolRegistry;
  /** Runs each version's code, isolated; a host that refuses dynamic code refuses every proposal. */
  sandbox: Sandbox;
  /** The JavaScript parser the patch auditor reads sources with. */
  parser: CodeParserSource;
  clock: Clock;
  /** Limits of each loaded version's worker. */
  limits?: SandboxLimits;
  audit?: AuditLimits;
}

interface ProfileVersions {
  versions: Map<string, StoredToolVersion>;
  active: Map<string, Active>;
}

/**
 * Tools written at run time, by profile. A proposal (source, JSON Schema of its inputs,
 * description, metadata) is audited by the patch auditor (a refusal is
 * `SandboxError('audit_failed')` listing every finding) and compiled in the sandbox, then waits
 * for a person's approval; approving registers the version under its content hash and makes it
 * the active one. Activating an earlier approved version rolls back: it is audited again (the
 * auditor may have grown stricter since) but needs no second approval, since the same content
 * was approved before. Runs record the active hashes when they start and resolve those exact
 * versions on every step, on resume and on replay ({@link ToolVersionSource}).
 */
export class ToolVersions implements ToolVersionSource {
  readonly #options: ToolVersionsOptions;
  readonly #profiles = new Map<string, ProfileVersions>();
  readonly #specs = new Map<string, ToolSpec>();
  readonly #loaded = new Map<string, Promise<SandboxedTool>>();
  #queue: Promise<unknown> = Promise.resolve();

  readonly #listeners = new Set<(profile: string) => void>();

  constructor(options: ToolVersionsOptions) {
    this.#options = options;
  }

  /** Where the versions' code runs (`node`, `browser`, or a host that refuses). */
  get host(): string {
    return this.#options.sandbox.host;
  }

  /** Read the stored versions of `profiles` (at host start), so runs and resumes find them. */
  async load(profiles: readonly string[]): Promise<void> {
    for (const profile of profiles) await this.#profile(profile);
  }

  /**
   * Propose `name` (a new tool, or a new version of one) in `profile` as `by`. Resolves to the
   * version, `proposed` (or as it already was, when the same content was proposed before).
   * Rejects with `SandboxError` (`audit_failed` with every finding, `unsupported_host`, `syntax`),
   * `ValidationError` (bad proposal) or `ConflictError` (a shipped tool's name); nothing is stored then.
   */
  propose(profile: string, name: string, input: ToolVersionProposalInput, by: string): Promise<ToolVersion> {
    return this.#serial(async () => {
      const { versions } = await this.#writable(profile, name);
      const proposal = parseOrThrow(ToolVersionProposalSchema, input, 'tool version proposal', 'invalid_tool_version');
      this.#parameters(proposal.inputSchema);
      const hash = toolVersionHash(proposal);
      const existing = versions.get(toolVersionKey(name, hash));
      if (existing) return this.#listed(profile, existing);
      const report = await auditToolSource(proposal.source, this.#options.parser, this.#options.audit);
      if (!report.ok) throw auditRefusal(report);
      // The sandbox audits again and compiles the code in its realm; a host without one refuses here.
      const tool = await this.#options.sandbox.load(proposal.source, this.#loadOptions());
      await tool.close();
      const stored: StoredToolVersion = {
        ...proposal,
        name,
        hash,
        warnings: report.warnings,
        score: report.score,
        proposedBy: by,
        proposedAt: this.#options.clock.now(),
      };
      await this.#keep(profile, stored);
      await this.#trail(profile, 'tool_proposed', name, hash, by);
      return this.#listed(profile, stored);
    });
  }

  /** Approve a proposed version as `by`: it is registered under its hash and becomes active. */
  approve(profile: string, name: string, hash: string, by: string): Promise<ToolVersion> {
    return this.#serial(async () => {
      const version = await this.#version(profile, name, hash);
      if (version.approvedBy !== undefined) throw new ConflictError(`${toolVersionKey(name, hash)} is already approved`, { code: 'already_approved' });
      const approved: StoredToolVersion = { ...version, approvedBy: by, approvedAt: this.#options.clock.now() };
      await this.#keep(profile, approved);
      await this.#trail(profile, 'tool_registered', name, hash, by);
      await this.#activate(profile, name, hash, by);
      return this.#listed(profile, approved);
    });
  }

  /** Make an approved version the active one (a rollback when it is an earlier one). Re-audited first. */
  activate(profile: string, name: string, hash: string, by: string): Promise<ToolVersion> {
    return this.#serial(async () => {
      const version = await this.#version(profile, name, hash);
      if (version.approvedBy === undefined)
        throw new ConflictError(`${toolVersionKey(name, hash)} has not been approved; approve it first`, { code: 'approval_required' });
      const report = await auditToolSource(version.source, this.#options.parser, this.#options.audit);
      if (!report.ok) throw auditRefusal(report);
      await this.#activate(profile, name, hash, by);
      return this.#listed(profile, version);
    });
  }

  /** Every version of `name` in `profile`, newest proposal first. */
  async history(profile: string, name: string): Promise<ToolVersion[]> {
    const { versions } = await this.#profile(profile);
    return [...versions.values()]
      .filter((version) => version.name === name)
      .sort((a, b) => b.proposedAt - a.proposedAt || (a.hash < b.hash ? -1 : 1))
      .map((version) => this.#listed(profile, version));
  }

  /** The trail of `profile`'s versions (`tool_proposed`, `tool_registered`, `tool_activated`), newest first. */
  async trail(profile: string, name?: string): Promise<Array<{ type: string; name: string; hash: string; by: string; at: number }>> {
    if (!(await this.#options.memory.namespaces(profile)).includes(TOOL_EVENTS_NAMESPACE)) return [];
    const facts = await this.#options.memory.query(profile, TOOL_EVENTS_NAMESPACE, { limit: 100_000 });
    const Event = z.object({ type: z.string(), name: z.string(), hash: z.string(), by: z.string() });
    return facts.flatMap((fact) => {
      const parsed = Event.safeParse(fact.value);
      return parsed.success && (name === undefined || parsed.data.name === name) ? [{ ...parsed.data, at: fact.at }] : [];
    });
  }

  /**
   * The tools a new run of `profile` would have: a copy of the host's shipped tools of the profile
   * plus the active version of each tool written at run time (for listings and dry-run plans).
   * Throws `NotFoundError` for a profile the host does not know.
   */
  registryOf(profile: string): ToolRegistry {
    const registry = this.#options.registry.sandbox(profile);
    registerPinnedVersions(registry, { profile, toolVersions: this.active(profile) }, this);
    return registry;
  }

  active(profile: string): Record<string, string> {
    const active = this.#profiles.get(profile)?.active;
    return Object.fromEntries([...(active ?? new Map<string, Active>())].sort(([a], [b]) => (a < b ? -1 : 1)).map(([name, { hash }]) => [name, hash]));
  }

  spec(profile: string, name: string, hash: string): ToolSpec | undefined {
    const version = this.#profiles.get(profile)?.versions.get(toolVersionKey(name, hash));
    if (!version || version.approvedBy === undefined) return undefined;
    let spec = this.#specs.get(hash);
    if (!spec) {
      spec = {
        description: version.description,
        cost: version.meta.cost,
        latency: version.meta.latency,
        idempotent: version.meta.idempotent,
        allowNetwork: false,
        capabilities: version.meta.capabilities.includes('sandbox') ? version.meta.capabilities : [...version.meta.capabilities, 'sandbox'],
        parameters: this.#parameters(version.inputSchema),
        handler: async (inputs, context) => (await this.#tool(version)).call(inputs, { signal: context.signal }),
      };
      this.#specs.set(hash, spec);
    }
    return spec;
  }

  /** Terminate every loaded version's worker. */
  async close(): Promise<void> {
    const loaded = [...this.#loaded.values()];
    this.#loaded.clear();
    await Promise.all(loaded.map((tool) => tool.then((t) => t.close()).catch(() => undefined)));
  }

  #loadOptions(): { limits?: SandboxLimits; audit?: AuditLimits } {
    return { ...(this.#options.limits ? { limits: this.#options.limits } : {}), ...(this.#options.audit ? { audit: this.#options.audit } : {}) };
  }

  /** A version's warm worker, started on its first call; a failed start is tried again on the next. */
  #tool(version: StoredToolVersion): Promise<SandboxedTool> {
    let tool = this.#loaded.get(version.hash);
    if (!tool) {
      tool = this.#options.sandbox.load(version.source, this.#loadOptions());
      this.#loaded.set(version.hash, tool);
      tool.catch(() => this.#loaded.delete(version.hash));
    }
    return tool;
  }

  #parameters(inputSchema: Record<string, unknown>): z.ZodType {
    try {
      return z.fromJSONSchema(inputSchema as Parameters<typeof z.fromJSONSchema>[0]);
    } catch (cause) {
      throw new ValidationError(`the input schema is not a JSON Schema this host can check inputs against: ${(cause as Error).message}`, {
        code: 'invalid_input_schema',
        cause,
      });
    }
  }

  async #writable(profile: string, name: string): Promise<ProfileVersions> {
    const loaded = await this.#profile(profile);
    parseOrThrow(ToolNameSchema, name, 'tool name', 'invalid_tool_name');
    if (this.#options.registry.has(profile, name))
      throw new ConflictError(`"${name}" is a tool shipped with this host in profile "${profile}"; choose another name`, { code: 'tool_name_taken' });
    return loaded;
  }

  async #version(profile: string, name: string, hash: string): Promise<StoredToolVersion> {
    const { versions } = await this.#profile(profile);
    const version = versions.get(toolVersionKey(name, hash));
    if (!version) throw new NotFoundError(`profile "${profile}" has no version ${toolVersionKey(name, hash)}`, { code: 'unknown_tool_version' });
    return version;
  }

  async #activate(profile: string, name: string, hash: string, by: string): Promise<void> {
    const active: Active = { hash, by, at: this.#options.clock.now() };
    await this.#options.memory.storeFact(profile, TOOL_ACTIVE_NAMESPACE, active, { key: name });
    (await this.#profile(profile)).active.set(name, active);
    await this.#trail(profile, 'tool_activated', name, hash, by);
    for (const listener of this.#listeners) listener(profile);
  }

  /** Be told of each change of a profile's active versions (an approval, an activation, a rollback). Returns the unsubscribe. */
  onActiveChange(listener: (profile: string) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  async #keep(profile: string, version: StoredToolVersion): Promise<void> {
    await this.#options.memory.storeFact(profile, TOOL_VERSIONS_NAMESPACE, toJsonData<JsonValue>(version), { key: toolVersionKey(version.name, version.hash) });
    (await this.#profile(profile)).versions.set(toolVersionKey(version.name, version.hash), version);
  }

  async #trail(profile: string, type: string, name: string, hash: string, by: string): Promise<void> {
    await this.#options.memory.storeFact(profile, TOOL_EVENTS_NAMESPACE, { type, name, hash, by });
  }

  #listed(profile: string, version: StoredToolVersion): ToolVersion {
    const active = this.#profiles.get(profile)?.active.get(version.name);
    const status = active?.hash === version.hash ? 'active' : version.approvedBy === undefined ? 'proposed' : 'retired';
    return { ...version, status, ...(active?.hash === version.hash ? { activatedAt: active.at, activatedBy: active.by } : {}) };
  }

  /**
   * Read `profile`'s versions from the store again, for a process that shares the store with
   * another that decides them (`cugar mcp` beside `cugar serve`); the active-change listeners are
   * told when the active versions moved. Resolves to whether they did.
   */
  refresh(profile: string): Promise<boolean> {
    return this.#serial(async () => {
      const before = JSON.stringify(this.active(profile));
      // The active pointers are a few facts; the versions (sources included) are read only when one moved.
      const active = new Map<string, Active>();
      await this.#newest(profile, await this.#options.memory.namespaces(profile), TOOL_ACTIVE_NAMESPACE, ActiveSchema, active);
      const now = JSON.stringify(Object.fromEntries([...active].sort(([a], [b]) => (a < b ? -1 : 1)).map(([name, { hash }]) => [name, hash])));
      if (now === before) return false;
      this.#profiles.set(profile, await this.#read(profile));
      for (const listener of this.#listeners) listener(profile);
      return true;
    });
  }

  async #profile(profile: string): Promise<ProfileVersions> {
    const known = this.#profiles.get(profile);
    if (known) return known;
    const loaded = await this.#read(profile);
    // Another call may have loaded it while this one read.
    const raced = this.#profiles.get(profile);
    if (raced) return raced;
    this.#profiles.set(profile, loaded);
    return loaded;
  }

  async #read(profile: string): Promise<ProfileVersions> {
    parseOrThrow(ProfileNameSchema, profile, 'profile', 'invalid_profile');
    if (!this.#options.registry.hasProfile(profile)) throw new NotFoundError(`unknown profile "${profile}"`, { code: 'unknown_profile' });
    const loaded: ProfileVersions = { versions: new Map(), active: new Map() };
    const namespaces = await this.#options.memory.namespaces(profile);
    await this.#newest(profile, namespaces, TOOL_VERSIONS_NAMESPACE, StoredToolVersionSchema, loaded.versions);
    await this.#newest(profile, namespaces, TOOL_ACTIVE_NAMESPACE, ActiveSchema, loaded.active);
    return loaded;
  }

  /** The current value of each key of `namespace` (facts come newest first: the first of a key is its value). */
  async #newest<T>(profile: string, namespaces: readonly string[], namespace: string, schema: z.ZodType<T>, into: Map<string, T>): Promise<void> {
    if (!namespaces.includes(namespace)) return;
    for (const fact of await this.#options.memory.query(profile, namespace, { limit: 100_000 })) {
      if (fact.key === undefined || into.has(fact.key)) continue;
      const parsed = schema.safeParse(fact.value);
      if (parsed.success) into.set(fact.key, parsed.data);
    }
  }

  #serial<T>(action: () => Promise<T>): Promise<T> {
    const next = this.#queue.then(action, action);
    this.#queue = next.catch(() => undefined);
    return next;
  }
}
