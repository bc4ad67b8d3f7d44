import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ConflictError,
  NotFoundError,
  PolicyViolationError,
  ToolRegistry,
  ValidationError,
  loadTools,
  loadableToolModules,
  registerBuiltinTools,
} from '../../src/core/index.ts';

const add = { description: 'Add numbers', parameters: z.object({ a: z.number(), b: z.number() }), handler: ({ a, b }: { a: number; b: number }) => a + b };

function expectCode(fn: () => unknown, type: abstract new (...args: never[]) => Error, code: string): void {
  let thrown: unknown;
  try {
    fn();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(type);
  expect((thrown as { code: string }).code).toBe(code);
}

describe('ToolRegistry', () => {
  it('registers, resolves and lists tools with JSON Schema and defaults', () => {
    const registry = new ToolRegistry();
    registry.register('demo', 'add', add);
    const tool = registry.resolve('demo', 'add');
    expect(tool).toMatchObject({
      name: 'add',
      profile: 'demo',
      cost: 1,
      latency: 100,
      idempotent: false,
      requiresApproval: false,
      allowNetwork: false,
      capabilities: [],
    });
    expect(Object.isFrozen(tool)).toBe(true);
    const [info] = registry.list('demo');
    expect(info!.inputSchema).toMatchObject({ type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] });
    expect('handler' in info!).toBe(false);
  });

  it('shares one frozen sorted list per profile until a tool is added, and copies it for definitions()', () => {
    const registry = new ToolRegistry();
    registry.register('demo', 'zeta', add);
    registry.register('demo', 'alpha', add);
    const shared = registry.sortedDefinitions('demo');
    expect(shared.map((t) => t.name)).toEqual(['alpha', 'zeta']);
    expect(Object.isFrozen(shared)).toBe(true);
    expect(registry.sortedDefinitions('demo')).toBe(shared);
    const copy = registry.definitions('demo');
    expect(copy).not.toBe(shared);
    copy.pop();
    expect(registry.sortedDefinitions('demo')).toHaveLength(2);
    registry.register('demo', 'mid', add);
    expect(registry.sortedDefinitions('demo').map((t) => t.name)).toEqual(['alpha', 'mid', 'zeta']);
  });

  it('treats an identical registration as a no-op and a different one as a conflict that changes nothing', () => {
    const registry = new ToolRegistry();
    registry.register('demo', 'add', add);
    expect(() => registry.register('demo', 'add', add)).not.toThrow();
    expectCode(() => registry.register('demo', 'add', { ...add, cost: 5 }), ConflictError, 'duplicate_tool');
    expect(registry.resolve('demo', 'add').cost).toBe(1);
    // The same name in another profile is a different tool.
    registry.register('other', 'add', { ...add, cost: 5 });
    expect(registry.resolve('other', 'add').cost).toBe(5);
  });

  it('merges all-or-nothing', () => {
    const a = new ToolRegistry();
    a.register('demo', 'add', add);
    const b = new ToolRegistry();
    b.register('demo', 'echo', { description: 'Echo', parameters: z.object({ m: z.string() }), handler: ({ m }: { m: string }) => m });
    b.register('demo', 'add', { ...add, description: 'different' });
    expectCode(() => a.merge(b), ConflictError, 'duplicate_tool');
    expect(a.has('demo', 'echo')).toBe(false);
    const c = new ToolRegistry();
    c.register('demo', 'add', add);
    c.register('x', 'echo', { description: 'Echo', parameters: z.object({}), handler: () => 1 });
    a.merge(c);
    expect(a.profiles()).toEqual(['demo', 'x']);
  });

  it('hands out sandboxes that hold one profile and are isolated both ways', () => {
    const registry = new ToolRegistry();
    registry.register('demo', 'add', add);
    registry.register('secret', 'add', add);
    const sandbox = registry.sandbox('demo');
    expect(sandbox.profiles()).toEqual(['demo']);
    expectCode(() => sandbox.resolve('secret', 'add'), NotFoundError, 'unknown_profile');
    sandbox.register('demo', 'mul', { ...add, description: 'Multiply' });
    expect(registry.has('demo', 'mul')).toBe(false);
    registry.register('demo', 'sub', { ...add, description: 'Subtract' });
    expect(sandbox.has('demo', 'sub')).toBe(false);
  });

  it('rejects bad names, specs and lookups with typed errors', () => {
    const registry = new ToolRegistry();
    expectCode(() => registry.register('bad profile!', 'add', add), ValidationError, 'invalid_profile');
    expectCode(() => registry.register('demo', 'Add Tool', add), ValidationError, 'invalid_tool_name');
    expectCode(() => registry.register('demo', 'x', { ...add, cost: Number.NaN }), ValidationError, 'invalid_tool_spec');
    expectCode(() => registry.register('demo', 'x', { ...add, cost: Infinity }), ValidationError, 'invalid_tool_spec');
    expectCode(() => registry.register('demo', 'x', { ...add, description: '' }), ValidationError, 'invalid_tool_spec');
    expectCode(() => registry.register('demo', 'x', { ...add, handler: 'nope' as never }), ValidationError, 'invalid_tool_spec');
    expectCode(() => registry.register('demo', 'x', { ...add, parameters: { type: 'object' } as never }), ValidationError, 'invalid_tool_spec');
    expect(registry.profiles()).toEqual([]);
    expectCode(() => registry.resolve('demo', 'add'), NotFoundError, 'unknown_profile');
    registry.register('demo', 'add', add);
    expectCode(() => registry.resolve('demo', 'nope'), NotFoundError, 'unknown_tool');
    expectCode(() => registry.sandbox('ghost'), NotFoundError, 'unknown_profile');
  });

  it('loads dynamic tools only from the allow-listed cugar.tools namespace', async () => {
    const registry = new ToolRegistry();
    expect(loadableToolModules()).toEqual(['cugar.tools.arithmetic', 'cugar.tools.text']);
    expect(await loadTools(registry, 'demo', 'cugar.tools.arithmetic')).toEqual(['add', 'calculate', 'divide', 'multiply', 'subtract']);
    for (const id of [
      './evil.ts',
      '../src/core/tools/text.ts',
      '/etc/passwd',
      'https://example.com/x.js',
      'cugar.tools.missing',
      'cugar.tools',
      'node:fs',
      'cugar.tools.text/../x',
      'constructor',
      '__proto__',
    ]) {
      await expect(loadTools(registry, 'demo', id)).rejects.toBeInstanceOf(PolicyViolationError);
    }
    // A conflicting module registers nothing.
    const conflicted = new ToolRegistry();
    conflicted.register('demo', 'echo', { description: 'mine', parameters: z.object({}), handler: () => 0 });
    await expect(loadTools(conflicted, 'demo', 'cugar.tools.text')).rejects.toBeInstanceOf(ConflictError);
    expect(conflicted.has('demo', 'text_stats')).toBe(false);
  });

  it('registers the built-in demo tools', () => {
    const registry = new ToolRegistry();
    expect(registerBuiltinTools(registry)).toEqual(['add', 'calculate', 'divide', 'echo', 'multiply', 'subtract', 'text_stats', 'wait']);
    expect(registry.list('demo').every((t) => t.idempotent && !t.allowNetwork)).toBe(true);
  });
});
