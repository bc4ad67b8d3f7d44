import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { client as apiClient, unwrap } from './api.ts';

interface Note {
  id: string;
  text: string;
  score?: number;
  source?: string;
  timestamp?: string;
}

/** The profile's ingested documents, each with a delete button. */
export function DocumentList({ token, profile }: { token: string; profile: string }) {
  const client = useQueryClient();
  const documents = useQuery({
    queryKey: ['documents', profile],
    queryFn: () => unwrap(apiClient(token).v1.documents.$get({ query: { profile } })),
  });
  const remove = useMutation({
    mutationFn: (path: string) => unwrap(apiClient(token).v1.documents.$delete({ query: { profile, path } })),
    onSuccess: () => void client.invalidateQueries({ queryKey: ['documents', profile] }),
  });
  if (documents.error)
    return (
      <p role="alert" className="bad">
        {(documents.error as Error).message}
      </p>
    );
  if (!documents.data) return <p role="status">Loading…</p>;
  if (documents.data.documents.length === 0)
    return <p>No documents in {profile} yet: ingest some above. Questions to the documents (rag_query) fail until there are some.</p>;
  return (
    <>
      <table className="documents">
        <caption className="hint">Deleting a document takes it out of retrieval; runs that read it keep what they read in their journals.</caption>
        <thead>
          <tr>
            <th scope="col">Path</th>
            <th scope="col">Chunks</th>
            <th scope="col">Characters</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {documents.data.documents.map((document) => (
            <tr key={document.path}>
              <td>
                <code>{document.path}</code>
              </td>
              <td>{document.chunks}</td>
              <td>{document.characters.toLocaleString('en')}</td>
              <td>
                <button type="button" className="link" disabled={remove.isPending} onClick={() => remove.mutate(document.path)}>
                  Delete <span className="visually-hidden">{document.path}</span>
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {remove.error ? (
        <p role="alert" className="bad">
          {(remove.error as Error).message}
        </p>
      ) : null}
    </>
  );
}

/** Notes kept in memory (by `remember` or tools that keep what they read): newest first, or the closest to `query`. */
export function NoteList({ token, profile, query }: { token: string; profile: string; query: string }) {
  const client = useQueryClient();
  const notes = useQuery({
    queryKey: ['notes', profile, query],
    queryFn: (): Promise<{ notes: Note[] }> =>
      unwrap(apiClient(token).v1.memory.notes.$get({ query: { profile, limit: '50', ...(query ? { q: query } : {}) } })),
  });
  const forget = useMutation({
    mutationFn: (id: string) => unwrap(apiClient(token).v1.memory.notes[':noteId'].$delete({ param: { noteId: encodeURIComponent(id) }, query: { profile } })),
    onSuccess: () => void client.invalidateQueries({ queryKey: ['notes', profile] }),
  });
  if (notes.error)
    return (
      <p role="alert" className="bad">
        {(notes.error as Error).message}
      </p>
    );
  if (!notes.data) return <p role="status">Loading…</p>;
  if (notes.data.notes.length === 0)
    return <p>{query ? 'No note is close to the question.' : 'No notes yet: a run that remembers something keeps it here.'}</p>;
  return (
    <ul className="notes">
      {notes.data.notes.map((note) => (
        <li key={note.id}>
          <span>{note.text}</span>{' '}
          <span className="hint">
            {note.source ? `by ${note.source}` : ''}
            {note.timestamp ? ` · ${note.timestamp}` : ''}
            {note.score !== undefined ? ` · score ${note.score}` : ''}
          </span>{' '}
          <button type="button" className="link" disabled={forget.isPending} onClick={() => forget.mutate(note.id)}>
            Forget <span className="visually-hidden">{note.text.slice(0, 40)}</span>
          </button>
        </li>
      ))}
    </ul>
  );
}
