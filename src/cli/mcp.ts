import type { Config } from '../core/index.ts';
import { serveMcpStdio } from '../mcp/stdioServer.ts';
import { localBackend } from './backend.ts';
import type { Output } from './output.ts';

/**
 * `cugar mcp`: serve a profile of the local data directory as an MCP server on stdin and
 * stdout, for Claude Desktop, IDEs and any MCP client that starts servers as processes.
 * Messages go to stderr; stdout carries only the protocol. Returns when the client disconnects.
 */
export async function mcpCommand(values: { 'data-dir'?: string | undefined }, profile: string, config: Config, output: Output): Promise<void> {
  const backend = await localBackend(values['data-dir'] ?? process.env['CUGAR_DATA_DIR'] ?? '.cugar', config);
  try {
    await serveMcpStdio(backend.runtime, profile, { log: (line) => output.err(line) });
  } finally {
    await backend.close();
  }
}
