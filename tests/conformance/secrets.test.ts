import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { InMemoryStore, Orchestrator, ToolRegistry, envSecrets, exportJournal, redactText, staticSecrets, type Secrets } from '../../src/core/index.ts';
import { createSequentialIds, steppingClock } from '../../src/core/testing.ts';

// A tool reads a credential by name, at call time, through the secrets port. Whatever it does
// with the value — return it, put it in an error — nothing the run records holds it.
const WEBHOOK = 'whk-9c1e7f0a4b2d8e6f3a5c';

function setup(secrets: Secrets | undefined) {
  const registry = new ToolRegistry();
  registry.register('demo', 'notify', {
    description: 'Post a notice to the team webhook',
    parameters: z.object({ text: z.string(), leak: z.enum(['output', 'error', 'none']).default('none') }),
    secrets: ['TEAM_WEBHOOK'],
    handler: async ({ text, leak }, context) => {
      const token = await context.secret('TEAM_WEBHOOK');
      if (leak === 'error') throw new Error(`webhook refused token ${token}`);
      return { posted: text, via: leak === 'output' ? `https://hooks.example/${token}` : 'webhook', tokenLength: token.length };
    },
  });
  registry.register('demo', 'snoop', {
    description: 'Read a secret it never declared',
    parameters: z.object({}),
    handler: async (_input, context) => context.secret('TEAM_WEBHOOK'),
  });
  const store = new InMemoryStore();
  const orchestrator = new Orchestrator({
    registry,
    store,
    ids: createSequentialIds('sec'),
    clock: steppingClock(1_000, 5),
    sleep: async () => undefined,
    retry: { maxAttempts: 1 },
    ...(secrets ? { secrets } : {}),
  });
  return { orchestrator, store, registry };
}

describe('secrets port', () => {
  it('hands a declared secret to the tool at call time and records none of it', async () => {
    const { orchestrator, store, registry } = setup(staticSecrets({ TEAM_WEBHOOK: WEBHOOK }));
    expect(registry.list('demo').find((t) => t.name === 'notify')?.secrets).toEqual(['TEAM_WEBHOOK']);
    const outcome = await orchestrator.start('notify', 'demo', {
      plan: [
        { tool: 'notify', input: { text: 'deployed', leak: 'none' } },
        { tool: 'notify', input: { text: 'again', leak: 'output' } },
      ],
    });
    expect(outcome.status).toBe('completed');
    expect(outcome.outputs['step-0']).toEqual({ posted: 'deployed', via: 'webhook', tokenLength: WEBHOOK.length });
    expect(outcome.outputs['step-1']).toEqual({ posted: 'again', via: 'https://hooks.example/[REDACTED]', tokenLength: WEBHOOK.length });
    const journal = exportJournal(await store.readJournal(outcome.runId));
    expect(journal).toContain('https://hooks.example/[REDACTED]');
    expect(journal).not.toContain(WEBHOOK);
  });

  it('scrubs a secret out of a failing tool’s error before the failure is journaled', async () => {
    const { orchestrator, store } = setup(staticSecrets({ TEAM_WEBHOOK: WEBHOOK }));
    const outcome = await orchestrator.start('notify', 'demo', { plan: [{ tool: 'notify', input: { text: 'x', leak: 'error' } }] });
    expect(outcome.status).toBe('failed');
    const journal = await store.readJournal(outcome.runId);
    const failure = journal.find((event) => event.type === 'tool_call_error');
    expect(failure?.data).toMatchObject({ error: { message: 'webhook refused token [REDACTED]' } });
    expect(exportJournal(journal)).not.toContain(WEBHOOK);
  });

  it('refuses a name the tool did not declare, and a name the host does not hold, with typed errors', async () => {
    const held = setup(staticSecrets({ TEAM_WEBHOOK: WEBHOOK }));
    const snooped = await held.orchestrator.start('snoop', 'demo', { plan: [{ tool: 'snoop', input: {} }] });
    expect(snooped).toMatchObject({ status: 'failed', error: { code: 'undeclared_secret', failureMode: 'POLICY' } });
    expect(exportJournal(await held.store.readJournal(snooped.runId))).not.toContain(WEBHOOK);
    const empty = setup(undefined);
    const missing = await empty.orchestrator.start('notify', 'demo', { plan: [{ tool: 'notify', input: { text: 'x' } }] });
    expect(missing).toMatchObject({ status: 'failed', error: { code: 'missing_secret', failureMode: 'POLICY' } });
    expect(missing.error?.message).toContain('CUGAR_SECRET_TEAM_WEBHOOK');
  });

  it('reads CUGAR_SECRET_<NAME> from a host environment, exposes only those, and redacts their values everywhere', async () => {
    const port = envSecrets({ CUGAR_SECRET_TEAM_WEBHOOK: WEBHOOK, CUGAR_SECRET_bad: 'lowercase names are not secrets', PATH: '/usr/bin', CUGAR_TOKENS: 'x' });
    expect(port.names()).toEqual(['TEAM_WEBHOOK']);
    expect(await port.get('TEAM_WEBHOOK')).toBe(WEBHOOK);
    expect(await port.get('PATH')).toBeUndefined();
    expect(redactText(`log line with ${WEBHOOK} inside`)).toBe('log line with [REDACTED] inside');
    expect(() => staticSecrets({ 'not a name': 'x' })).toThrow();
  });
});
