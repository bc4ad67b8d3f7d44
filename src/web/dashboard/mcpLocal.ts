// Local mode's MCP servers: Streamable HTTP servers whose tools this tab registers into its own
// runtime, so runs in the browser call them directly (no CUGAr server). The list is kept in this
// browser's storage; header values may name secrets of the tab's vault as `${NAME}`.
import * as z from 'zod';
import { ProfileNameSchema, type Secrets, type ToolRegistry } from '../../core/index.ts';
import { McpHttpTransportSchema, McpServerNameSchema, type McpServerConfigInput } from '../../mcp/config.ts';
import type { connectMcpServers } from '../../mcp/hostSetup.ts';
import type { McpToolListing } from '../../mcp/register.ts';

/** Where this tab keeps its MCP servers. */
export const MCP_SERVERS_KEY = 'cugar.mcp.servers';
const LISTING_PREFIX = 'cugar.mcp.listing.';

/** One server as the MCP page adds it: a name, the profile its tools join, and where it listens. */
export const LocalMcpServerSchema = z
  .object({
    name: McpServerNameSchema,
    profile: ProfileNameSchema,
    transport: McpHttpTransportSchema,
  })
  .strict();
export type LocalMcpServer = z.output<typeof LocalMcpServerSchema>;

/** The servers this tab keeps; an entry that no longer parses is left out (and named in `invalid`). */
export function localMcpServers(): { servers: LocalMcpServer[]; invalid: string[] } {
  let stored: unknown = [];
  try {
    stored = JSON.parse(localStorage.getItem(MCP_SERVERS_KEY) ?? '[]');
  } catch {
    return { servers: [], invalid: ['the stored list is not JSON'] };
  }
  const servers: LocalMcpServer[] = [];
  const invalid: string[] = [];
  for (const entry of Array.isArray(stored) ? stored : []) {
    const parsed = LocalMcpServerSchema.safeParse(entry);
    if (parsed.success) servers.push(parsed.data);
    else invalid.push(String((entry as { name?: unknown } | null)?.name ?? 'an entry'));
  }
  return { servers, invalid };
}

/** Keep `servers` as this tab's list (checked first: a bad entry throws a `ZodError` and nothing changes). */
export function saveLocalMcpServers(servers: readonly unknown[]): void {
  const checked = z.array(LocalMcpServerSchema).parse(servers);
  const names = new Set(checked.map((s) => s.name));
  if (names.size !== checked.length) throw new Error('Each MCP server needs a name of its own');
  localStorage.setItem(MCP_SERVERS_KEY, JSON.stringify(checked));
}

/** Listings kept in this browser, so a tab whose server is down still lists, replays and resumes its tools. */
const storageListingCache: NonNullable<Parameters<typeof connectMcpServers>[2]['cache']> = {
  read: (server) => {
    const text = localStorage.getItem(LISTING_PREFIX + server);
    return text ? (JSON.parse(text) as McpToolListing[]) : undefined;
  },
  write: (server, listing) => localStorage.setItem(LISTING_PREFIX + server, JSON.stringify(listing)),
};

/** What connecting the tab's servers said, for the MCP page: one line per server. */
export const localMcpLog: string[] = [];

/**
 * Connect this tab's servers and register their tools (the MCP client is loaded only when there
 * are servers). Each profile that has a server is allowed the network for it: adding a server
 * in one's own tab is that permission. A server that cannot be reached is registered from its
 * kept listing, else left out; the tab goes on without it.
 */
export async function connectLocalMcp(registry: ToolRegistry, secrets: Secrets): Promise<void> {
  const { servers, invalid } = localMcpServers();
  for (const name of invalid) localMcpLog.push(`MCP server ${name} left out: its stored settings are not valid`);
  if (servers.length === 0) return;
  const { connectMcpServers } = await import('../../mcp/hostSetup.ts');
  await connectMcpServers(registry, mcpSettingsOf(servers), { secrets, cache: storageListingCache, log: (line) => localMcpLog.push(line) });
}

/** The host settings of the tab's servers: each server's profile may use the network. */
export function mcpSettingsOf(servers: readonly LocalMcpServer[]): {
  servers: McpServerConfigInput[];
  allow: Record<string, { network: boolean; commands: string[] }>;
} {
  return { servers: [...servers], allow: Object.fromEntries(servers.map((s) => [s.profile, { network: true, commands: [] }])) };
}
