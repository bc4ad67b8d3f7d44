import * as z from 'zod';
import { SecretNameSchema } from '../policy/secrets.ts';

/** What a tool handler receives besides its inputs. */
export interface ToolContext {
  profile: string;
  traceId: string;
  runId: string;
  stepIndex: number;
  /** Aborted when the run is cancelled or the step times out; long handlers should watch it. */
  signal: AbortSignal;
  /** `runId:stepId`: the same on every attempt of one step, so side effects can be deduplicated. */
  idempotencyKey: string;
  /** 1 for the first attempt of a step, 2 for its first retry, … (a re-run after a crash keeps its attempt). */
  attempt: number;
  /**
   * The value of a secret the tool declared in `secrets`, from the host's secrets port,
   * resolved now and never recorded: what the call returns or throws is scrubbed of it.
   */
  secret(name: string): Promise<string>;
}

/** A tool's implementation: `(inputs, context) → output`. Inputs are already validated. */
// `any` keeps handlers of differently-typed tools assignable to one registry.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type ToolHandler<I = any, O = unknown> = (inputs: I, context: ToolContext) => O | Promise<O>;

/**
 * A tool's own check of a result: `true` when it is good, or why it is not. A result that fails
 * it is a failed attempt (`verification_failed`), retried under the retry policy; in an agent run
 * a final failure goes back to the model.
 */
// `any` for the same reason as ToolHandler: verifiers of differently-typed tools share one registry.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type ToolVerifier<I = any> = (output: unknown, input: I) => true | string;

/** A capability name: lowercase words joined by `.`, `:`, `_` or `-` (`math`, `net:http`). */
export const CapabilitySchema = z.string().regex(/^[a-z][a-z0-9._:-]{0,63}$/, 'capabilities are lowercase identifiers');

/** The descriptive part of a tool, validated at registration. */
export const ToolMetaSchema = z.object({
  description: z.string().trim().min(1, 'a tool needs a description').max(2000),
  /** Relative cost of one call (any unit, consistent within a profile). Default 1. */
  cost: z.number().min(0).max(1e9).default(1),
  /** Expected latency of one call, in milliseconds. Default 100. */
  latency: z.number().min(0).max(3.6e6).default(100),
  /** What a worker must offer to run this tool. */
  capabilities: z.array(CapabilitySchema).max(32).default([]),
  /** Whether the tool touches the network; refused unless the profile allows it. */
  allowNetwork: z.boolean().default(false),
  /** Whether repeating a call with the same idempotency key is safe. */
  idempotent: z.boolean().default(false),
  /** Whether a human must approve each call. */
  requiresApproval: z.boolean().default(false),
  /** Tokens one call is expected to use, reserved against token budgets. Default 0. */
  tokens: z.number().int().min(0).max(1e9).default(0),
  /** Names of the host secrets the handler reads through `context.secret(name)`; no other name resolves. */
  secrets: z.array(SecretNameSchema).max(16).default([]),
  /** Other names people use for the tool ("look up", "put on"), which the lexical planner matches like its name. */
  aliases: z.array(z.string().trim().min(1).max(100)).max(16).optional(),
  /** Requests the tool serves, in any language, which the lexical planner matches like its description. */
  examples: z.array(z.string().trim().min(1).max(500)).max(32).optional(),
  /** The MCP server the tool calls, for tools registered from one (`cugar/mcp`). */
  mcpServer: z
    .string()
    .regex(/^[a-z][a-z0-9_]{0,31}$/)
    .optional(),
});
export type ToolMeta = z.output<typeof ToolMetaSchema>;

/** What a caller passes to `register`: a handler, a zod schema of its inputs, and metadata. */
export interface ToolSpec<S extends z.ZodType = z.ZodType> extends Partial<Omit<ToolMeta, 'capabilities' | 'secrets' | 'aliases' | 'examples'>> {
  description: string;
  capabilities?: readonly string[];
  secrets?: readonly string[];
  aliases?: readonly string[];
  examples?: readonly string[];
  parameters: S;
  handler: ToolHandler<z.output<S>>;
  /** Checks each result before it is recorded as the step's output. */
  verify?: ToolVerifier<z.output<S>>;
}

/** A registered tool: frozen, with defaults filled in and its JSON Schema computed once. */
export interface ToolDefinition extends Readonly<ToolMeta> {
  readonly profile: string;
  readonly name: string;
  readonly parameters: z.ZodType;
  readonly handler: ToolHandler;
  /** The tool's own check of each result, if it has one. */
  readonly verify?: ToolVerifier;
  /** JSON Schema of the inputs, from `z.toJSONSchema`. */
  readonly inputSchema: Readonly<Record<string, unknown>>;
}

/** A tool as listed to callers (API, CLI, dashboard): everything but the handler. */
export interface ToolInfo extends ToolMeta {
  profile: string;
  name: string;
  inputSchema: Record<string, unknown>;
}

/** Helper that keeps a spec's handler typed by its schema. */
export function defineTool<S extends z.ZodType>(spec: ToolSpec<S>): ToolSpec<S> {
  return spec;
}
