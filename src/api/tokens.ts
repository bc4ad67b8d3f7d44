import type { TokenMap } from './security.ts';

/**
 * Parse `token=profile1,profile2;other=*`, each optionally followed by `|scope,scope`
 * (`admin-token=*|journal:raw`). Tokens are at least 16 characters.
 */
export function parseTokenMap(text: string | undefined): TokenMap {
  const tokens: TokenMap = {};
  for (const entry of (text ?? '')
    .split(';')
    .map((e) => e.trim())
    .filter(Boolean)) {
    const [token, grant = ''] = entry.split('=');
    if (!token || token.length < 16) throw new Error('each token must be at least 16 characters');
    const [profileText = '', scopeText] = grant.split('|');
    const list = (items: string) =>
      items
        .split(',')
        .map((p) => p.trim())
        .filter(Boolean);
    const profiles = profileText.trim() === '' || profileText.trim() === '*' ? '*' : list(profileText);
    tokens[token] = scopeText === undefined ? profiles : { profiles, scopes: list(scopeText) };
  }
  return tokens;
}
