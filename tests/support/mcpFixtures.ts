import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const root = join(import.meta.dirname, '..', '..');

/** The reference server's stdio entry, run with this Node. */
export const EVERYTHING = join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
/** The misbehaving server (tests/support/mcpOddServer.mjs). */
export const ODD = join(root, 'tests/support/mcpOddServer.mjs');

/** A loopback HTTP server started as a child process. */
export interface HttpChild {
  url: string;
  child: ChildProcess;
  /** Stop it with SIGKILL and wait until it is gone. */
  kill(): Promise<void>;
}

/** Start the reference server over Streamable HTTP on 127.0.0.1 (tests/support/mcpEverythingHttp.mjs). */
export async function startEverythingHttp(env: Record<string, string> = {}): Promise<HttpChild> {
  const child = spawn(process.execPath, [join(root, 'tests/support/mcpEverythingHttp.mjs')], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const lines = createInterface({ input: child.stdout! });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the MCP HTTP fixture did not start')), 20_000);
    lines.once('line', (line) => {
      clearTimeout(timer);
      resolve((JSON.parse(line) as { port: number }).port);
    });
    child.once('exit', (code) => reject(new Error(`the MCP HTTP fixture exited with ${code}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    child,
    kill: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
  };
}
