import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { client as apiClient, unwrap } from './api.ts';

/**
 * Feedback on a run, or on one of its events (a span): good or bad, with a comment. Each token
 * keeps one per run or span (a new one replaces it); it is kept beside the run, not in its journal.
 */
export function FeedbackBox({ token, runId, seq, label }: { token: string; runId: string; seq?: number; label: string }) {
  const client = useQueryClient();
  const param = { runId: encodeURIComponent(runId) };
  const given = useQuery({ queryKey: ['feedback', runId], queryFn: () => unwrap(apiClient(token).v1.runs[':runId'].feedback.$get({ param })) });
  const [comment, setComment] = useState('');
  const send = useMutation({
    mutationFn: (score: number) =>
      unwrap(
        apiClient(token).v1.runs[':runId'].feedback.$post({
          param,
          json: { score, ...(comment.trim() ? { comment: comment.trim() } : {}), ...(seq !== undefined ? { seq } : {}) },
        }),
      ),
    onSuccess: () => {
      setComment('');
      void client.invalidateQueries({ queryKey: ['feedback', runId] });
      void client.invalidateQueries({ queryKey: ['runs'] });
    },
  });
  const mine = (given.data?.feedback ?? []).filter((item) => item.seq === seq);
  const id = `feedback-${seq ?? 'run'}`;
  const submit = (event: FormEvent) => event.preventDefault();
  return (
    <form className="feedback" aria-label={label} onSubmit={submit}>
      <label htmlFor={id}>Comment (optional)</label>
      <input id={id} value={comment} maxLength={2000} onChange={(e) => setComment(e.target.value)} />
      <button type="button" disabled={send.isPending} onClick={() => send.mutate(1)}>
        Good
      </button>
      <button type="button" className="secondary" disabled={send.isPending} onClick={() => send.mutate(-1)}>
        Bad
      </button>
      {send.error ? <p className="bad">{(send.error as Error).message}</p> : null}
      {mine.length ? (
        <ul className="given">
          {mine.map((item) => (
            <li key={item.by}>
              <span className={item.score > 0 ? 'ok' : item.score < 0 ? 'bad' : ''}>{item.score > 0 ? 'good' : item.score < 0 ? 'bad' : 'neutral'}</span>
              {item.comment ? `: ${item.comment}` : ''} <span className="hint">({item.by})</span>
            </li>
          ))}
        </ul>
      ) : null}
    </form>
  );
}
