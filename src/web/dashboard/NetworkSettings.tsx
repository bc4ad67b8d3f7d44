import { useState, type FormEvent } from 'react';
import { NETWORK_ALLOW_KEY, NETWORK_PROFILES_KEY, SEARXNG_URL_KEY } from './webToolsLocal.ts';

const PROFILE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/**
 * Local mode's network: which profiles' tools may reach the network from this tab
 * (`internet_extract`, the tab's SearXNG), which private hosts or ranges they may reach anyway,
 * and an optional SearXNG endpoint. Kept in this browser's storage; a reload applies them.
 */
export default function NetworkSettings() {
  const [profiles, setProfiles] = useState(() => localStorage.getItem(NETWORK_PROFILES_KEY) ?? '');
  const [allow, setAllow] = useState(() => localStorage.getItem(NETWORK_ALLOW_KEY) ?? '');
  const [searxng, setSearxng] = useState(() => localStorage.getItem(SEARXNG_URL_KEY) ?? '');
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);

  const save = (event: FormEvent) => {
    event.preventDefault();
    try {
      const names = profiles
        .split(',')
        .map((p) => p.trim())
        .filter(Boolean);
      const bad = names.find((name) => !PROFILE.test(name));
      if (bad) throw new Error(`"${bad}" is not a profile name (letters, digits, "_" and "-")`);
      if (searxng.trim() && !/^https?:\/\/\S+$/.test(searxng.trim())) throw new Error('The SearXNG endpoint is an http(s) URL');
      const keep = (key: string, value: string) => (value ? localStorage.setItem(key, value) : localStorage.removeItem(key));
      keep(NETWORK_PROFILES_KEY, names.join(','));
      keep(NETWORK_ALLOW_KEY, allow.trim());
      keep(SEARXNG_URL_KEY, searxng.trim());
      setMessage({ ok: true, text: 'Saved. Reload the page to apply.' });
    } catch (error) {
      setMessage({ ok: false, text: (error as Error).message });
    }
  };

  return (
    <section className="stack" aria-labelledby="network-title">
      <h1 id="network-title">Network from this browser</h1>
      <p className="muted">
        <code>web_search</code> searches the documents ingested in this tab. A profile listed here may also use the network: <code>internet_extract</code>{' '}
        fetches pages, and <code>web_search</code> asks the SearXNG endpoint below. A tab cannot see the address a name resolves to: only the URL is checked (no{' '}
        <code>localhost</code>, private, loopback, link-local or metadata address unless allowed below), a page must allow this origin (CORS), and redirects are
        refused because the browser hides their target.
      </p>
      <form className="stack" onSubmit={save} aria-label="Network settings">
        <label htmlFor="network-profiles">Profiles that may use the network</label>
        <input id="network-profiles" value={profiles} onChange={(e) => setProfiles(e.target.value)} placeholder="demo" spellCheck={false} />
        <label htmlFor="network-allow">Private hosts and ranges they may reach anyway</label>
        <input id="network-allow" value={allow} onChange={(e) => setAllow(e.target.value)} placeholder="127.0.0.1/32, intranet.example" spellCheck={false} />
        <label htmlFor="network-searxng">SearXNG endpoint (optional)</label>
        <input id="network-searxng" value={searxng} onChange={(e) => setSearxng(e.target.value)} placeholder="http://127.0.0.1:8888" spellCheck={false} />
        <button type="submit">Save</button>
      </form>
      {message ? (
        <p role="status" className={message.ok ? 'ok' : 'bad'}>
          {message.text}
        </p>
      ) : null}
    </section>
  );
}
