import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
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

/**
 * The loopback host's local token: `<dataDir>/local-token`, made on first start (owner-only
 * permissions) and kept, so a restart, a new tab or a saved deep link still signs in. Delete the
 * file to make a new one at the next start. A file that holds no usable token is replaced.
 */
export function hostLocalToken(dataDir: string, log: (line: string) => void): string {
  const file = join(dataDir, 'local-token');
  const usable = (text: string) => /^[0-9a-f]{32,128}$/.test(text);
  if (existsSync(file)) {
    const kept = readFileSync(file, 'utf8').trim();
    if (usable(kept)) return kept;
    log(`${file} holds no usable token; making a new one`);
  }
  const token = randomBytes(24).toString('hex');
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  return token;
}
