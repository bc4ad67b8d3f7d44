import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type DragEvent, type FormEvent } from 'react';
import { client as apiClient, readEvents, unwrap } from './api.ts';
import { DocumentList, NoteList } from './MemoryLists.tsx';

interface Hit {
  path: string;
  chunk: number;
  score: number;
  snippet: string;
  matched: string[];
}

interface Fact {
  id: string;
  namespace: string;
  key?: string;
  value: unknown;
  timestamp: string;
}

function Highlighted({ text, words }: { text: string; words: string[] }) {
  if (words.length === 0) return <>{text}</>;
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}])(${words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})(?![\\p{L}\\p{N}])`, 'giu');
  const parts = text.split(pattern);
  return <>{parts.map((part, i) => (i % 2 === 1 ? <mark key={i}>{part}</mark> : <span key={i}>{part}</span>))}</>;
}

export function Memory({ token, profile }: { token: string; profile: string }) {
  const client = useQueryClient();
  const [progress, setProgress] = useState<{ done: number; total: number; path: string } | null>(null);
  const [report, setReport] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [query, setQuery] = useState('');
  // The question last searched: the documents' passages and the notes closest to it.
  const [asked, setAsked] = useState('');
  const search = useMutation({
    mutationFn: (q: string): Promise<{ hits: Hit[] }> => unwrap(apiClient(token).v1.query.$post({ json: { profile, query: q, k: 5 } })),
  });
  const facts = useQuery({
    queryKey: ['facts', profile],
    queryFn: (): Promise<{ facts: Fact[]; namespaces: string[] }> => unwrap(apiClient(token).v1.memory.facts.$get({ query: { profile, limit: '100' } })),
  });

  const ingest = async (files: FileList | null) => {
    if (!files || files.length === 0) return;
    setError(null);
    setReport(null);
    const documents = await Promise.all([...files].map(async (file) => ({ path: file.name, text: await file.text() })));
    setProgress({ done: 0, total: documents.length, path: '' });
    // Progress arrives as server-sent events, in both modes.
    const response = await apiClient(token).v1.ingest.$post({ json: { profile, documents } }, { headers: { accept: 'text/event-stream' } });
    if (!response.ok) {
      const payload = (await response.json().catch(() => ({}))) as { error?: { message?: string } };
      setError(payload.error?.message ?? `HTTP ${response.status}`);
      setProgress(null);
      return;
    }
    await readEvents(response, ({ event, data }) => {
      if (event === 'progress') setProgress(JSON.parse(data) as { done: number; total: number; path: string });
      if (event === 'done') {
        const r = JSON.parse(data) as { documents: number; chunks: number };
        setReport(`Ingested ${r.documents} document(s) as ${r.chunks} chunk(s).`);
      }
      if (event === 'error') setError((JSON.parse(data) as { error: { message: string } }).error.message);
    });
    void client.invalidateQueries({ queryKey: ['facts'] });
    void client.invalidateQueries({ queryKey: ['documents', profile] });
  };
  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    void ingest(event.dataTransfer.files);
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (query.trim()) {
      search.mutate(query.trim());
      setAsked(query.trim());
    }
  };
  return (
    <section aria-labelledby="memory-title">
      <h1 id="memory-title">Memory &amp; documents of {profile}</h1>
      <h2>Ingest</h2>
      <div className="dropzone" onDragOver={(e) => e.preventDefault()} onDrop={onDrop}>
        <label htmlFor="ingest-files">Documents (.txt, .md, .html, .json), or drop them here</label>
        <input id="ingest-files" type="file" multiple accept=".txt,.md,.markdown,.html,.htm,.json" onChange={(e) => void ingest(e.target.files)} />
      </div>
      {progress ? (
        <p>
          <label htmlFor="ingest-progress">Ingest progress</label> <progress id="ingest-progress" max={progress.total} value={progress.done} /> {progress.done}/
          {progress.total} {progress.path}
        </p>
      ) : null}
      {report ? (
        <p role="status" className="ok">
          {report}
        </p>
      ) : null}
      {error ? (
        <p role="alert" className="bad">
          {error}
        </p>
      ) : null}

      <h2>Documents</h2>
      <DocumentList token={token} profile={profile} />

      <h2>Search</h2>
      <form onSubmit={submit} className="actions">
        <label htmlFor="memory-query">Question</label>
        <input id="memory-query" type="search" value={query} onChange={(e) => setQuery(e.target.value)} />
        <button type="submit">Search</button>
      </form>
      {search.data ? (
        search.data.hits.length === 0 ? (
          <p>No passage of the documents matches.</p>
        ) : (
          <ol className="hits">
            {search.data.hits.map((hit) => (
              <li key={`${hit.path}#${hit.chunk}`}>
                <strong>{hit.path}</strong>{' '}
                <span className="hint">
                  #{hit.chunk} · score {hit.score.toFixed(4)}
                </span>
                <p>
                  <Highlighted text={hit.snippet} words={hit.matched} />
                </p>
              </li>
            ))}
          </ol>
        )
      ) : null}

      <h2>{asked ? 'Notes closest to the question' : 'Notes'}</h2>
      <NoteList token={token} profile={profile} query={asked} />

      <h2>Facts by namespace</h2>
      {facts.data?.namespaces.length === 0 ? <p>No facts yet.</p> : null}
      {facts.data?.namespaces.map((namespace) => (
        <details key={namespace}>
          <summary>{namespace}</summary>
          <ul>
            {facts.data.facts
              .filter((f) => f.namespace === namespace)
              .map((f) => (
                <li key={f.id}>
                  <time dateTime={f.timestamp}>{f.timestamp}</time> {f.key ? <code>{f.key}</code> : null} <code>{JSON.stringify(f.value)}</code>
                </li>
              ))}
          </ul>
        </details>
      ))}
    </section>
  );
}
