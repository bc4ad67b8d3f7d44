import type { CugarError} from '../errors.ts';
import { ValidationError, toCugarError } from '../errors.ts';
import { isStepReference } from '../planning/slotFilling.ts';
import type { PolicyEnforcer } from '../policy/policyEnforcer.ts';
import type { Clock } from '../ports.ts';
import type { ErrorInfo, TraceEvent } from '../schema/event.ts';
import type { Plan, PlanStep } from '../schema/plan.ts';
import type { ToolRegistry } from '../tools/toolRegistry.ts';

/** Where and for whom a plan runs. */
export interface ExecutionScope {
  traceId: string;
  runId: string;
  profile: string;
  signal?: AbortSignal;
}

/** What {@link Executor.execute} returns. */
export interface ExecutionOutcome {
  success: boolean;
  outputs: Record<string, unknown>;
  logs: string[];
  error?: ErrorInfo;
  /** The step that failed, when one did. */
  failedStep?: PlanStep;
}

/** A JSON-safe description of a {@link CugarError}. */
export function errorInfo(error: CugarError): ErrorInfo {
  return error.toJSON();
}

/** Replace `{ "$ref": "step-N" }` values with the outputs of earlier steps. */
export function resolveReferences(input: Record<string, unknown>, outputs: Record<string, unknown>): Record<string, unknown> {
  const resolved: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    if (isStepReference(value)) {
      if (!Object.hasOwn(outputs, value.$ref)) {
        throw new ValidationError(`input "${key}" refers to step "${value.$ref}", which has no output`, { code: 'invalid_reference' });
      }
      resolved[key] = outputs[value.$ref];
    } else resolved[key] = value;
  }
  return resolved;
}

/**
 * Runs a plan's steps in order. Before each handler: the policy check and schema validation
 * (nothing runs on invalid input). Around each handler: `tool_call_start`, then
 * `tool_call_complete` or `tool_call_error`, each with trace id, step index, profile and
 * duration. The first failure stops the run.
 */
export class Executor {
  readonly #policy: PolicyEnforcer;
  readonly #clock: Clock;

  constructor(options: { policy: PolicyEnforcer; clock: Clock }) {
    this.#policy = options.policy;
    this.#clock = options.clock;
  }

  async execute(plan: Plan, registry: ToolRegistry, scope: ExecutionScope, emit: (event: TraceEvent) => void): Promise<ExecutionOutcome> {
    const outputs: Record<string, unknown> = {};
    const logs: string[] = [];
    const base = { traceId: scope.traceId, runId: scope.runId, profile: scope.profile };
    const signal = scope.signal ?? new AbortController().signal;

    for (const step of plan.steps) {
      const started = this.#clock.now();
      emit({ ...base, type: 'tool_call_start', at: started, stepIndex: step.index, data: { step: step.name, tool: step.tool, input: step.input } });
      try {
        if (signal.aborted) throw toCugarError(signal.reason ?? new Error('run cancelled'), { code: 'cancelled', failureMode: 'USER' });
        const tool = registry.resolve(scope.profile, step.tool);
        const input = this.#policy.checkStep(scope.profile, tool, resolveReferences(step.input, outputs));
        const output = await tool.handler(input, {
          profile: scope.profile,
          traceId: scope.traceId,
          runId: scope.runId,
          stepIndex: step.index,
          signal,
          idempotencyKey: `${scope.runId}:${step.name}`,
          attempt: 1,
        });
        const finished = this.#clock.now();
        outputs[step.name] = output;
        logs.push(`${step.name} ${step.tool} ok in ${finished - started} ms`);
        emit({ ...base, type: 'tool_call_complete', at: finished, stepIndex: step.index, durationMs: Math.max(0, finished - started), data: { step: step.name, tool: step.tool, output } });
      } catch (thrown) {
        const error = toCugarError(thrown, { code: 'tool_failed', failureMode: 'AGENT' });
        const finished = this.#clock.now();
        const info = errorInfo(error);
        logs.push(`${step.name} ${step.tool} failed: ${error.code}: ${error.message}`);
        emit({ ...base, type: 'tool_call_error', at: finished, stepIndex: step.index, durationMs: Math.max(0, finished - started), data: { step: step.name, tool: step.tool, error: info } });
        return { success: false, outputs, logs, error: info, failedStep: step };
      }
    }
    return { success: true, outputs, logs };
  }
}
