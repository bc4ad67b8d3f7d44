// Response schemas of the audit of signatures and of the store's log of heads (see schemas.ts
// for how the API's schemas are built).
import '@hono/zod-openapi';
import * as z from 'zod';
import { HeadLogSchema, JournalHeadSchema, RUN_STATUSES } from '../core/index.ts';

/** A host's Ed25519 signature of a run head or a log head. */
export const HeadSignatureSchema = z.object({ keyId: z.string(), sig: z.string() }).openapi('HeadSignature');

/**
 * What a verifier holding only the host's public key needs (`GET /v1/audit/heads`): the store's
 * log of heads with its signed head, and every run the store holds with its head and the host's
 * signature of it.
 */
export const StoreHeadsSchema = z
  .object({
    log: HeadLogSchema.clone().openapi('HeadLog'),
    runs: z.array(
      z.object({
        runId: z.string(),
        profile: z.string(),
        status: z.enum(RUN_STATUSES),
        head: JournalHeadSchema.clone(),
        signature: HeadSignatureSchema.optional(),
      }),
    ),
  })
  .openapi('StoreHeads');

/** What the audit found about the store's log of heads as a whole. */
export const LogAuditSchema = z
  .object({
    ok: z.boolean(),
    /** Entries in the log, and how many of them its signature covers (for a token of every profile: they count every profile's appends). */
    size: z.number().int().optional(),
    signedSize: z.number().int().optional(),
    signature: z.enum(['signed', 'unsigned', 'bad', 'unchecked']),
    problem: z.string().optional(),
    /** Runs written before the store kept a log, covered from the head they had when it started (for a token of every profile). */
    predating: z.number().int().optional(),
    /** Runs whose journals retention deleted: the log keeps each one's final head and a signed `pruned` record (for a token of every profile). */
    pruned: z.number().int().optional(),
    note: z.string().optional(),
  })
  .openapi('LogAudit');
