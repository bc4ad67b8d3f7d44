import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, type RunOutcome } from './api.ts';

interface Tool {
  name: string;
  description: string;
  cost: number;
  latency: number;
  capabilities: string[];
  allowNetwork: boolean;
  idempotent: boolean;
  requiresApproval: boolean;
  inputSchema: { properties?: Record<string, { type?: string; description?: string }>; required?: string[] };
}

function TryIt({ token, profile, tool }: { token: string; profile: string; tool: Tool }) {
  const example = Object.fromEntries(Object.entries(tool.inputSchema.properties ?? {}).map(([name, s]) => [name, s.type === 'number' || s.type === 'integer' ? 1 : s.type === 'boolean' ? true : '']));
  const [input, setInput] = useState(JSON.stringify(example, null, 2));
  const run = useMutation({ mutationFn: () => api<RunOutcome>(token, 'POST', '/v1/runs', { goal: `try ${tool.name}`, profile, plan: [{ tool: tool.name, input: JSON.parse(input) as Record<string, unknown> }] }) });
  const id = `try-${tool.name}`;
  return (
    <div className="stack">
      <label htmlFor={id}>Input for {tool.name} (JSON)</label>
      <textarea id={id} rows={4} value={input} onChange={(e) => setInput(e.target.value)} />
      <div className="actions">
        <button type="button" onClick={() => run.mutate()} disabled={run.isPending}>
          Try {tool.name}
        </button>
      </div>
      {run.error ? <p role="alert" className="bad">{(run.error as Error).message}</p> : null}
      {run.data ? (
        <p role="status">
          <a href={`#/runs/${encodeURIComponent(run.data.runId)}`}>{run.data.status}</a>: <code>{JSON.stringify(run.data.outputs['step-0'] ?? run.data.error ?? null)}</code>
        </p>
      ) : null}
    </div>
  );
}

export function Tools({ token, profile }: { token: string; profile: string }) {
  const tools = useQuery({ queryKey: ['tools', profile], queryFn: () => api<{ tools: Tool[] }>(token, 'GET', `/v1/profiles/${encodeURIComponent(profile)}/tools`) });
  return (
    <section aria-labelledby="tools-title">
      <h1 id="tools-title">Tools of {profile}</h1>
      {tools.error ? <p role="alert" className="bad">{(tools.error as Error).message}</p> : null}
      {tools.data?.tools.map((tool) => (
        <article key={tool.name} className="card plain" aria-labelledby={`tool-${tool.name}`}>
          <h2 id={`tool-${tool.name}`}>
            <code>{tool.name}</code>
          </h2>
          <p>{tool.description}</p>
          <p className="hint">
            cost {tool.cost} · {tool.latency} ms · {tool.idempotent ? 'idempotent' : 'not idempotent'} · {tool.requiresApproval ? 'needs approval' : 'no approval'} · {tool.allowNetwork ? 'uses the network' : 'no network'}
            {tool.capabilities.length ? ` · needs ${tool.capabilities.join(', ')}` : ''}
          </p>
          <details>
            <summary>Input schema</summary>
            <pre>{JSON.stringify(tool.inputSchema, null, 2)}</pre>
          </details>
          <details>
            <summary>Try it</summary>
            <TryIt token={token} profile={profile} tool={tool} />
          </details>
        </article>
      ))}
    </section>
  );
}
