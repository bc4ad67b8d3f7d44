import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateSigningKey } from '../core/signing.ts';

/**
 * The host's head-signing key: `CUGAR_SIGNING_KEY` when set, else `<dataDir>/host.key`, made on
 * first use (owner-only permissions). The file lives beside the database, not in it; keeping
 * the key somewhere else entirely (a secret store, through `CUGAR_SIGNING_KEY`) is what makes
 * rewriting the database alone detectable. The Node host and the CLI's local commands share it,
 * so runs made either way are signed by the same key.
 */
export function hostSigningKey(dataDir: string, log: (line: string) => void, env: Readonly<Record<string, string | undefined>> = process.env): string {
  const configured = env['CUGAR_SIGNING_KEY']?.trim();
  if (configured) return configured;
  const file = join(dataDir, 'host.key');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const key = generateSigningKey();
  try {
    writeFileSync(file, `${key}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    // Another process starting on the same directory made it first: use theirs.
    if ((error as { code?: string }).code === 'EEXIST') return readFileSync(file, 'utf8').trim();
    throw error;
  }
  log(`made a head-signing key in ${file}`);
  return key;
}
