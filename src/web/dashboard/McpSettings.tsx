import { useState, type FormEvent } from 'react';
import { ZodError } from 'zod';
import { localMcpLog, localMcpServers, saveLocalMcpServers } from './mcpLocal.ts';

/**
 * Local mode's MCP servers: Streamable HTTP servers this tab connects to itself, registering
 * their tools into a profile (as `<server>_<tool>`). Calls go from this browser to the server,
 * which must allow this page's origin (CORS). The list stays in this browser; a reload connects.
 */
export default function McpSettings() {
  const [servers, setServers] = useState(() => localMcpServers().servers);
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [profile, setProfile] = useState('demo');
  const [header, setHeader] = useState('');
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);

  const keep = (next: unknown[], text: string) => {
    try {
      saveLocalMcpServers(next);
      setServers(localMcpServers().servers);
      setMessage({ ok: true, text });
      return true;
    } catch (error) {
      const issues = error instanceof ZodError ? error.issues.map((i) => `${i.path.slice(1).join('.') || 'server'}: ${i.message}`).join('; ') : null;
      setMessage({ ok: false, text: issues ?? (error as Error).message });
      return false;
    }
  };
  const add = (event: FormEvent) => {
    event.preventDefault();
    const headers = header.trim() ? { Authorization: header.trim() } : {};
    const server = { name: name.trim(), profile: profile.trim(), transport: { type: 'http', url: url.trim(), headers } };
    if (keep([...servers, server], `Added ${server.name}. Reload the page to connect it.`)) {
      setName('');
      setUrl('');
      setHeader('');
    }
  };

  return (
    <section className="stack" aria-labelledby="mcp-title">
      <h1 id="mcp-title">MCP servers in this browser</h1>
      <p className="muted">
        Tools of MCP servers over Streamable HTTP, called from this tab by its runs. The server must allow this page&apos;s origin (CORS); a header may name a
        secret of this browser&apos;s vault as <code>{'${NAME}'}</code>.
      </p>
      {servers.length ? (
        <table aria-label="Configured MCP servers">
          <thead>
            <tr>
              <th scope="col">Server</th>
              <th scope="col">Profile</th>
              <th scope="col">URL</th>
            </tr>
          </thead>
          <tbody>
            {servers.map((server) => (
              <tr key={server.name}>
                <td>
                  <code>{server.name}</code>
                  <br />
                  <button
                    type="button"
                    className="link"
                    onClick={() =>
                      keep(
                        servers.filter((s) => s.name !== server.name),
                        `Removed ${server.name}. Reload the page to let it go.`,
                      )
                    }
                  >
                    Remove {server.name}
                  </button>
                </td>
                <td>{server.profile}</td>
                <td className="wrap-anywhere">
                  <code>{server.transport.url}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p>No MCP server yet.</p>
      )}
      <form className="stack" onSubmit={add} aria-label="Add an MCP server">
        <label htmlFor="mcp-name">Name (lowercase letters, digits, _)</label>
        <input id="mcp-name" value={name} onChange={(e) => setName(e.target.value)} placeholder="github" spellCheck={false} required />
        <label htmlFor="mcp-url">URL (Streamable HTTP)</label>
        <input id="mcp-url" value={url} onChange={(e) => setUrl(e.target.value)} placeholder="http://127.0.0.1:3001/mcp" spellCheck={false} required />
        <label htmlFor="mcp-profile">Profile its tools join</label>
        <input id="mcp-profile" value={profile} onChange={(e) => setProfile(e.target.value)} spellCheck={false} required />
        <label htmlFor="mcp-header">Authorization header (optional)</label>
        <input id="mcp-header" value={header} onChange={(e) => setHeader(e.target.value)} placeholder={'Bearer ${GITHUB_TOKEN}'} spellCheck={false} />
        <button type="submit">Add server</button>
      </form>
      {message ? (
        <p role="status" className={message.ok ? 'ok' : 'bad'}>
          {message.text}
        </p>
      ) : null}
      {localMcpLog.length ? (
        <section aria-labelledby="mcp-log-title">
          <h2 id="mcp-log-title">When this tab connected</h2>
          <ul>
            {localMcpLog.map((line, i) => (
              <li key={`${i}:${line}`}>{line}</li>
            ))}
          </ul>
        </section>
      ) : null}
    </section>
  );
}
