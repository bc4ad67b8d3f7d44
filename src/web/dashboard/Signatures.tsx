import { useQuery } from '@tanstack/react-query';
import { parseJournal } from '../../core/journal/journal.ts';
import { derivedFromOf } from '../../core/journal/redactedJournal.ts';
import type { StoreHeadsVerification } from '../../core/journal/verifyHeads.ts';
import { ApiError, client as apiClient, unwrap } from './api.ts';

/** What this page found with the host's public key, or why it could not check. */
type Check = { keyId: string; result: StoreHeadsVerification } | { unavailable: string };

/**
 * Verify the store's run heads and its log of heads here, with the public key of GET /v1/keys:
 * the host's own audit is not taken on trust, and the page never holds a private key. The
 * curve code loads on first use.
 */
async function checkSignatures(token: string): Promise<Check> {
  const api = apiClient(token);
  const { keys } = await unwrap(api.v1.keys.$get());
  if (keys.length === 0) return { unavailable: 'This host publishes no signing key: its heads are not signed.' };
  let heads;
  try {
    heads = await unwrap(api.v1.audit.heads.$get());
  } catch (error) {
    if (error instanceof ApiError && error.status === 403) return { unavailable: 'Checking signatures here needs a token for every profile.' };
    throw error;
  }
  const [{ verifyHeadSignature, verifyLogHeadSignature }, { verifyStoreHeads }] = await Promise.all([
    import('../../core/signing.ts'),
    import('../../core/journal/verifyHeads.ts'),
  ]);
  const byId = new Map(keys.map((key) => [key.keyId, key.publicKey]));
  const result = verifyStoreHeads(heads, {
    head: (runId, head, signature) => byId.has(signature.keyId) && verifyHeadSignature(runId, head, signature, byId.get(signature.keyId)!),
    log: (head, signature) => byId.has(signature.keyId) && verifyLogHeadSignature(head, signature, byId.get(signature.keyId)!),
  });
  return { keyId: keys.map((key) => key.keyId).join(', '), result };
}

/** An exported journal's source head, and whether this host's public key signed it. */
type ExportCheck = { source?: { runId: string; seq: number }; state: 'signed' | 'unsigned' | 'bad' | 'unchecked' };

/**
 * A redacted export names its source head and carries the host's signature of it
 * (`data.derivedFrom`): check that signature here, with the public key of GET /v1/keys.
 */
async function checkExport(token: string, text: string): Promise<ExportCheck> {
  const derived = derivedFromOf(parseJournal(text));
  if (!derived) return { state: 'unsigned' };
  const source = { runId: derived.runId, seq: derived.head.seq };
  if (!derived.signature) return { source, state: 'unsigned' };
  const { keys } = await unwrap(apiClient(token).v1.keys.$get());
  const key = keys.find((k) => k.keyId === derived.signature!.keyId);
  if (keys.length === 0) return { source, state: 'unchecked' };
  const { verifyHeadSignature } = await import('../../core/signing.ts');
  return { source, state: key && verifyHeadSignature(derived.runId, derived.head, derived.signature, key.publicKey) ? 'signed' : 'bad' };
}

const EXPORT_STATES = {
  signed: 'its source head is signed by this host',
  unsigned: 'it carries no signature of a source head (a raw journal, or one exported before signing)',
  bad: "its source head's signature is not this host's",
  unchecked: 'this host publishes no key to check its signature with',
} as const;

/** Whether an uploaded exported journal's source head is signed by this host, checked in this page. */
export function ExportSignature({ token, name, text }: { token: string; name: string; text: string }) {
  const check = useQuery({ queryKey: ['export-signature', name, text.length, text.slice(-200)], queryFn: () => checkExport(token, text), retry: false });
  if (check.error) return null;
  if (!check.data) return <p>Checking the export's signature…</p>;
  const { source, state } = check.data;
  return (
    <p role="status" data-testid="export-signature" className={state === 'signed' ? 'ok' : state === 'bad' ? 'bad' : undefined}>
      {name}: {state}
      {source ? ` (run ${source.runId} at seq ${source.seq})` : ''} — {EXPORT_STATES[state]}.
    </p>
  );
}

/** The signature state of every run and of the log of heads, checked in this page. */
export function Signatures({ token }: { token: string }) {
  const check = useQuery({ queryKey: ['signatures'], queryFn: () => checkSignatures(token) });
  return (
    <>
      <h2>Signatures</h2>
      <p>
        Checked in this page with the host's public key from <code>GET /v1/keys</code>: each run's signed head, and the signed log of heads that shows runs
        deleted, rolled back or written around the store.
      </p>
      {check.error ? (
        <p role="alert" className="bad">
          {(check.error as Error).message}
        </p>
      ) : !check.data ? (
        <p>Checking signatures…</p>
      ) : 'unavailable' in check.data ? (
        <p role="status">{check.data.unavailable}</p>
      ) : (
        <SignatureTable keyId={check.data.keyId} result={check.data.result} />
      )}
    </>
  );
}

function SignatureTable({ keyId, result }: { keyId: string; result: StoreHeadsVerification }) {
  const { log } = result;
  return (
    <>
      <p role="status" className={log.ok ? 'ok' : 'bad'} data-testid="log-signature">
        Log of heads: {log.signature} ({log.signedSize} of {log.size} entries signed by {keyId}){log.problem ? ` — ${log.problem}` : ''}
      </p>
      {log.predating ? <p>{log.predating} run(s) predate the log of heads: it covers them from the head they had when it started.</p> : null}
      <table>
        <caption>Run heads</caption>
        <thead>
          <tr>
            <th scope="col">Run</th>
            <th scope="col">Status</th>
            <th scope="col">Head</th>
            <th scope="col">Finding</th>
          </tr>
        </thead>
        <tbody>
          {result.runs.map((run) => (
            <tr key={run.runId} data-testid="run-signature">
              <td>
                <a href={`#/runs/${encodeURIComponent(run.runId)}`}>{run.runId}</a>
              </td>
              <td>{run.status ?? 'missing'}</td>
              <td className={run.signature === 'signed' ? 'ok' : run.signature === 'bad' ? 'bad' : undefined}>{run.signature}</td>
              <td className={run.ok ? undefined : 'bad'}>{run.reason ?? '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
