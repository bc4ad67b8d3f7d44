import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { zodJsonSchemaValidator } from './jsonSchema.ts';
import { RESOURCE_TEMPLATES, listResources, readResource } from './serverResources.ts';
import { callTool, listedTools, type McpServeContext } from './serverTools.ts';

export type { McpServeContext };

/**
 * An MCP server over one profile of a runtime: its tools and `run_goal` (every call a
 * journaled run through the orchestrator), and its runs as resources (outcome, redacted
 * journal, trace). Connect it to any transport: stdio (`cugar mcp`) or Streamable HTTP (`/mcp`).
 *
 * The low-level `Server` is used because the tools are the registry's, listed with the JSON
 * Schemas it already holds and validated by the orchestrator, not by the SDK.
 */
export function createMcpServer(context: McpServeContext): Server {
  const server = new Server(
    { name: 'cugar', version: '0.1.0' },
    {
      capabilities: { tools: { listChanged: false }, resources: { listChanged: false } },
      instructions: `CUGAr profile "${context.profile}": each tool call is a journaled run; run_goal plans and runs a goal. Runs are resources (cugar://runs/{runId}, …/journal, …/trace).`,
      jsonSchemaValidator: zodJsonSchemaValidator,
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listedTools(context) }));
  server.setRequestHandler(CallToolRequestSchema, (request) => callTool(context, request.params.name, request.params.arguments));
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: await listResources(context) }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: RESOURCE_TEMPLATES }));
  server.setRequestHandler(ReadResourceRequestSchema, (request) => readResource(context, request.params.uri));
  return server;
}
