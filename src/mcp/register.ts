import { ToolNameSchema, ToolRegistry, ValidationError, toCugarError, type CugarError, type ToolContext, type ToolSpec } from '../core/index.ts';
import { McpServerConfigSchema, checkAllowed, type McpProfileAllow, type McpServerConfig, type McpServerConfigInput } from './config.ts';
import { McpConnection, type McpConnectionOptions, type McpListedTool } from './connection.ts';
import { McpSchemaError } from './errors.ts';
import { toolParameters } from './jsonSchema.ts';

/** A tool as an MCP server lists it (`tools/list`): what registration needs, and what a replay without the server needs. */
export type McpToolListing = McpListedTool;

/** The registry name of MCP tool `tool`: `<prefix>_<tool>` in lowercase, other characters as `_`. */
export function registeredName(config: Pick<McpServerConfig, 'name' | 'prefix'>, tool: string): string {
  const prefix = config.prefix ?? config.name;
  const base = tool.toLowerCase().replace(/[^a-z0-9_]/g, '_');
  return prefix ? `${prefix}_${base}` : base;
}

/** One server's tools in a profile: registered, refused (each with its typed error), and the listing it came from. */
export interface McpRegistration {
  server: string;
  profile: string;
  /** Registry names of the tools registered, sorted. */
  tools: string[];
  /** Tools left out, by MCP name: a schema or name that was refused. */
  rejected: Array<{ tool: string; error: CugarError }>;
  /** What the server listed: keep it to register the same tools later without the server (`registerMcpTools`). */
  listing: McpToolListing[];
  connection: McpConnection;
  close(): Promise<void>;
}

/** Options of {@link registerMcpServer}. */
export interface RegisterMcpOptions extends McpConnectionOptions {
  /** What the server's profile allows of MCP (checked before anything is started). */
  allow?: McpProfileAllow;
}

function description(config: McpServerConfig, tool: McpToolListing): string {
  const text = (tool.description ?? tool.title ?? '').trim() || `${tool.name} (MCP server ${config.name})`;
  return text.length > 2000 ? `${text.slice(0, 1999)}…` : text;
}

/**
 * Register `listing`'s tools of the server `config` into `registry` under `config.profile`,
 * each calling `connection` when a run calls it. Each tool's JSON Schema becomes its zod
 * schema ({@link toolParameters}); a tool whose schema or name is refused is left out and
 * reported. All-or-nothing on name conflicts. With a listing kept from an earlier
 * registration, this needs no server: a replay feeds recorded results back and never calls it.
 */
export function registerMcpTools(
  registry: ToolRegistry,
  configInput: McpServerConfigInput,
  listing: readonly McpToolListing[],
  connection: McpConnection,
): Pick<McpRegistration, 'tools' | 'rejected'> {
  const config = McpServerConfigSchema.parse(configInput);
  const wanted = config.tools ? new Set(config.tools) : undefined;
  const approval = (tool: string) => (Array.isArray(config.requireApproval) ? config.requireApproval.includes(tool) : config.requireApproval);
  const staged = new ToolRegistry();
  const rejected: McpRegistration['rejected'] = [];
  const seen = new Set<string>();
  for (const tool of listing.slice(0, config.maxTools)) {
    if (wanted && !wanted.has(tool.name)) continue;
    try {
      const name = registeredName(config, tool.name);
      if (!ToolNameSchema.safeParse(name).success)
        throw new McpSchemaError(`MCP tool ${config.name}/${tool.name} has no usable name ("${name}")`, { code: 'mcp_tool_name_invalid' });
      if (seen.has(name)) throw new McpSchemaError(`MCP tools of ${config.name} collide on the name "${name}"`, { code: 'mcp_tool_name_invalid' });
      seen.add(name);
      const spec: ToolSpec = {
        description: description(config, tool),
        parameters: toolParameters(tool.inputSchema, `MCP tool ${config.name}/${tool.name}`),
        cost: config.cost,
        latency: config.latency,
        capabilities: ['mcp', `mcp:${config.name}`],
        allowNetwork: config.transport.type === 'http',
        idempotent: config.idempotent.includes(tool.name),
        requiresApproval: approval(tool.name),
        mcpServer: config.name,
        handler: (input: unknown, context: ToolContext) => connection.callTool(tool.name, (input ?? {}) as Record<string, unknown>, context.signal),
      };
      staged.register(config.profile, name, spec);
    } catch (error) {
      rejected.push({ tool: tool.name, error: toCugarError(error) });
    }
  }
  if (staged.hasProfile(config.profile)) registry.merge(staged);
  const tools = staged.hasProfile(config.profile) ? staged.definitions(config.profile).map((t) => t.name) : [];
  return { tools, rejected };
}

/**
 * Connect to the MCP server `config` and register its tools into its profile (see
 * {@link registerMcpTools}). Refused with a typed error, before anything starts, when the
 * profile does not allow the server (`allow`: the command for stdio, the network for HTTP;
 * calls of HTTP tools also need the profile's network permission at run time). A server that
 * cannot be reached, hangs or crashes fails with `McpUnavailableError` within `connectTimeoutMs`.
 *
 * @example
 * const everything = await registerMcpServer(registry, {
 *   name: 'everything', profile: 'demo',
 *   transport: { type: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'] },
 * }, { allow: { network: false, commands: ['npx'] }, stdio: stdioLauncher });
 */
export async function registerMcpServer(registry: ToolRegistry, configInput: McpServerConfigInput, options: RegisterMcpOptions = {}): Promise<McpRegistration> {
  const parsed = McpServerConfigSchema.safeParse(configInput);
  if (!parsed.success)
    throw new ValidationError(`invalid MCP server: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`, {
      code: 'invalid_mcp_config',
    });
  const config = parsed.data;
  checkAllowed(config, options.allow);
  const connection = new McpConnection(config, options);
  try {
    const listing = await connection.listTools();
    const { tools, rejected } = registerMcpTools(registry, config, listing, connection);
    return { server: config.name, profile: config.profile, tools, rejected, listing, connection, close: () => connection.close() };
  } catch (error) {
    await connection.close();
    throw error;
  }
}
