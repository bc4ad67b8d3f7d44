/**
 * CUGAr and the Model Context Protocol (`cugar/mcp`): register the tools of MCP servers into a
 * profile (a client, over stdio on Node and Streamable HTTP everywhere), and serve a runtime's
 * profiles as MCP servers (stdio for `cugar mcp`, Streamable HTTP at `/mcp`).
 *
 * @example
 * import { registerMcpServer, stdioLauncher } from 'cugar/mcp';
 * const everything = await registerMcpServer(registry, {
 *   name: 'everything', profile: 'demo',
 *   transport: { type: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'] },
 * }, { allow: { network: false, commands: ['npx'] }, stdio: stdioLauncher });
 */
export {
  McpAllowSchema,
  McpHttpTransportSchema,
  McpProfileAllowSchema,
  McpServerConfigSchema,
  McpServerNameSchema,
  McpStdioTransportSchema,
  checkAllowed,
  parseMcpAllow,
  parseMcpServers,
  type McpAllow,
  type McpProfileAllow,
  type McpServerConfig,
  type McpServerConfigInput,
} from './config.ts';
export { McpConnection, boundedFetch, type McpCallOutput, type McpConnectionOptions, type StdioLauncher } from './connection.ts';
export { McpNotAllowedError, McpSchemaError, McpToolError, McpUnavailableError, mcpFailure } from './errors.ts';
export { connectMcpServers, mcpPolicies, mcpPolicyEnforcer, mcpSettingsFromEnv, registerKeptMcpServers, type McpHostSettings } from './hostSetup.ts';
export { mountMcp, type McpRouteOptions } from './httpRoute.ts';
export { fileListingCache, type McpListingCache } from './listingCache.ts';
export { MAX_SCHEMA_BYTES, MAX_SCHEMA_DEPTH, toolParameters, zodFromJsonSchema, zodJsonSchemaValidator } from './jsonSchema.ts';
export { registerMcpServer, registerMcpTools, registeredName, type McpRegistration, type McpToolListing, type RegisterMcpOptions } from './register.ts';
export { createMcpServer, type McpServeContext, type McpServerOptions } from './server.ts';
export { MAX_RESOURCE_CHARS, RESOURCE_TEMPLATES } from './serverResources.ts';
export { MAX_MCP_WAIT_SECONDS, RUN_GOAL } from './serverTools.ts';
export { stdioLauncher } from './stdio.ts';
export { serveMcpStdio } from './stdioServer.ts';
