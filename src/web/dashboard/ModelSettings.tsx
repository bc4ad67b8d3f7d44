import { useState, type FormEvent } from 'react';
import { MODEL_IDS_KEY, MODEL_KEY_SECRET, MODEL_URL_KEY, localVault } from './localApi.ts';

/**
 * Local mode's model: an OpenAI-compatible endpoint (a local Ollama, say) that this tab's agent
 * runs call directly, with no CUGAr server. The endpoint and model ids stay in this browser's
 * storage, the key in its vault (never shown again); a reload applies them.
 */
export default function ModelSettings() {
  const [url, setUrl] = useState(() => localStorage.getItem(MODEL_URL_KEY) ?? '');
  const [ids, setIds] = useState(() => localStorage.getItem(MODEL_IDS_KEY) ?? '');
  const [key, setKey] = useState('');
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);

  const save = async (event: FormEvent) => {
    event.preventDefault();
    try {
      if (url.trim() && !/^https?:\/\//.test(url.trim())) throw new Error('The endpoint is an http(s) URL, like http://127.0.0.1:11434/v1');
      if (url.trim()) localStorage.setItem(MODEL_URL_KEY, url.trim());
      else localStorage.removeItem(MODEL_URL_KEY);
      if (ids.trim()) localStorage.setItem(MODEL_IDS_KEY, ids.trim());
      else localStorage.removeItem(MODEL_IDS_KEY);
      if (key) await (await localVault()).set(MODEL_KEY_SECRET, key);
      setKey('');
      setMessage({ ok: true, text: url.trim() ? 'Saved. Reload the page to use this model.' : 'No model: runs use the lexical planner after a reload.' });
    } catch (error) {
      setMessage({ ok: false, text: (error as Error).message });
    }
  };

  return (
    <section className="stack" aria-labelledby="model-title">
      <h1 id="model-title">Model in this browser</h1>
      <p className="muted">
        With a model, a goal run in this tab is an agent run: the model calls the profile&apos;s tools until it answers. The endpoint must allow this
        page&apos;s origin (Ollama: <code>OLLAMA_ORIGINS</code>).
      </p>
      <form className="stack" onSubmit={(e) => void save(e)} aria-label="Model settings">
        <label htmlFor="model-url">Endpoint (OpenAI-compatible)</label>
        <input id="model-url" value={url} onChange={(e) => setUrl(e.target.value)} placeholder="http://127.0.0.1:11434/v1" spellCheck={false} />
        <label htmlFor="model-ids">Models, in fallback order</label>
        <input id="model-ids" value={ids} onChange={(e) => setIds(e.target.value)} placeholder="llama3.2, qwen2.5" spellCheck={false} />
        <label htmlFor="model-key">API key (optional; kept in this browser&apos;s vault, never shown again)</label>
        <input id="model-key" type="password" value={key} onChange={(e) => setKey(e.target.value)} autoComplete="off" />
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
