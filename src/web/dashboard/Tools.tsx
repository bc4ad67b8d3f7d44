import { useMutation, useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { client as apiClient, followRun, unwrap, type RunOutcome } from './api.ts';
import { SchemaForm, formToInput, initialFormState, type FormState, type ObjectSchema } from './SchemaForm.tsx';

export interface Tool {
  name: string;
  description: string;
  cost: number;
  latency: number;
  capabilities: string[];
  allowNetwork: boolean;
  idempotent: boolean;
  requiresApproval: boolean;
  /** The MCP server the tool calls, for tools registered from one. */
  mcpServer?: string | undefined;
  /** Other names people use for the tool, which the planner matches like its name. */
  aliases?: string[] | undefined;
  /** Requests the tool serves, in any language, which the planner matches like its description. */
  examples?: string[] | undefined;
  inputSchema: ObjectSchema;
}

/** Form state from values already known (what a plan filled): text for text fields, JSON for the rest. */
function prefilled(schema: ObjectSchema, values: Record<string, unknown>): FormState {
  const state = initialFormState(schema);
  for (const [name, value] of Object.entries(values)) {
    if (!(name in state) || value === undefined) continue;
    state[name] = typeof value === 'boolean' ? value : typeof value === 'string' ? value : typeof value === 'number' ? String(value) : JSON.stringify(value);
  }
  return state;
}

/**
 * A form generated from the tool's input schema, optionally filled with `values` (what a plan
 * already read from the goal); submitting runs a one-step plan and links to the run.
 */
export function TryIt({
  token,
  profile,
  tool,
  onRun,
  values,
}: {
  token: string;
  profile: string;
  tool: Tool;
  onRun?: (outcome: RunOutcome) => void;
  values?: Record<string, unknown>;
}) {
  const [state, setState] = useState<FormState>(() => (values ? prefilled(tool.inputSchema, values) : initialFormState(tool.inputSchema)));
  const [invalid, setInvalid] = useState<string | null>(null);
  const run = useMutation({
    // Accepted at once, then followed to its outcome, which is shown here.
    mutationFn: async (input: Record<string, unknown>): Promise<RunOutcome> => {
      const client = apiClient(token);
      const answer = await unwrap(
        client.v1.runs.$post({ json: { goal: `try ${tool.name}`, profile, plan: [{ tool: tool.name, input }] }, query: {}, header: {} }),
      );
      return 'links' in answer ? followRun(client, answer.runId) : answer;
    },
    ...(onRun ? { onSuccess: onRun } : {}),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    try {
      const input = formToInput(tool.inputSchema, state);
      setInvalid(null);
      run.mutate(input);
    } catch (error) {
      setInvalid((error as Error).message);
    }
  };
  return (
    <form className="stack" onSubmit={submit} aria-label={`Input for ${tool.name}`} noValidate>
      <SchemaForm schema={tool.inputSchema} state={state} onChange={setState} />
      <div className="actions">
        <button type="submit" disabled={run.isPending}>
          Try {tool.name}
        </button>
      </div>
      {invalid || run.error ? (
        <p role="alert" className="bad">
          {invalid ?? (run.error as Error).message}
        </p>
      ) : null}
      {run.data ? (
        <p role="status">
          <a href={`#/runs/${encodeURIComponent(run.data.runId)}`}>{run.data.status}</a>:{' '}
          <code>{JSON.stringify(run.data.outputs['step-0'] ?? run.data.error ?? null)}</code>
        </p>
      ) : null}
    </form>
  );
}

export function Tools({ token, profile }: { token: string; profile: string }) {
  const tools = useQuery({
    queryKey: ['tools', profile],
    queryFn: () => unwrap(apiClient(token).v1.profiles[':profile'].tools.$get({ param: { profile: encodeURIComponent(profile) } })),
  });
  return (
    <section aria-labelledby="tools-title">
      <h1 id="tools-title">Tools of {profile}</h1>
      <a href="#/tools/edit">Write a tool (editor, approvals and versions)</a>
      {tools.error ? (
        <p role="alert" className="bad">
          {(tools.error as Error).message}
        </p>
      ) : null}
      {tools.data?.tools.length === 0 ? <p>No tools in this profile.</p> : null}
      {tools.data?.tools.map((tool) => (
        <article key={tool.name} className="card plain" aria-labelledby={`tool-${tool.name}`}>
          <h2 id={`tool-${tool.name}`}>
            <code>{tool.name}</code>
            {tool.mcpServer ? (
              <small className="hint" title={`Each call goes to the MCP server ${tool.mcpServer}`}>
                {' '}
                MCP · {tool.mcpServer}
              </small>
            ) : null}
          </h2>
          <p>{tool.description}</p>
          {tool.aliases?.length ? (
            <p>
              Also called:{' '}
              {tool.aliases.map((alias, i) => (
                <span key={alias}>
                  {i ? ', ' : ''}
                  <q>{alias}</q>
                </span>
              ))}
            </p>
          ) : null}
          {tool.examples?.length ? (
            <details>
              <summary>Requests it serves ({tool.examples.length})</summary>
              <ul>
                {tool.examples.map((example) => (
                  <li key={example}>
                    <a href={`#/playground?goal=${encodeURIComponent(example)}`}>{example}</a>
                  </li>
                ))}
              </ul>
            </details>
          ) : null}
          <p className="hint">
            cost {tool.cost} · {tool.latency} ms · {tool.idempotent ? 'idempotent' : 'not idempotent'} ·{' '}
            {tool.requiresApproval ? 'needs approval' : 'no approval'} · {tool.allowNetwork ? 'uses the network' : 'no network'}
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
