import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const execute = promisify(execFile);
const root = join(import.meta.dirname, '..', '..');

/** What a `cugar` process did: its exit code and its output. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Run the real `cugar` command (src/cli/bin.mjs) as its own process, without colour, and never throw on a non-zero exit. */
export async function runCugar(args: readonly string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<CliResult> {
  try {
    const { stdout, stderr } = await execute(process.execPath, [join(root, 'src/cli/bin.mjs'), ...args], {
      cwd: options.cwd ?? root,
      env: { ...process.env, NO_COLOR: '1', ...options.env },
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}
