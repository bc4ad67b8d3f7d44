import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Runtime } from '../api/runtime.ts';
import { createMcpServer } from './server.ts';

/**
 * Serve one profile of `runtime` as an MCP server on this process's stdin and stdout
 * (`cugar mcp`). Resolves when the client closes the connection (stdin ends). Nothing else
 * may write to stdout meanwhile: logs go to stderr.
 */
export async function serveMcpStdio(runtime: Runtime, profile: string, options: { log?: (line: string) => void; waitSeconds?: number } = {}): Promise<void> {
  const server = createMcpServer({
    runtime,
    profile,
    ...(options.log ? { log: options.log } : {}),
    ...(options.waitSeconds !== undefined ? { waitSeconds: options.waitSeconds } : {}),
  });
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
  });
  await server.connect(transport);
  await closed;
  await server.close().catch(() => undefined);
}
