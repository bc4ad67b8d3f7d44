import { useEffect, useState, type FormEvent } from 'react';
import { localVault } from './localApi.ts';

/**
 * Local mode's vault: credentials the tools of this tab read by name (`context.secret`), kept
 * in this browser only. Values are write-only here: once saved, a value is never shown again.
 */
export default function Secrets() {
  const [names, setNames] = useState<string[] | null>(null);
  const [name, setName] = useState('');
  const [value, setValue] = useState('');
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const refresh = async () => setNames((await localVault()).names());
  useEffect(() => void refresh(), []);

  const save = async (event: FormEvent) => {
    event.preventDefault();
    try {
      await (await localVault()).set(name.trim(), value);
      setMessage({ ok: true, text: `Saved ${name.trim()}.` });
      setName('');
      setValue('');
      await refresh();
    } catch (error) {
      setMessage({ ok: false, text: (error as Error).message });
    }
  };
  const remove = async (secret: string) => {
    await (await localVault()).delete(secret);
    setMessage({ ok: true, text: `Deleted ${secret}.` });
    await refresh();
  };

  return (
    <section className="stack" aria-labelledby="secrets-title">
      <h1 id="secrets-title">Secrets in this browser</h1>
      <p className="muted">
        Tools that declare a secret read it by name while they run. Values stay in this browser&apos;s storage, never enter a journal, and are redacted wherever
        they would appear.
      </p>
      {names === null ? (
        <p role="status">Loading…</p>
      ) : names.length === 0 ? (
        <p>No secrets yet.</p>
      ) : (
        <ul aria-label="Secret names" className="stack">
          {names.map((secret) => (
            <li key={secret}>
              <code>{secret}</code>{' '}
              <button type="button" className="link" onClick={() => void remove(secret)} aria-label={`Delete ${secret}`}>
                Delete
              </button>
            </li>
          ))}
        </ul>
      )}
      <form className="stack" onSubmit={(e) => void save(e)} aria-label="Add a secret">
        <label htmlFor="secret-name">Name</label>
        <input id="secret-name" value={name} onChange={(e) => setName(e.target.value)} placeholder="SLACK_TOKEN" autoComplete="off" spellCheck={false} />
        <label htmlFor="secret-value">Value</label>
        <input id="secret-value" type="password" value={value} onChange={(e) => setValue(e.target.value)} autoComplete="new-password" />
        <div className="actions">
          <button type="submit">Save secret</button>
        </div>
      </form>
      {message ? (
        <p role={message.ok ? 'status' : 'alert'} className={message.ok ? undefined : 'bad'}>
          {message.text}
        </p>
      ) : null}
    </section>
  );
}
