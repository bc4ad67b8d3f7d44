import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Runtime } from '../api/runtime.ts';
import { createMcpServer } from './server.ts';

/** How often `cugar mcp` reads the tool versions again, ms. */
export const TOOL_VERSION_REFRESH_MS = 2000;

/**
 * Serve one profile of `runtime` as an MCP server on this process's stdin and stdout
 * (`cugar mcp`). Resolves when the client closes the connection (stdin ends). Nothing else
 * may write to stdout meanwhile: logs go to stderr.
 */
export async function serveMcpStdio(
  runtime: Runtime,
  profile: string,
  options: { log?: (line: string) => void; waitSeconds?: number; refreshMs?: number } = {},
): Promise<void> {
  // A stdio connection lasts: approvals are asked of the person at the client when it can ask.
  const server = createMcpServer(
    {
      runtime,
      profile,
      ...(options.log ? { log: options.log } : {}),
      ...(options.waitSeconds !== undefined ? { waitSeconds: options.waitSeconds } : {}),
    },
    { elicitApprovals: true, toolListChanges: runtime.toolVersions !== undefined },
  );
  // Tool versions are decided elsewhere too (the dashboard of a `cugar serve` on the same data):
  // the store is read again every few seconds, and a change of the active versions, here or
  // there, is a `notifications/tools/list_changed`.
  const versions = runtime.toolVersions;
  const stop = versions?.onActiveChange((changed) => {
    if (changed === profile) void server.sendToolListChanged().catch(() => undefined);
  });
  const refresh = versions ? setInterval(() => void versions.refresh(profile).catch(() => undefined), options.refreshMs ?? TOOL_VERSION_REFRESH_MS) : undefined;
  refresh?.unref();
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
  });
  await server.connect(transport);
  await closed;
  clearInterval(refresh);
  stop?.();
  await server.close().catch(() => undefined);
}
