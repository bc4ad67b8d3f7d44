import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { redact, type ApprovalRecord } from '../core/index.ts';
import { zodJsonSchemaValidator } from './jsonSchema.ts';
import { RESOURCE_TEMPLATES, listResources, readResource } from './serverResources.ts';
import { callTool, listedTools, type McpServeContext } from './serverTools.ts';

export type { McpServeContext };

/** Longest wait for a person to answer an approval asked through the client, in ms. */
const ASK_TIMEOUT_MS = 10 * 60_000;

/** Options of {@link createMcpServer}. */
export interface McpServerOptions {
  /**
   * Ask the person at the client to decide approvals (MCP elicitation), when the client can.
   * Only on a connection that lasts (stdio): a stateless HTTP request cannot carry the answer back.
   */
  elicitApprovals?: boolean;
  /** Tell the client when the tool list changes (a tool version approved, activated or rolled back): a lasting connection only. */
  toolListChanges?: boolean;
}

/** The question asked for one approval: the call, redacted, and approve or reject. */
function askFor(approval: ApprovalRecord) {
  const safe = redact(approval);
  return {
    mode: 'form' as const,
    message: `CUGAr run ${safe.runId} wants to call ${safe.tool} with ${JSON.stringify(safe.args)}${safe.reason ? ` (${safe.reason})` : ''}. Approve this call?`,
    requestedSchema: {
      type: 'object' as const,
      properties: { decision: { type: 'string' as const, title: 'Decision', enum: ['approve', 'reject'] } },
      required: ['decision'],
    },
  };
}

/**
 * An MCP server over one profile of a runtime: its tools and `run_goal` (every call a
 * journaled run through the orchestrator), and its runs as resources (outcome, redacted
 * journal, trace). Connect it to any transport: stdio (`cugar mcp`) or Streamable HTTP (`/mcp`).
 *
 * The low-level `Server` is used because the tools are the registry's, listed with the JSON
 * Schemas it already holds and validated by the orchestrator, not by the SDK.
 */
export function createMcpServer(context: McpServeContext, options: McpServerOptions = {}): Server {
  const server = new Server(
    { name: 'cugar', version: '0.1.0' },
    {
      capabilities: { tools: { listChanged: options.toolListChanges === true }, resources: { listChanged: false } },
      instructions: `CUGAr profile "${context.profile}": each tool call is a journaled run; run_goal plans and runs a goal. Runs are resources (cugar://runs/{runId}, …/journal, …/trace).`,
      jsonSchemaValidator: zodJsonSchemaValidator,
    },
  );
  const askApproval = async (approval: ApprovalRecord): Promise<'approve' | 'reject' | undefined> => {
    if (!server.getClientCapabilities()?.elicitation?.form) return undefined;
    const answer = await server.elicitInput(askFor(approval), { timeout: ASK_TIMEOUT_MS });
    const decision = answer.action === 'accept' ? answer.content?.['decision'] : undefined;
    return decision === 'approve' || decision === 'reject' ? decision : undefined;
  };
  const serving: McpServeContext = options.elicitApprovals ? { ...context, askApproval } : context;
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listedTools(serving) }));
  server.setRequestHandler(CallToolRequestSchema, (request) => callTool(serving, request.params.name, request.params.arguments));
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: await listResources(context) }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: RESOURCE_TEMPLATES }));
  server.setRequestHandler(ReadResourceRequestSchema, (request) => readResource(context, request.params.uri));
  return server;
}
