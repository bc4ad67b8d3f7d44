import type { TokenMap } from './security.ts';

/** Parse `token=profile1,profile2;other=*` (tokens of 16+ characters). */
export function parseTokenMap(text: string | undefined): TokenMap {
  const tokens: TokenMap = {};
  for (const entry of (text ?? '')
    .split(';')
    .map((e) => e.trim())
    .filter(Boolean)) {
    const [token, profiles] = entry.split('=');
    if (!token || token.length < 16) throw new Error('each token must be at least 16 characters');
    tokens[token] =
      !profiles || profiles.trim() === '*'
        ? '*'
        : profiles
            .split(',')
            .map((p) => p.trim())
            .filter(Boolean);
  }
  return tokens;
}
