import { McpError, ErrorCode, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import { redact, toCugarError, type ApprovalRecord, type CugarError, type RunOutcome, type ToolRegistry } from '../core/index.ts';
import { MAX_JSON_DEPTH, jsonDepth } from '../api/middleware.ts';
import type { Runtime } from '../api/runtime.ts';

/** The tool that starts a run of a goal. A profile tool of the same name is not exposed. */
export const RUN_GOAL = 'run_goal';

/** Longest wait for a run's outcome inside one MCP call, in seconds. */
export const MAX_MCP_WAIT_SECONDS = 25;

/** What one MCP server instance serves: a profile of a runtime. */
export interface McpServeContext {
  runtime: Runtime;
  profile: string;
  /** Seconds a call waits for its run before answering that it is still running. Default 20. */
  waitSeconds?: number;
  /** Keeps a run going after its call is answered (a Worker's `waitUntil`). */
  keepAlive?: (work: Promise<unknown>) => void;
  /** Where failures of runs that outlived their call are reported. */
  log?: (line: string) => void;
  /**
   * Asks the person at the client to decide an approval (MCP elicitation); undefined when the
   * client cannot ask or the person declined to answer, and the run stays paused.
   */
  askApproval?: (approval: ApprovalRecord) => Promise<'approve' | 'reject' | undefined>;
}

/** Most approvals one call asks for in a row before it answers with the run still paused. */
const MAX_ASKED_APPROVALS = 10;

const RunGoalInput = z.object({
  goal: z.string().min(1).max(10_000),
  /** Seconds to wait for the outcome; the run goes on after that either way. */
  wait_seconds: z.number().int().min(0).max(MAX_MCP_WAIT_SECONDS).optional(),
});

/**
 * The tools a new run of the profile has: the host's shipped tools and the active version of each
 * tool written at run time (when the host takes them), or undefined for a profile it does not know.
 */
function profileTools(context: McpServeContext): ToolRegistry | undefined {
  const { runtime, profile } = context;
  if (!runtime.registry.hasProfile(profile)) return undefined;
  return runtime.toolVersions ? runtime.toolVersions.registryOf(profile) : runtime.registry;
}

/**
 * The tools an MCP client sees: the profile's (with their JSON Schemas) and `run_goal`. A tool
 * written at run time is listed in its active version, named in `_meta` (`cugar/toolVersion`);
 * the list changes (`notifications/tools/list_changed`) when a version is approved or activated.
 */
export function listedTools(context: McpServeContext): Tool[] {
  const versions = context.runtime.toolVersions?.active(context.profile) ?? {};
  const tools: Tool[] = (profileTools(context)?.list(context.profile) ?? [])
    .filter((tool) => tool.name !== RUN_GOAL && tool.inputSchema['type'] === 'object')
    .map((tool) => ({
      name: tool.name,
      description: `${tool.description}${tool.requiresApproval ? ' (each call waits for a person to approve it)' : ''}${versions[tool.name] ? ` (written at run time; version ${versions[tool.name]!.slice(0, 12)})` : ''}`,
      inputSchema: tool.inputSchema as Tool['inputSchema'],
      annotations: { idempotentHint: tool.idempotent, openWorldHint: tool.allowNetwork },
      ...(versions[tool.name] ? { _meta: { 'cugar/toolVersion': versions[tool.name]! } } : {}),
    }));
  const goalSchema = z.toJSONSchema(RunGoalInput) as Tool['inputSchema'];
  return [
    {
      name: RUN_GOAL,
      description: `Run a goal in CUGAr profile "${context.profile}": planned, run with its tools, journaled. A call that needs a person's approval pauses the run; the answer names the approval.`,
      inputSchema: goalSchema,
    },
    ...tools,
  ];
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
}

/** An outcome as an MCP tool result: redacted, the run named, a pause saying which approval it waits for. */
export function outcomeResult(outcome: RunOutcome, output: (outcome: RunOutcome) => unknown): CallToolResult {
  const safe = redact(outcome);
  const run = { runId: safe.runId, status: safe.status, resource: `cugar://runs/${safe.runId}` };
  if (safe.status === 'paused' && safe.pendingApproval) {
    const approval = safe.pendingApproval;
    return {
      content: [
        {
          type: 'text',
          text: `Run ${safe.runId} is paused: ${approval.tool} waits for approval ${approval.approvalId}. A person decides it with POST /v1/approvals/${approval.approvalId} (or in the dashboard); the run then goes on.`,
        },
      ],
      structuredContent: { ...run, approvalId: approval.approvalId, tool: approval.tool, args: approval.args },
    };
  }
  if (safe.status === 'running')
    return {
      content: [{ type: 'text', text: `Run ${safe.runId} is still running; read ${run.resource} for its outcome.` }],
      structuredContent: run,
    };
  if (!safe.success) {
    const error = safe.error ?? { code: safe.stopReason ?? safe.status, message: `the run ended ${safe.status}` };
    return {
      isError: true,
      content: [{ type: 'text', text: `Run ${safe.runId} ${safe.status}: ${error.code}: ${error.message}` }],
      structuredContent: { ...run, error: { code: error.code, message: error.message } },
    };
  }
  const result = output(safe);
  return { content: [{ type: 'text', text: text(result) }], structuredContent: { ...run, output: result as never } };
}

/** A typed error refused before any run started, as an MCP tool error. */
function refusal(error: CugarError): CallToolResult {
  const safe = redact(error.toJSON());
  return {
    isError: true,
    content: [{ type: 'text', text: `${safe.code}: ${safe.message}` }],
    structuredContent: { error: { code: safe.code, message: safe.message } },
  };
}

/** `outcome` if it settles within `ms`, else undefined. */
async function within(outcome: Promise<RunOutcome>, ms: number): Promise<RunOutcome | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)));
  try {
    return await Promise.race([outcome, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Answer `tools/call`: `run_goal` starts a run of the goal; any other name runs that tool of
 * the profile as a one-step run. Either way the orchestrator drives it (policy, validation,
 * approval, budget, retry, journal), and the call answers with the outcome, a pause naming
 * its approval, or "still running" once the wait is over.
 */
export async function callTool(context: McpServeContext, name: string, args: Record<string, unknown> | undefined): Promise<CallToolResult> {
  const { runtime, profile } = context;
  // As the API bounds request bodies: every recursive reader after this point (zod, canonical JSON) stays on the stack.
  if (jsonDepth(args) > MAX_JSON_DEPTH) throw new McpError(ErrorCode.InvalidParams, `the arguments nest deeper than ${MAX_JSON_DEPTH} levels`);
  let goal: string;
  let options: Parameters<Runtime['orchestrator']['launch']>[2];
  let waitSeconds = Math.min(context.waitSeconds ?? 20, MAX_MCP_WAIT_SECONDS);
  let output: (outcome: RunOutcome) => unknown;
  if (name === RUN_GOAL) {
    const parsed = RunGoalInput.safeParse(args ?? {});
    if (!parsed.success)
      throw new McpError(
        ErrorCode.InvalidParams,
        `invalid arguments of ${RUN_GOAL}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
      );
    goal = parsed.data.goal;
    if (parsed.data.wait_seconds !== undefined) waitSeconds = parsed.data.wait_seconds;
    options = { metadata: { via: 'mcp' } };
    output = (outcome) => outcome.outputs;
  } else {
    if (!profileTools(context)?.has(profile, name) || name === RUN_GOAL)
      throw new McpError(ErrorCode.InvalidParams, `profile "${profile}" has no tool "${name}"`);
    goal = `call ${name} over MCP`;
    options = { plan: [{ tool: name, input: args ?? {} }], mode: 'lexical', metadata: { via: 'mcp' } };
    output = (outcome) => outcome.outputs['step-0'] ?? null;
  }
  let launched;
  try {
    launched = await runtime.orchestrator.launch(goal, profile, options);
  } catch (error) {
    return refusal(toCugarError(error));
  }
  const reported = launched.outcome.catch((error: unknown) => {
    context.log?.(`run ${launched.runId} stopped with an error: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  });
  context.keepAlive?.(reported);
  let settled = await within(launched.outcome, waitSeconds * 1000).catch(() => undefined);
  for (let asked = 0; context.askApproval && settled?.status === 'paused' && settled.pendingApproval && asked < MAX_ASKED_APPROVALS; asked++) {
    const approval = settled.pendingApproval;
    const decision = await context.askApproval(approval).catch(() => undefined);
    if (!decision) break;
    settled = await runtime.orchestrator.resolveApproval(approval.approvalId, { decision, reason: 'decided in the MCP client', by: 'mcp-client' });
  }
  return outcomeResult(settled ?? (await runtime.orchestrator.getRun(launched.runId)), output);
}
