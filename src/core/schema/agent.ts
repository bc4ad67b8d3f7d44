import * as z from 'zod';
import { ErrorInfoSchema } from './error.ts';

// Like journalEvent.ts, these schemas describe journal data as it was written: no defaults and
// no transforms, so a recorded agent run verifies and replays byte for byte.

/** What one model costs, in the budget's cost unit per million tokens. */
export const ModelPriceSchema = z.object({ inputPerMillion: z.number().min(0), outputPerMillion: z.number().min(0) });
export type ModelPrice = z.output<typeof ModelPriceSchema>;

/**
 * How an agent run talks to its models, fixed when the run starts and recorded in its inputs,
 * so a resumed or replayed run makes the same requests.
 */
export const AgentSettingsSchema = z.object({
  /** Model ids in fallback order: a transient failure that outlasts the retry policy falls to the next. */
  models: z.array(z.string().min(1).max(200)).min(1).max(8),
  /** Sampling temperature, 0..2; absent leaves it to the provider. */
  temperature: z.number().min(0).max(2).optional(),
  /** Most tokens one answer may have; absent leaves it to the provider. */
  maxOutputTokens: z.number().int().min(1).optional(),
  /** Most answered model calls of the run. */
  maxLlmCalls: z.number().int().min(1),
  /** Invalid tool calls (unknown tool, arguments the schema refuses) sent back to the model before the run stops. */
  maxInvalidToolCalls: z.number().int().min(0),
  /** Milliseconds one model call may take before it fails as a timeout. */
  callTimeoutMs: z.number().int().min(1),
  /** Whether calls stream (`doStream`, assembled before journaling) instead of `doGenerate`. */
  stream: z.boolean(),
  /** Phase 1: the first call classifies the goal (JSON); a trivial goal answered with high confidence ends the run there. */
  prePlan: z.boolean().optional(),
  /** Review: each answer is checked by the model against the goal before the run completes; three failed checks start over. */
  review: z.boolean().optional(),
  /** Price of each model id, for the budget's cost; a model without a price costs 0. */
  prices: z.record(z.string(), ModelPriceSchema).optional(),
  /**
   * Phase 2's `delegate`: the profiles whose agents the model may hand a sub-goal to (the
   * `delegate` tool), and how deep sub-runs may nest. Absent: the run cannot delegate.
   */
  delegate: z.object({ profiles: z.array(z.string().min(1)).min(1), maxDepth: z.number().int().min(1) }).optional(),
  /** The model may propose tools written at run time (the `propose_tool` tool); each waits for a person's approval. */
  proposeTools: z.literal(true).optional(),
});
export type AgentSettings = z.output<typeof AgentSettingsSchema>;

/** Why a model call was made besides the tool loop. */
export type CallPurpose = 'preplan' | 'review' | 'reflect';

/** Tokens a provider reported for one call; a number it did not report is 0. */
export const ModelUsageSchema = z.object({ inputTokens: z.number().int().min(0), outputTokens: z.number().int().min(0), totalTokens: z.number().int().min(0) });
export type ModelUsage = z.output<typeof ModelUsageSchema>;

/** One tool call a model asked for: `input` is the parsed JSON arguments, or the raw text when they did not parse. */
export const ModelToolCallSchema = z.object({ toolCallId: z.string(), toolName: z.string(), input: z.unknown() });
export type ModelToolCall = z.output<typeof ModelToolCallSchema>;

/** A model's request as journaled: the new part of the prompt (redacted), the tool names offered and the settings. */
export const ModelRequestRecordSchema = z.object({
  /** The messages added since the previous call (all of them on the first call). */
  messages: z.array(z.unknown()),
  /** Index in the whole prompt of the first message in `messages`; absent: 0. */
  fromMessage: z.number().int().min(0).optional(),
  tools: z.array(z.string()),
  temperature: z.number().optional(),
  maxOutputTokens: z.number().optional(),
});

const Ref = {
  callId: z.string().min(1),
  turn: z.number().int().min(1),
  model: z.string().min(1),
  attempt: z.number().int().min(1),
  /**
   * `preplan`: phase 1's classification; `review`: the check of an answer; `reflect`: the
   * summary of a finished run for memory (absent: a turn of the tool loop).
   */
  purpose: z.enum(['preplan', 'review', 'reflect']).optional(),
};

/** The journal data of model calls and agent turns (merged into `JOURNAL_EVENT_DATA`). */
export const AGENT_EVENT_DATA = {
  /**
   * Durable before the request leaves: `requestHash` is the SHA-256 of the canonical JSON of the
   * whole request (model, settings, and the SHA-256 of each prompt message and of the tool list); `rerun` marks a call re-issued on resume
   * after its answer was never recorded.
   */
  model_call_start: z.object({ ...Ref, requestHash: z.string(), request: ModelRequestRecordSchema, rerun: z.literal(true).optional() }),
  /** The assembled answer (streamed deltas are not journaled) and which model gave it. */
  model_call_complete: z.object({
    ...Ref,
    text: z.string(),
    toolCalls: z.array(ModelToolCallSchema),
    /** Whether the tool calls were native or JSON written in the text. */
    toolCallMode: z.enum(['native', 'text']),
    finishReason: z.string(),
    usage: ModelUsageSchema,
    cost: z.number().min(0),
    durationMs: z.number().min(0),
  }),
  /** A failed call and what follows: another attempt after `delayMs`, the next model, or the end of the run. */
  model_call_error: z.object({
    ...Ref,
    error: ErrorInfoSchema,
    next: z.enum(['retry', 'fallback', 'stop']),
    delayMs: z.number().min(0).optional(),
    jitter: z.number().optional(),
    durationMs: z.number().min(0),
  }),
  /**
   * Reflections of earlier runs of the profile, recalled before the run plans (an agent run's
   * first call, a lexical run's plan). Runs with memory in the loop also record each note's
   * goal, outcome and tools, and `avoid`: the tools the lexical plan was made without because
   * they failed for a near-identical goal.
   */
  memory_recalled: z.object({
    namespace: z.string(),
    notes: z.array(
      z.object({
        id: z.string(),
        text: z.string(),
        goal: z.string().optional(),
        success: z.boolean().optional(),
        failed: z.array(z.string()).optional(),
        succeeded: z.array(z.string()).optional(),
      }),
    ),
    avoid: z.array(z.string()).optional(),
  }),
  /** Memory could not be read or written: the run goes on without it. */
  memory_warning: z.object({ operation: z.enum(['recall', 'remember']), error: ErrorInfoSchema }),
  /** What the engine made of an answer: the valid calls become steps, invalid ones go back to the model; no calls is the answer. */
  agent_turn: z.object({
    turn: z.number().int().min(1),
    callId: z.string().min(1),
    steps: z.array(
      z.object({ stepId: z.string(), toolCallId: z.string(), tool: z.string(), input: z.record(z.string(), z.unknown()), index: z.number().int().min(0) }),
    ),
    rejected: z.array(z.object({ toolCallId: z.string(), tool: z.string(), input: z.unknown(), error: ErrorInfoSchema })),
    answer: z.string().optional(),
    /** The verdict of a review call on the last answer. */
    review: z.object({ passed: z.boolean(), reason: z.string() }).optional(),
  }),
} as const;
