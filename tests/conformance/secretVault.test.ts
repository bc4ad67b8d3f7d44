import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { InMemoryStore, Orchestrator, ToolRegistry, exportJournal, redactText } from '../../src/core/index.ts';
import { BrowserVault } from '../../src/web/secretVault.ts';

// Real IndexedDB in Chromium; fake-indexeddb's globals in Node.
if (typeof indexedDB === 'undefined') {
  // @ts-expect-error -- the package's types do not resolve through its `exports` for this subpath
  await import('fake-indexeddb/auto');
}

let n = 0;
const name = () => `cugar-vault-test-${Date.now()}-${n++}`;

describe('the browser vault (secrets port of local mode)', () => {
  it('keeps secrets across reopening, by name only, and refuses bad input without changing anything', async () => {
    const db = name();
    const vault = await BrowserVault.open(db);
    await vault.set('SLACK_TOKEN', 'vault-value-0f9e8d7c6b');
    await expect(vault.set('not a name', 'x')).rejects.toMatchObject({ code: 'invalid_secret_name' });
    await expect(vault.set('EMPTY', '')).rejects.toMatchObject({ code: 'invalid_secret_value' });
    vault.close();
    const again = await BrowserVault.open(db);
    expect(again.names()).toEqual(['SLACK_TOKEN']);
    expect(again.get('SLACK_TOKEN')).toBe('vault-value-0f9e8d7c6b');
    expect(redactText('token vault-value-0f9e8d7c6b in a log')).toBe('token [REDACTED] in a log');
    await again.delete('SLACK_TOKEN');
    expect(again.names()).toEqual([]);
    again.close();
    expect((await BrowserVault.open(db)).names()).toEqual([]);
  });

  it('hands a vault secret to a tool in a run whose journal never holds it', async () => {
    const vault = await BrowserVault.open(name());
    await vault.set('API_KEY', 'vault-api-key-77aa55cc');
    const registry = new ToolRegistry();
    registry.register('demo', 'call_api', {
      description: 'Call the API with its key',
      parameters: z.object({}),
      secrets: ['API_KEY'],
      handler: async (_input, context) => `called with ${await context.secret('API_KEY')}`,
    });
    const store = new InMemoryStore();
    const outcome = await new Orchestrator({ registry, store, secrets: vault }).start('call', 'demo', { plan: [{ tool: 'call_api', input: {} }] });
    expect(outcome).toMatchObject({ status: 'completed', outputs: { 'step-0': 'called with [REDACTED]' } });
    expect(exportJournal(await store.readJournal(outcome.runId))).not.toContain('vault-api-key-77aa55cc');
    vault.close();
  });
});
