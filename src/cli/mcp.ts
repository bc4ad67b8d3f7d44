import { join, resolve } from 'node:path';
import { envSecrets, type Config } from '../core/index.ts';
import { connectMcpServers, mcpPolicyEnforcer, mcpSettingsFromEnv } from '../mcp/hostSetup.ts';
import { fileListingCache } from '../mcp/listingCache.ts';
import { stdioLauncher } from '../mcp/stdio.ts';
import { serveMcpStdio } from '../mcp/stdioServer.ts';
import { localBackend } from './backend.ts';
import type { HostSettings } from './hostConfig.ts';
import type { Output } from './output.ts';

/**
 * `cugar mcp`: serve a profile of the local data directory as an MCP server on stdin and
 * stdout, for Claude Desktop, IDEs and any MCP client that starts servers as processes.
 * The MCP servers of `CUGAR_MCP_SERVERS` join their profiles first, as on the Node host, so
 * their tools are served behind CUGAr's policy, approvals, budgets and journal. Messages go
 * to stderr; stdout carries only the protocol. Returns when the client disconnects.
 */
export async function mcpCommand(
  values: { 'data-dir'?: string | undefined },
  profile: string,
  config: Config,
  output: Output,
  settings?: HostSettings,
): Promise<void> {
  const mcp = settings?.mcp ?? mcpSettingsFromEnv(process.env);
  const dataDir = values['data-dir'] ?? process.env['CUGAR_DATA_DIR'] ?? '.cugar';
  // The servers are connected below (and their listings kept), not taken from the last listings.
  const backend = await localBackend(dataDir, config, { policy: mcpPolicyEnforcer(mcp.allow), mcp: 'none', ...(settings ? { settings } : {}) });
  const log = (line: string) => output.err(line);
  const servers = await connectMcpServers(backend.runtime.registry, mcp, {
    secrets: settings?.secrets ?? envSecrets(process.env),
    stdio: stdioLauncher,
    log,
    cache: fileListingCache(join(resolve(dataDir), 'mcp')),
  });
  try {
    await serveMcpStdio(backend.runtime, profile, { log });
  } finally {
    await Promise.all(servers.map((server) => server.close()));
    await backend.close();
  }
}
