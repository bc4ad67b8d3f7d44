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

/**
 * Housekeeping: delete a finished run's journal, saying first what that means for the audit
 * (the Node host keeps the run's final head in its signed log of heads; other hosts keep every journal).
 */
export function DeleteRun({ token, runId }: { token: string; runId: string }) {
  const client = useQueryClient();
  const remove = useMutation({
    mutationFn: () => unwrap(apiClient(token).v1.runs[':runId'].$delete({ param: { runId: encodeURIComponent(runId) } })),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: ['runs'] });
      location.hash = '#/runs';
    },
  });
  return (
    <details className="housekeeping">
      <summary>Delete this run</summary>
      <p>
        Deleting removes the run&apos;s journal from this host for good: its events, inputs and outputs. The signed log of heads keeps the run&apos;s id and
        final hash, so an audit shows it as deleted on purpose (not tampered with), and a copy exported before still verifies against that head. Spending stays
        counted in the profile&apos;s budget.
      </p>
      <button type="button" className="danger" disabled={remove.isPending} onClick={() => remove.mutate()}>
        Delete the run&apos;s journal
      </button>
      {remove.error ? (
        <p role="alert" className="bad">
          {(remove.error as Error).message}
        </p>
      ) : null}
    </details>
  );
}
