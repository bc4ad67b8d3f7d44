import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ConflictError,
  Coordinator,
  ExecutionContext,
  InMemoryStore,
  NotFoundError,
  Orchestrator,
  ResourceError,
  RoundRobinPolicy,
  CapabilityBasedPolicy,
  LoadBalancedPolicy,
  ToolRegistry,
  ValidationError,
  Worker,
  checkReservation,
  createRetryPolicy,
  parseBudget,
  registerBuiltinTools,
  replay,
  transitionPlan,
  verifyJournal,
  type JournalEvent,
  type ToolDefinition,
} from '../../src/core/index.ts';
import { createSeededRandom, createSequentialIds, projectRun, sealEvent, steppingClock } from '../../src/core/testing.ts';

function setup(extra?: (registry: ToolRegistry) => void, options: Partial<ConstructorParameters<typeof Orchestrator>[0]> = {}) {
  const registry = new ToolRegistry();
  registerBuiltinTools(registry);
  extra?.(registry);
  const store = new InMemoryStore();
  let instance = 0;
  const make = (more: Partial<ConstructorParameters<typeof Orchestrator>[0]> = {}) =>
    new Orchestrator({
      registry,
      store,
      ids: createSequentialIds(`o${instance++}`),
      clock: steppingClock(10_000, 5),
      sleep: async () => undefined,
      ...options,
      ...more,
    });
  return { registry, store, orchestrator: make(), make };
}

async function codeOf(promise: Promise<unknown>): Promise<[unknown, string | undefined]> {
  try {
    await promise;
    return [undefined, undefined];
  } catch (error) {
    return [error, (error as { code?: string }).code];
  }
}

describe('Orchestrator lifecycle', () => {
  it('journals every stage, plan state and step, and completes', async () => {
    const { orchestrator, store } = setup();
    const outcome = await orchestrator.start('add 2 and 3, then multiply the result by 4', 'demo');
    expect(outcome).toMatchObject({ status: 'completed', success: true, outputs: { 'step-0': 5, 'step-1': 20 } });
    const journal = await store.readJournal(outcome.runId);
    expect(journal.filter((e) => e.type === 'stage').map((e) => e.data['stage'])).toEqual(['initialize', 'plan', 'route', 'execute', 'aggregate', 'complete']);
    expect(journal.filter((e) => e.type === 'plan_transition').map((e) => e.data['to'])).toEqual(['VALIDATED', 'EXECUTING', 'COMPLETED']);
    expect(journal.filter((e) => e.type === 'route_decision')).toHaveLength(2);
    const completes = journal.filter((e) => e.type === 'tool_call_complete');
    expect(completes.every((e) => typeof e.data['durationMs'] === 'number' && e.data['durationMs'] === 5)).toBe(true);
    expect(journal.at(-1)!.type).toBe('run_completed');
    expect(journal.find((e) => e.type === 'reflection')!.data['summary']).toMatch(/^\[\d{4}-\d{2}-\d{2}T.*Z\] completed/);
    expect(verifyJournal(journal).ok).toBe(true);
    const history = await orchestrator.getTraceHistory(outcome.traceId);
    expect(history.map((e) => e.seq)).toEqual(journal.map((e) => e.seq));
    expect(history.every((r) => r.traceId === outcome.traceId && r.profile === 'demo' && r.timestamp === new Date(r.at).toISOString())).toBe(true);
    for (const type of ['tool_call_complete', 'stage', 'run_completed'] as const) {
      expect(
        history.filter((r) => r.type === type).every((r) => typeof r.durationMs === 'number' && r.durationMs >= 0),
        type,
      ).toBe(true);
    }
    expect(history.at(-1)!.durationMs).toBe(journal.at(-1)!.at - journal[0]!.at);
    expect(await store.getRun(outcome.runId)).toMatchObject({ status: 'completed', head: outcome.head });
  });

  it('records the run inputs and an immutable context', async () => {
    const { orchestrator, store } = setup();
    const outcome = await orchestrator.start('echo "hi"', 'demo', { userId: 'ada', sessionId: 's-1', metadata: { ticket: 7 } });
    const [first] = await store.readJournal(outcome.runId);
    expect(first!.type === 'stage' && first!.data.inputs).toMatchObject({
      goal: 'echo "hi"',
      profile: 'demo',
      context: { userId: 'ada', sessionId: 's-1', runId: outcome.runId, requestId: outcome.runId },
      metadata: { ticket: 7 },
    });
    const context = new ExecutionContext({ traceId: 't', runId: 'r', requestId: 'r', userIntent: 'x', profile: 'demo' });
    const child = context.withUserId('bob').withMemoryScope('m');
    expect(context.userId).toBeUndefined();
    expect(child).toMatchObject({ userId: 'bob', memoryScope: 'm', traceId: 't' });
    expect(Object.isFrozen(child)).toBe(true);
    expect(child.withParent('r2')).toMatchObject({ runId: 'r2', requestId: 'r2', parentContext: 'r' });
    expect(child.without('userId').userId).toBeUndefined();
  });

  it('abstains with a failed run when nothing is relevant', async () => {
    const { orchestrator } = setup();
    const outcome = await orchestrator.start('book a flight to Lisbon', 'demo');
    expect(outcome).toMatchObject({ status: 'failed', stopReason: 'no_relevant_tool', error: { code: 'no_relevant_tool' }, partial: { recoverable: false } });
  });
});

describe('PlanningAuthority', () => {
  it('allows only forward transitions, treats repeats as no-ops and terminal states as final', () => {
    expect(transitionPlan('CREATED', 'VALIDATED')).toBe(true);
    expect(transitionPlan('VALIDATED', 'VALIDATED')).toBe(false);
    for (const [from, to] of [
      ['CREATED', 'EXECUTING'],
      ['CREATED', 'COMPLETED'],
      ['COMPLETED', 'FAILED'],
      ['FAILED', 'EXECUTING'],
      ['EXECUTING', 'VALIDATED'],
    ] as const) {
      expect(() => transitionPlan(from, to)).toThrow(ConflictError);
    }
  });

  it('never lets 10,000 random cost sequences pass a ceiling', () => {
    fc.assert(
      fc.property(
        fc.record({ costCeiling: fc.double({ min: 0, max: 100, noNaN: true }), callCeiling: fc.integer({ min: 0, max: 20 }) }),
        fc.array(fc.double({ min: 0, max: 30, noNaN: true }), { maxLength: 40 }),
        (ceilings, costs) => {
          const budget = parseBudget(ceilings);
          let used = { cost: 0, calls: 0, tokens: 0 };
          for (const cost of costs) {
            const reservation = { cost, calls: 1, tokens: 0 };
            if (checkReservation(budget, used, reservation).exceeded.length === 0) used = { cost: used.cost + cost, calls: used.calls + 1, tokens: 0 };
          }
          return used.cost <= budget.costCeiling! * (1 + 1e-9) + 1e-9 && used.calls <= budget.callCeiling!;
        },
      ),
      { numRuns: 10_000 },
    );
  });

  it('warns at the threshold, then blocks the call that would pass the ceiling', async () => {
    const { orchestrator, store } = setup();
    const goal = Array.from({ length: 6 }, (_, i) => `add ${i} and 1`).join(' then ');
    const outcome = await orchestrator.start(goal, 'demo', { budget: { callCeiling: 5, warnThreshold: 0.8 } });
    expect(outcome).toMatchObject({ status: 'failed', error: { code: 'budget_exceeded', failureMode: 'POLICY' }, usage: { calls: 5 } });
    const journal = await store.readJournal(outcome.runId);
    const types = journal.map((e) => e.type);
    expect(types.filter((t) => t === 'tool_call_start')).toHaveLength(5);
    expect(types.indexOf('budget_warning')).toBeLessThan(types.indexOf('budget_exceeded'));
    expect(journal.find((e) => e.type === 'budget_warning')!.data).toMatchObject({ scope: 'run', dimensions: ['calls'], usage: { calls: 4 } });
    expect(outcome.partial).toMatchObject({ completedSteps: ['step-0', 'step-1', 'step-2', 'step-3', 'step-4'], recoverable: false });
  });

  it('shares a profile budget across runs and carries it across restarts', async () => {
    const { make } = setup(undefined, { profileBudgets: { demo: { costCeiling: 0.35 } } });
    const first = await make().start('add 1 and 2 then add 3 and 4', 'demo');
    expect(first.status).toBe('completed');
    const second = await make().start('add 5 and 6 then add 7 and 8', 'demo');
    expect(second).toMatchObject({ status: 'failed', error: { code: 'budget_exceeded', details: { scope: 'profile' } }, outputs: { 'step-0': 11 } });
  });

  it('rejects negative or non-finite ceilings with a typed error', async () => {
    const { orchestrator, store } = setup();
    for (const budget of [{ costCeiling: -1 }, { callCeiling: Infinity }, { tokenCeiling: Number.NaN }, { warnThreshold: 2 }]) {
      const [error, code] = await codeOf(orchestrator.start('add 1 and 2', 'demo', { budget }));
      expect(error).toBeInstanceOf(ValidationError);
      expect(code).toBe('invalid_budget');
    }
    expect(await store.listRuns()).toEqual([]);
  });
});

describe('RetryPolicy', () => {
  it('makes min(k + 1, max) attempts for k transient failures, and one for terminal ones', async () => {
    for (const max of [1, 2, 3, 5]) {
      for (let k = 0; k <= 6; k++) {
        let calls = 0;
        const { orchestrator } = setup(
          (r) =>
            r.register('demo', 'flaky', {
              description: 'a flaky service call',
              parameters: z.object({}),
              idempotent: true,
              handler: () => {
                if (++calls <= k) throw new ResourceError('busy');
                return 'ok';
              },
            }),
          { retry: { maxAttempts: max, baseDelay: 10 } },
        );
        const outcome = await orchestrator.start('flaky({})', 'demo');
        expect(calls, `k=${k} max=${max}`).toBe(Math.min(k + 1, max));
        expect(outcome.status).toBe(k < max ? 'completed' : 'failed');
      }
    }
    let terminalCalls = 0;
    const { orchestrator } = setup((r) =>
      r.register('demo', 'strict', {
        description: 'fails validation',
        parameters: z.object({}),
        handler: () => {
          terminalCalls++;
          throw new ValidationError('bad');
        },
      }),
    );
    expect((await orchestrator.start('strict({})', 'demo')).status).toBe('failed');
    expect(terminalCalls).toBe(1);
  });

  it('keeps every delay within the policy', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('exponential' as const, 'linear' as const),
        fc.integer({ min: 1, max: 1000 }),
        fc.integer({ min: 1, max: 100_000 }),
        fc.double({ min: 1, max: 4, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.integer({ min: 1, max: 10 }),
        fc.integer(),
        (strategy, baseDelay, maxDelay, multiplier, jitter, attempt, seed) => {
          const policy = createRetryPolicy({ strategy, baseDelay, maxDelay, multiplier, jitter, maxAttempts: 20 });
          const nominal = strategy === 'linear' ? baseDelay * attempt : baseDelay * multiplier ** (attempt - 1);
          const { delayMs } = policy.delay(attempt, createSeededRandom(seed));
          return delayMs >= Math.min(maxDelay, Math.floor(nominal * (1 - jitter))) && delayMs <= Math.min(maxDelay, Math.ceil(nominal * (1 + jitter)));
        },
      ),
      { numRuns: 1000 },
    );
    const none = createRetryPolicy({ strategy: 'none' });
    expect(none.shouldRetry(new ResourceError('x'), 1)).toBe(false);
    const policy = createRetryPolicy();
    expect(policy.shouldRetry(Object.assign(new Error('x'), { status: 503 }), 1)).toBe(true);
    expect(policy.shouldRetry(Object.assign(new Error('x'), { status: 401 }), 1)).toBe(false);
    expect(policy.shouldRetry(new TypeError('fetch failed'), 1)).toBe(true);
    expect(policy.shouldRetry(new ResourceError('x'), 3)).toBe(false);
  });

  it('times out a slow step through its AbortSignal and retries it', async () => {
    let aborted = 0;
    let calls = 0;
    const { orchestrator } = setup(
      (r) =>
        r.register('demo', 'slow', {
          description: 'slow call',
          parameters: z.object({}),
          idempotent: true,
          handler: (_input, context) =>
            new Promise((resolve) => {
              if (++calls > 1) return resolve('fast enough');
              context.signal.addEventListener('abort', () => aborted++);
            }),
        }),
      { stepTimeoutMs: 20, retry: { maxAttempts: 2, baseDelay: 1 } },
    );
    const outcome = await orchestrator.start('slow({})', 'demo');
    expect(outcome).toMatchObject({ status: 'completed', outputs: { 'step-0': 'fast enough' } });
    expect(aborted).toBe(1);
  });
});

describe('ApprovalGate', () => {
  const transfer = (r: ToolRegistry, executions: unknown[]) =>
    r.register('demo', 'transfer', {
      description: 'Transfer money between accounts',
      parameters: z.object({ amount: z.number().positive(), to: z.string() }),
      requiresApproval: true,
      handler: (input) => {
        executions.push(input);
        return `sent ${input.amount} to ${input.to}`;
      },
    });

  it('pauses, survives a restart, and runs only the approved arguments', async () => {
    const executions: unknown[] = [];
    const { orchestrator, make, store } = setup((r) => transfer(r, executions));
    const paused = await orchestrator.start('transfer(amount=100, to="savings")', 'demo');
    expect(paused.status).toBe('paused');
    expect(executions).toEqual([]);
    const approval = paused.pendingApproval!;
    expect(approval).toMatchObject({ tool: 'transfer', args: { amount: 100, to: 'savings' }, status: 'pending', stepId: 'step-0' });
    expect(await store.listApprovals({ status: 'pending' })).toHaveLength(1);

    // A different process edits the arguments; they are validated and re-hashed.
    const [badEdit] = await codeOf(make().resolveApproval(approval.approvalId, { decision: 'edit', args: { amount: -5, to: 'x' }, by: 'ada' }));
    expect(badEdit).toBeInstanceOf(ValidationError);
    expect((await store.getRun(paused.runId))!.head).toEqual(paused.head);
    const done = await make().resolveApproval(approval.approvalId, { decision: 'edit', args: { amount: 50, to: 'savings' }, by: 'ada', reason: 'half now' });
    expect(done).toMatchObject({ status: 'completed', outputs: { 'step-0': 'sent 50 to savings' } });
    expect(executions).toEqual([{ amount: 50, to: 'savings' }]);
    const journal = await store.readJournal(paused.runId);
    const received = journal.find((e) => e.type === 'approval_received')!;
    const started = journal.find((e) => e.type === 'tool_call_start')!;
    expect(started.data['argsHash']).toBe(received.data['argsHash']);
    expect(received.data['argsHash']).not.toBe(approval.argsHash);
    expect(await store.getApproval(approval.approvalId)).toMatchObject({ status: 'approved', decidedBy: 'ada', decision: 'edit' });
    expect((await replay(journal, (await setup((r) => transfer(r, []))).registry)).ok).toBe(true);
  });

  it('applies a decision once, even when two arrive at the same time', async () => {
    const executions: unknown[] = [];
    const { orchestrator, make } = setup((r) => transfer(r, executions));
    const paused = await orchestrator.start('transfer(amount=5, to="a")', 'demo');
    const id = paused.pendingApproval!.approvalId;
    const results = await Promise.allSettled([
      make().resolveApproval(id, { decision: 'approve', by: 'ada' }),
      make().resolveApproval(id, { decision: 'reject', by: 'bob' }),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const rejected = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(rejected.reason).toBeInstanceOf(ConflictError);
    expect(executions.length).toBeLessThanOrEqual(1);
    const [again, code] = await codeOf(make().resolveApproval(id, { decision: 'approve', by: 'carol' }));
    expect(again).toBeInstanceOf(ConflictError);
    expect(code).toBe('approval_already_resolved');
    const [unknown, unknownCode] = await codeOf(make().resolveApproval('nope', { decision: 'approve', by: 'x' }));
    expect(unknown).toBeInstanceOf(NotFoundError);
    expect(unknownCode).toBe('unknown_approval');
  });

  it('rejects: the step never runs and the run fails as a policy decision', async () => {
    const executions: unknown[] = [];
    const { orchestrator } = setup((r) => transfer(r, executions));
    const paused = await orchestrator.start('transfer(amount=5, to="a")', 'demo');
    const outcome = await orchestrator.resolveApproval(paused.pendingApproval!.approvalId, { decision: 'reject', by: 'ada', reason: 'no' });
    expect(outcome).toMatchObject({ status: 'failed', stopReason: 'approval_rejected', error: { failureMode: 'POLICY' } });
    expect(executions).toEqual([]);
  });

  it('decides by policy after the timeout: approve-after-timeout and deny-after-timeout', async () => {
    for (const onTimeout of ['approve', 'reject'] as const) {
      const executions: unknown[] = [];
      const { orchestrator, make } = setup((r) => transfer(r, executions), { approval: { timeoutMs: 1_000, onTimeout } });
      const paused = await orchestrator.start('transfer(amount=5, to="a")', 'demo');
      // Before the deadline nothing changes; after it, resuming applies the policy.
      expect((await make({ clock: steppingClock(10_100, 1) }).resume(paused.runId)).status).toBe('paused');
      const outcome = await make({ clock: steppingClock(20_000, 1) }).resume(paused.runId);
      expect(outcome.status).toBe(onTimeout === 'approve' ? 'completed' : 'failed');
      expect(executions).toHaveLength(onTimeout === 'approve' ? 1 : 0);
      // A human decision that comes too late loses to the policy.
      const late = await orchestrator.start('transfer(amount=6, to="b")', 'demo');
      const [error, code] = await codeOf(
        make({ clock: steppingClock(90_000, 1) }).resolveApproval(late.pendingApproval!.approvalId, {
          decision: onTimeout === 'approve' ? 'reject' : 'approve',
          by: 'x',
        }),
      );
      expect(error).toBeInstanceOf(ConflictError);
      expect(code).toBe('approval_expired');
    }
  });

  it('runs an approval-required tool zero times without a matching approval, over 200 restart cycles', async () => {
    const executions: Array<{ amount: number; to: string }> = [];
    const { make, store } = setup((r) => transfer(r, executions));
    let approvalsGiven = 0;
    for (let cycle = 0; cycle < 200; cycle++) {
      const orchestrator = make();
      const runs = await store.listRuns({ status: 'paused' });
      if (runs.length === 0 || cycle % 3 === 0) {
        await orchestrator.start(`transfer(amount=${cycle + 1}, to="acct-${cycle}")`, 'demo');
        continue;
      }
      const run = runs[cycle % runs.length]!;
      if (cycle % 2 === 0) {
        await orchestrator.resume(run.runId);
      } else {
        const approval = (await store.listApprovals({ runId: run.runId, status: 'pending' }))[0]!;
        await orchestrator.resolveApproval(approval.approvalId, { decision: 'approve', by: 'ops' });
        approvalsGiven++;
      }
    }
    expect(approvalsGiven).toBeGreaterThan(30);
    expect(executions).toHaveLength(approvalsGiven);
    for (const run of await store.listRuns()) {
      const journal = await store.readJournal(run.runId);
      expect(verifyJournal(journal).ok).toBe(true);
      for (const start of journal.filter((e) => e.type === 'tool_call_start')) {
        const approved = journal.find(
          (e) => e.seq < start.seq && e.type === 'approval_received' && e.data['decision'] !== 'reject' && e.data['argsHash'] === start.data['argsHash'],
        );
        expect(approved, `${run.runId} started without approval`).toBeDefined();
      }
    }
  });
});

describe('resume and partial results', () => {
  it('resumes a recoverable failure after the last completed step', async () => {
    let down = true;
    const { orchestrator, store } = setup(
      (r) =>
        r.register('demo', 'upload', {
          description: 'upload a report',
          parameters: z.object({}),
          idempotent: true,
          handler: () => {
            if (down) throw new ResourceError('storage offline');
            return 'uploaded';
          },
        }),
      { retry: { maxAttempts: 2, baseDelay: 1 } },
    );
    const failed = await orchestrator.start('echo("report") then upload({})', 'demo');
    expect(failed).toMatchObject({
      status: 'failed',
      partial: {
        completedSteps: ['step-0'],
        lastOutput: 'report',
        failureMode: 'RESOURCE',
        recoverable: true,
        recoveryStrategies: ['retry_with_backoff', 'resume'],
      },
    });
    down = false;
    const resumed = await orchestrator.resume(failed.runId);
    expect(resumed).toMatchObject({ status: 'completed', outputs: { 'step-0': 'report', 'step-1': 'uploaded' } });
    const journal = await store.readJournal(failed.runId);
    expect(journal.filter((e) => e.type === 'tool_call_start' && e.data['stepId'] === 'step-0')).toHaveLength(1);
    expect(journal.filter((e) => e.type === 'plan_transition').map((e) => e.data['to'])).toEqual([
      'VALIDATED',
      'EXECUTING',
      'FAILED',
      'VALIDATED',
      'EXECUTING',
      'COMPLETED',
    ]);
    expect(verifyJournal(journal).ok).toBe(true);
  });

  it('refuses to resume completed, unknown or unrecoverable runs, changing nothing', async () => {
    const { orchestrator, store } = setup();
    const done = await orchestrator.start('add 1 and 2', 'demo');
    const abstained = await orchestrator.start('fly me to the moon', 'demo');
    for (const [runId, expected] of [
      [done.runId, 'run_finished'],
      ['ghost', 'unknown_run'],
      [abstained.runId, 'run_not_recoverable'],
    ] as const) {
      const before = await store.readJournal(runId);
      const [, code] = await codeOf(orchestrator.resume(runId));
      expect(code).toBe(expected);
      expect(await store.readJournal(runId)).toEqual(before);
    }
  });

  it('a failed run reports a partial result and resume continues after the completed steps', async () => {
    let fail = true;
    const { orchestrator } = setup(
      (registry) =>
        registry.register('demo', 'fragile', {
          description: 'fragile',
          parameters: z.object({}),
          handler: () => {
            if (fail) throw new ResourceError('down');
            return 'ok';
          },
        }),
      { retry: { maxAttempts: 1 } },
    );
    const first = await orchestrator.start('add then fragile', 'demo', {
      plan: [
        { tool: 'add', input: { a: 1, b: 2 } },
        { tool: 'fragile', input: {} },
      ],
    });
    expect(first).toMatchObject({ status: 'failed', partial: { completedSteps: ['step-0'], lastOutput: 3, recoverable: true, failureMode: 'RESOURCE' } });
    fail = false;
    const second = await orchestrator.resume(first.runId);
    expect(second).toMatchObject({ status: 'completed', outputs: { 'step-0': 3, 'step-1': 'ok' } });
  });
});

describe('AutonomyLoop', () => {
  it('replans without a tool that failed for good', async () => {
    const { orchestrator, store } = setup((r) => {
      r.register('demo', 'summarize_fast', {
        description: 'summarize a document quickly',
        parameters: z.object({ text: z.string() }),
        cost: 0.01,
        handler: () => {
          throw new Error('model crashed');
        },
      });
      r.register('demo', 'summarize_careful', {
        description: 'summarize a document carefully',
        parameters: z.object({ text: z.string() }),
        cost: 1,
        handler: ({ text }: { text: string }) => `summary of ${text.length} chars`,
      });
    });
    const outcome = await orchestrator.start('summarize the document "the quick brown fox"', 'demo', { preferences: { costWeight: 1 } });
    expect(outcome).toMatchObject({ status: 'completed', outputs: { 'r1.step-0': 'summary of 19 chars' } });
    const journal = await store.readJournal(outcome.runId);
    expect(journal.find((e) => e.type === 'replanned')!.data).toMatchObject({ revision: 1, excluded: ['summarize_fast'] });
  });

  it('reflects on unhealthy steps and stops on repetition', async () => {
    const { orchestrator, store } = setup((r) =>
      r.register('demo', 'lookup', {
        description: 'look up a record',
        parameters: z.object({ id: z.number() }),
        idempotent: true,
        latency: 1,
        handler: () => null,
      }),
    );
    const outcome = await orchestrator.start('lookup(id=1) then lookup(id=1) then lookup(id=1) then lookup(id=2)', 'demo');
    expect(outcome).toMatchObject({ status: 'failed', stopReason: 'repetition_detected' });
    expect(Object.keys(outcome.outputs)).toEqual(['step-0', 'step-1', 'step-2']);
    const journal = await store.readJournal(outcome.runId);
    const health = journal.filter((e) => e.type === 'tool_call_complete').map((e) => (e.data['health'] as { score: number }).score);
    expect(health[0]).toBeGreaterThan(health[2]!);
    expect(journal.some((e) => e.type === 'reflection' && e.data['trigger'] === 'low_health')).toBe(true);
  });
});

describe('RoutingAuthority and Coordinator', () => {
  const tool = (capabilities: string[]): ToolDefinition => ToolRegistryDefine(capabilities);

  it('round-robin stays fair under concurrent dispatch', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 6 }),
        fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 80 }),
        async (workerCount, delays) => {
          const workers = Array.from({ length: workerCount }, (_, i) => new Worker({ id: `w${i}` }));
          const coordinator = new Coordinator(workers, new RoundRobinPolicy());
          const counts = new Map<string, number>();
          const slowTool = { ...tool([]), handler: (input: { delay: number }) => new Promise((resolve) => setTimeout(resolve, input.delay)) } as ToolDefinition;
          await Promise.all(
            delays.map(async (delay, i) => {
              const { decision } = await coordinator.dispatch(`s${i}`, slowTool, { delay }, context());
              counts.set(decision.worker, (counts.get(decision.worker) ?? 0) + 1);
            }),
          );
          const values = workers.map((w) => counts.get(w.id) ?? 0);
          return Math.max(...values) - Math.min(...values) <= 1;
        },
      ),
      { numRuns: 60 },
    );
  });

  it('routes by capability or refuses with a POLICY failure', () => {
    const coordinator = new Coordinator(
      [new Worker({ id: 'gpu', capabilities: ['math', 'vision'] }), new Worker({ id: 'cpu', capabilities: ['math'] })],
      new CapabilityBasedPolicy(),
    );
    expect(coordinator.route('s', tool(['vision'])).worker).toBe('gpu');
    expect(() => coordinator.route('s', tool(['net']))).toThrow(expect.objectContaining({ failureMode: 'POLICY', code: 'no_capable_worker' }));
  });

  it('load-balances to the least busy worker, ties to the smallest id', async () => {
    const coordinator = new Coordinator([new Worker({ id: 'b' }), new Worker({ id: 'a' }), new Worker({ id: 'c' })], new LoadBalancedPolicy());
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const blocking = { ...tool([]), handler: () => gate } as ToolDefinition;
    const first = coordinator.dispatch('1', blocking, {}, context());
    const second = coordinator.dispatch('2', blocking, {}, context());
    expect(coordinator.routing.load()).toEqual(
      new Map([
        ['a', 1],
        ['b', 1],
      ]),
    );
    expect(coordinator.route('3', blocking).worker).toBe('c');
    release();
    await Promise.all([first, second]);
    expect(coordinator.route('4', blocking).worker).toBe('a');
  });

  it('records every routing decision with its reason in the journal', async () => {
    const { store, orchestrator } = setup(undefined, { workers: [new Worker({ id: 'w1' }), new Worker({ id: 'w2' })] });
    const outcome = await orchestrator.start('add 1 and 2 then add 3 and 4 then add 5 and 6', 'demo');
    const decisions = (await store.readJournal(outcome.runId)).filter((e) => e.type === 'route_decision').map((e) => e.data);
    expect(decisions.map((d) => d['worker'])).toEqual(['w1', 'w2', 'w1']);
    expect(decisions.every((d) => d['policy'] === 'round_robin' && typeof d['reason'] === 'string')).toBe(true);
  });
});

describe('replay', () => {
  it('replays 50 recorded journals with zero divergence', async () => {
    const goals = [
      'add 2 and 3 then multiply the result by 4',
      'calculate (1 + 2) * 3',
      'echo "hello"',
      'count the words in "a b c a"',
      'divide 1 by 0',
      'book a cab',
    ];
    for (let i = 0; i < 50; i++) {
      const { orchestrator, store, registry } = setup();
      const outcome = await orchestrator.start(`${goals[i % goals.length]!}${i % 2 ? '' : ' then echo "done"'}`, 'demo', { seed: i });
      const journal = await store.readJournal(outcome.runId);
      const result = await replay(journal, registry);
      expect(result, `journal ${i}`).toEqual({ ok: true, events: journal.length, head: { seq: journal.length - 1, hash: journal.at(-1)!.hash } });
    }
  });

  it('reports a changed tool output at the right seq', async () => {
    const { orchestrator, store, registry } = setup();
    const outcome = await orchestrator.start('add 2 and 3 then multiply the result by 4', 'demo');
    const journal = await store.readJournal(outcome.runId);
    const target = journal.find((e) => e.type === 'tool_call_complete')!;
    // Tamper with the output and re-seal the chain so the journal still verifies.
    const tampered: JournalEvent[] = [];
    for (const event of journal)
      tampered.push(sealEvent(tampered.at(-1), event.runId, event.type, event.at, event.seq === target.seq ? { ...event.data, output: 6 } : event.data));
    expect(verifyJournal(tampered).ok).toBe(true);
    const result = await replay(tampered, registry, { verifyTools: true });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.divergence.seq).toBe(target.seq);
      expect((result.divergence.expected!.data as { output?: unknown }).output).toBe(6);
      expect((result.divergence.actual!.data as { output?: unknown }).output).toBe(5);
    }
    // A tool whose behaviour changed is caught the same way.
    const changed = new ToolRegistry();
    registerBuiltinTools(changed);
    const changedAdd = new ToolRegistry();
    changedAdd.register('demo', 'add', {
      ...changed.resolve('demo', 'add'),
      handler: (input: unknown) => {
        const { a, b } = input as { a: number; b: number };
        return a + b + 1;
      },
    });
    for (const t of changed.definitions('demo')) if (t.name !== 'add') changedAdd.register('demo', t.name, t);
    const drift = await replay(journal, changedAdd, { verifyTools: true });
    expect(drift).toMatchObject({ ok: false, divergence: { seq: target.seq } });
  });

  it('refuses a journal with a broken chain', async () => {
    const { orchestrator, store, registry } = setup();
    const outcome = await orchestrator.start('add 2 and 3', 'demo');
    const journal = await store.readJournal(outcome.runId);
    const broken = journal.map((e, i) => (i === 3 ? { ...e, at: e.at + 1 } : e));
    await expect(replay(broken, registry)).rejects.toMatchObject({ code: 'journal_invalid' });
    expect(projectRun(journal).status).toBe('completed');
  });
});

describe('usage', () => {
  it('adds costs as money: three calls of 0.1 cost 0.3, in the outcome and the profile budget', async () => {
    const { orchestrator, store } = setup(
      (r) => r.register('demo', 'dime', { description: 'costs a dime', cost: 0.1, parameters: z.object({ n: z.number() }), handler: ({ n }) => n }),
      { profileBudgets: { demo: { costCeiling: 10 } } },
    );
    const done = await orchestrator.start('dime(n=1) then dime(n=2) then dime(n=3)', 'demo');
    expect({ status: done.status, error: done.error }).toEqual({ status: 'completed', error: undefined });
    expect(done.usage.cost).toBe(0.3);
    expect(done.goal).toBe('dime(n=1) then dime(n=2) then dime(n=3)');
    expect(done.createdAt).toBeLessThanOrEqual(done.updatedAt);
    expect((await store.getProfileUsage('demo')).cost).toBe(0.3);
  });
});

describe('cancel', () => {
  it('cancels a paused run and refuses to touch a finished one', async () => {
    const { orchestrator } = setup((r) =>
      r.register('demo', 'wire', { description: 'wire money', parameters: z.object({}), requiresApproval: true, handler: () => 1 }),
    );
    const paused = await orchestrator.start('wire({})', 'demo');
    expect((await orchestrator.cancel(paused.runId, 'changed my mind')).status).toBe('cancelled');
    const [, code] = await codeOf(orchestrator.cancel(paused.runId));
    expect(code).toBe('run_finished');
    const [, resumeCode] = await codeOf(orchestrator.resume(paused.runId));
    expect(resumeCode).toBe('run_finished');
  });
});

function context() {
  return {
    profile: 'demo',
    traceId: 't',
    runId: 'r',
    stepIndex: 0,
    signal: new AbortController().signal,
    idempotencyKey: 'r:s',
    attempt: 1,
    secret: () => Promise.reject(new Error('no secrets here')),
  };
}

function ToolRegistryDefine(capabilities: string[]): ToolDefinition {
  return ToolRegistry.define('demo', 'probe', { description: 'probe', parameters: z.object({}), capabilities, handler: () => 'ok' });
}
