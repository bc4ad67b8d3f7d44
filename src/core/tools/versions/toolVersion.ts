import * as z from 'zod';
import { canonicalJson } from '../../journal/canonicalJson.ts';
import { sha256Hex } from '../../journal/sha256.ts';
import { FindingSchema } from '../codeAnalyzer/finding.ts';
import { CapabilitySchema } from '../tool.ts';

/** The content hash that names a tool version: lowercase hex SHA-256. */
export const ToolVersionHashSchema = z.string().regex(/^[0-9a-f]{64}$/, 'a tool version is named by a lowercase hex SHA-256');

/** Largest tool source accepted, in characters (the patch auditor has its own, lower limits too). */
export const MAX_TOOL_SOURCE_CHARS = 100_000;

/** A JSON Schema of a tool's inputs: an object schema, at most 20,000 characters of JSON. */
export const ToolInputJsonSchema = z
  .record(z.string(), z.unknown())
  .refine((schema) => schema['type'] === 'object', { message: 'the input schema must be a JSON Schema with "type": "object"' })
  .refine((schema) => JSON.stringify(schema).length <= 20_000, { message: 'the input schema is longer than 20,000 characters' });

/** What a proposal may say about a tool besides its code; the rest of its metadata is fixed for sandboxed tools. */
export const ToolVersionMetaSchema = z
  .object({
    /** Relative cost of one call. Default 1. */
    cost: z.number().min(0).max(1e9).default(1),
    /** Expected latency of one call, in milliseconds. Default 100. */
    latency: z.number().min(0).max(3.6e6).default(100),
    /** What a worker must offer to run it; `sandbox` is always added. */
    capabilities: z.array(CapabilitySchema).max(32).default([]),
    /** Whether repeating a call is safe. Default false. */
    idempotent: z.boolean().default(false),
  })
  .strict();
export type ToolVersionMeta = z.output<typeof ToolVersionMetaSchema>;

/** A proposed tool or tool version: its source (one exported handler), input schema, description and metadata. */
export const ToolVersionProposalSchema = z
  .object({
    source: z.string().min(1).max(MAX_TOOL_SOURCE_CHARS),
    inputSchema: ToolInputJsonSchema,
    description: z.string().trim().min(1, 'a tool needs a description').max(2000),
    meta: ToolVersionMetaSchema.default({ cost: 1, latency: 100, capabilities: [], idempotent: false }),
  })
  .strict();
export type ToolVersionProposal = z.output<typeof ToolVersionProposalSchema>;
export type ToolVersionProposalInput = z.input<typeof ToolVersionProposalSchema>;

/** Where a version stands: waiting for approval, the one runs use now, or approved and not in use. */
export const TOOL_VERSION_STATUSES = ['proposed', 'active', 'retired'] as const;
export type ToolVersionStatus = (typeof TOOL_VERSION_STATUSES)[number];

/** A stored version, as kept in the facts of its profile (namespace `tool_versions`, key `<name>@<hash>`). */
export const StoredToolVersionSchema = ToolVersionProposalSchema.extend({
  name: z.string(),
  hash: ToolVersionHashSchema,
  /** Non-refusing findings of the audit it passed (low and info). */
  warnings: z.array(FindingSchema),
  /** The audit's safety score, 0 to 100. */
  score: z.number(),
  proposedBy: z.string(),
  proposedAt: z.number(),
  approvedBy: z.string().optional(),
  approvedAt: z.number().optional(),
});
export type StoredToolVersion = z.output<typeof StoredToolVersionSchema>;

/** A version as listed: the stored version with its status and when it was last activated. */
export type ToolVersion = StoredToolVersion & { status: ToolVersionStatus; activatedAt?: number; activatedBy?: string };

/**
 * The content hash of a proposal: SHA-256 of the canonical JSON of its source, input schema,
 * description and metadata. The same proposal always has the same hash, on every host; a change
 * to any of the four is a new version.
 */
export function toolVersionHash(proposal: ToolVersionProposal): string {
  return sha256Hex(canonicalJson({ source: proposal.source, inputSchema: proposal.inputSchema, description: proposal.description, meta: proposal.meta }));
}

/** The name a run's journal calls one version by: `<name>@<hash>`. */
export function toolVersionKey(name: string, hash: string): string {
  return `${name}@${hash}`;
}
