import { PolicyEnforcer, redactText, toCugarError, type ProfilePolicyInput, type ToolRegistry } from '../core/index.ts';
import { McpServerConfigSchema, checkAllowed, parseMcpAllow, parseMcpServers, type McpAllow, type McpServerConfigInput } from './config.ts';
import { McpConnection, type McpConnectionOptions } from './connection.ts';
import { McpUnavailableError } from './errors.ts';
import type { McpListingCache } from './listingCache.ts';
import { registerMcpServer, registerMcpTools, type McpRegistration } from './register.ts';

/** The MCP servers a host connects to, and what each profile allows of them. */
export interface McpHostSettings {
  servers: McpServerConfigInput[];
  allow: McpAllow;
}

/** `CUGAR_MCP_SERVERS` and `CUGAR_MCP_ALLOW` from a host's environment; unset is no server. Invalid JSON throws a typed error. */
export function mcpSettingsFromEnv(env: Readonly<Record<string, string | undefined>>): McpHostSettings {
  return { servers: parseMcpServers(env['CUGAR_MCP_SERVERS']), allow: parseMcpAllow(env['CUGAR_MCP_ALLOW']) };
}

/** The profile policies the MCP permissions imply: a profile that allows `network` runs tools that declare `allowNetwork`. */
export function mcpPolicies(allow: McpAllow): Record<string, ProfilePolicyInput> {
  return Object.fromEntries(Object.entries(allow).flatMap(([profile, rules]) => (rules.network ? [[profile, { allowNetwork: true }]] : [])));
}

/** A policy enforcer for the runtime, with the network permissions of {@link mcpPolicies}. */
export function mcpPolicyEnforcer(allow: McpAllow): PolicyEnforcer {
  return new PolicyEnforcer(mcpPolicies(allow));
}

/**
 * Connect every configured server and register its tools, one after another; with a `cache`,
 * each listing is kept. A server that cannot be reached is registered from its last kept
 * listing, if there is one (its runs resume and replay, and each call connects anew); otherwise,
 * like a server its profile does not allow, it is logged and left out: the host starts without
 * its tools. Tools whose schemas are refused are logged too.
 */
export async function connectMcpServers(
  registry: ToolRegistry,
  settings: McpHostSettings,
  options: McpConnectionOptions & { log: (line: string) => void; cache?: McpListingCache },
): Promise<McpRegistration[]> {
  const registrations: McpRegistration[] = [];
  for (const server of settings.servers) {
    try {
      const registration = await registerMcpServer(registry, server, { ...options, allow: settings.allow[server.profile] });
      registrations.push(registration);
      options.cache?.write(registration.server, registration.listing);
      options.log(`MCP server ${registration.server}: ${registration.tools.length} tool(s) in profile "${registration.profile}"`);
      for (const { tool, error } of registration.rejected)
        options.log(`MCP server ${registration.server}: tool ${tool} left out: ${error.code}: ${error.message}`);
    } catch (error) {
      const failure = toCugarError(error);
      const listing = failure instanceof McpUnavailableError ? options.cache?.read(server.name) : undefined;
      if (!listing) {
        options.log(`MCP server ${server.name} left out: ${failure.code}: ${redactText(failure.message)}`);
        continue;
      }
      const config = McpServerConfigSchema.parse(server);
      const connection = new McpConnection(config, options);
      const { tools, rejected } = registerMcpTools(registry, config, listing, connection);
      registrations.push({ server: config.name, profile: config.profile, tools, rejected, listing, connection, close: () => connection.close() });
      options.log(
        `MCP server ${config.name} is unreachable (${failure.code}): ${tools.length} tool(s) registered from its last listing; each call connects anew`,
      );
    }
  }
  return registrations;
}

/**
 * Register the configured servers' tools from their kept listings without contacting any
 * server: each call connects when a run makes it. For short-lived processes (the CLI's local
 * commands) that must know the tools — to list them, replay their runs, or call them — without
 * starting every server first. A server its profile does not allow, or without a kept listing
 * (never reached by a host on this data directory), is left out.
 */
export function registerKeptMcpServers(
  registry: ToolRegistry,
  settings: McpHostSettings,
  options: McpConnectionOptions & { cache: McpListingCache; log?: (line: string) => void },
): McpRegistration[] {
  const registrations: McpRegistration[] = [];
  for (const server of settings.servers) {
    try {
      const config = McpServerConfigSchema.parse(server);
      checkAllowed(config, settings.allow[config.profile]);
      const listing = options.cache.read(config.name);
      if (!listing) continue;
      const connection = new McpConnection(config, options);
      const { tools, rejected } = registerMcpTools(registry, config, listing, connection);
      registrations.push({ server: config.name, profile: config.profile, tools, rejected, listing, connection, close: () => connection.close() });
    } catch (error) {
      const failure = toCugarError(error);
      options.log?.(`MCP server ${server.name} left out: ${failure.code}: ${redactText(failure.message)}`);
    }
  }
  return registrations;
}
