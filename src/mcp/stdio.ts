import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { StdioLauncher } from './connection.ts';
import { shortText } from './errors.ts';

/** Most stderr lines of one server process passed on to the log; the rest are counted, not kept. */
const MAX_STDERR_LINES = 200;

/**
 * Start stdio MCP servers as child processes (Node): the SDK's safe default environment plus
 * the server's own `env`, stderr read line by line into the host's log (redacted, cut short,
 * at most {@link MAX_STDERR_LINES} lines) so a chatty server can neither block on a full pipe
 * nor flood the log.
 */
export const stdioLauncher: StdioLauncher = (server, log) => {
  const transport = new StdioClientTransport({
    command: server.command,
    args: [...server.args],
    env: server.env,
    ...(server.cwd ? { cwd: server.cwd } : {}),
    stderr: 'pipe',
  });
  let lines = 0;
  let pending = '';
  transport.stderr?.on('data', (chunk: Buffer | string) => {
    pending += chunk.toString();
    const parts = pending.split('\n');
    pending = parts.pop() ?? '';
    if (pending.length > 4096) pending = pending.slice(0, 4096);
    for (const line of parts) {
      lines++;
      if (lines <= MAX_STDERR_LINES && line.trim()) log(`MCP server ${server.name}: ${shortText(line)}`);
      else if (lines === MAX_STDERR_LINES + 1) log(`MCP server ${server.name}: further stderr is dropped`);
    }
  });
  return transport;
};
