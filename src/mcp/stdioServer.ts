import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Runtime } from '../api/runtime.ts';
import { createMcpServer } from './server.ts';

/**
 * Serve one profile of `runtime` as an MCP server on this process's stdin and stdout
 * (`cugar mcp`). Resolves when the client closes the connection (stdin ends). Nothing else
 * may write to stdout meanwhile: logs go to stderr.
 */
export async function serveMcpStdio(runtime: Runtime, profile: string, options: { log?: (line: string) => void; waitSeconds?: number } = {}): Promise<void> {
  // A stdio connection lasts: approvals are asked of the person at the client when it can ask.
  const server = createMcpServer(
    {
      runtime,
      profile,
      ...(options.log ? { log: options.log } : {}),
      ...(options.waitSeconds !== undefined ? { waitSeconds: options.waitSeconds } : {}),
    },
    { elicitApprovals: true },
  );
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
  });
  await server.connect(transport);
  await closed;
  await server.close().catch(() => undefined);
}
