import { ValidationError, errorFromInfo } from '../errors.ts';
import { toJsonData } from '../journal/canonicalJson.ts';
import { verifyJournal } from '../journal/journal.ts';
import type { Model, ModelContent, ModelProvider } from '../models/model.ts';
import type { ModelToolCall } from '../schema/agent.ts';
import type { JournalEvent, JournalEventOf, RunInputs } from '../schema/journalEvent.ts';
import { ToolRegistry } from '../tools/toolRegistry.ts';
import type { OrchestratorOptions } from './options.ts';
import { Orchestrator } from './orchestrator.ts';
import { recordedMemory, streamOf } from './recordedModel.ts';
import { DELEGATE_TOOL } from './delegation.ts';
import type { RunOutcome } from './runOutcome.ts';

/** What a fork changes at the event it forks from. */
export type ForkEdit =
  /** At seq 0: the same run with another goal. */
  | { kind: 'goal'; goal: string }
  /** At a `model_call_complete`: another answer from the model. */
  | { kind: 'model_answer'; text?: string; toolCalls?: ModelToolCall[] }
  /** At an `approval_received`: another decision. */
  | { kind: 'approval'; decision: 'approve' | 'reject' | 'edit'; reason?: string; args?: Record<string, unknown> };

/** Options of {@link forkRun}: the orchestrator the fork runs in (its store, registry and live models), and the fork point. */
export interface ForkOptions extends OrchestratorOptions {
  /** The seq of the event to change. */
  at: number;
  edit: ForkEdit;
  /** The fork's run id. */
  runId: string;
}

type ModelResult = JournalEventOf<'model_call_complete' | 'model_call_error'>;
type ToolResult = JournalEventOf<'tool_call_complete' | 'tool_call_error'>;

function contentOf(text: string, toolCalls: readonly ModelToolCall[]): ModelContent[] {
  return [
    ...(text ? [{ type: 'text' as const, text }] : []),
    ...toolCalls.map((call) => ({
      type: 'tool-call' as const,
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      input: typeof call.input === 'string' ? call.input : JSON.stringify(call.input),
    })),
  ];
}

/** The source's model answers before the fork point (and the edited one at it), in order; then the live models. */
function forkedModels(
  results: readonly ModelResult[],
  edited: ModelResult | undefined,
  live: ModelProvider | undefined,
  ids: readonly string[],
): ModelProvider {
  const queue = [...results, ...(edited ? [edited] : [])];
  const answer = async (id: string, call: (model: Model) => ReturnType<Model['doGenerate']>) => {
    const next = queue.shift();
    if (!next) {
      if (!live) throw new ValidationError('the fork needs a live model past its fork point', { code: 'model_not_configured' });
      return call(live.model(id));
    }
    if (next.type === 'model_call_error') throw errorFromInfo(next.data.error);
    const { text, toolCalls, toolCallMode, finishReason, usage } = next.data;
    return { content: contentOf(text, toolCallMode === 'native' ? toolCalls : []), finishReason: finishReason as never, usage, warnings: [] };
  };
  const model = (id: string): Model => ({
    specificationVersion: 'v2',
    provider: 'cugar.fork',
    modelId: id,
    supportedUrls: {},
    doGenerate: (options) => answer(id, (m) => m.doGenerate(options)),
    // A fork calls without streaming until the live models take over.
    doStream: async (options) => {
      if (queue.length === 0 && live) return live.model(id).doStream(options);
      const result = await answer(id, (m) => m.doGenerate(options));
      return { stream: streamOf(result.content, result.finishReason, result.usage) };
    },
  });
  return { models: [...ids], model };
}

/**
 * Fork a recorded run at one event with one change (another goal, model answer or approval
 * decision): a new run, driven by the engine like any other, whose inputs name the source's
 * head (`forkOf`). Up to the fork point it follows the source without effects — recorded model
 * answers, tool results and decisions are fed back, no tool or provider is called — then it takes
 * the change and goes on live (`models` and the registry's tools). Its journal is its own, so it
 * verifies and replays like any run; the source is untouched.
 *
 * @example
 * const fork = await forkRun(journal, { registry, store, models, runId: 'run_b', at: answer.seq, edit: { kind: 'model_answer', text: 'Try AF2.' } });
 */
export async function forkRun(source: readonly JournalEvent[], options: ForkOptions): Promise<RunOutcome> {
  const { at, edit, runId, registry, ...rest } = options;
  if (!verifyJournal(source).ok) throw new ValidationError('the source journal does not verify', { code: 'journal_invalid' });
  const first = source[0];
  const head = source.at(-1);
  const target = source[at];
  if (first?.type !== 'stage' || !first.data.inputs || !head || !target)
    throw new ValidationError(`the source journal has no event ${at} to fork from`, { code: 'invalid_fork' });
  const expected = { goal: 'stage', model_answer: 'model_call_complete', approval: 'approval_received' }[edit.kind];
  if (target.type !== expected || (edit.kind === 'goal' && at !== 0))
    throw new ValidationError(`a ${edit.kind} fork changes a ${expected} event (seq ${at} is ${target.type})`, { code: 'invalid_fork' });
  const recorded = first.data.inputs;
  const inputs: RunInputs = toJsonData({
    ...recorded,
    ...(edit.kind === 'goal' ? { goal: edit.goal } : {}),
    context: { ...recorded.context, ...(edit.kind === 'goal' ? { userIntent: edit.goal } : {}), runId, requestId: runId },
    forkOf: { runId: first.runId, seq: head.seq, hash: head.hash, at },
  });
  const before = (e: JournalEvent) => e.seq < at;
  // A sub-run is a run of its own: a fork cannot replay a delegation, so it starts after the last one.
  if (source.some((e) => before(e) && e.type === 'tool_call_start' && e.data.tool === DELEGATE_TOOL && recorded.agent?.delegate))
    throw new ValidationError(`the source delegated to a sub-run before seq ${at}: fork it from a later event`, { code: 'invalid_fork' });
  const modelResults = source.filter((e): e is ModelResult => before(e) && (e.type === 'model_call_complete' || e.type === 'model_call_error'));
  const edited: ModelResult | undefined =
    edit.kind === 'model_answer' && target.type === 'model_call_complete'
      ? {
          ...target,
          data: {
            ...target.data,
            ...(edit.text !== undefined ? { text: edit.text } : {}),
            ...(edit.toolCalls ? { toolCalls: edit.toolCalls, toolCallMode: 'native' } : {}),
          },
        }
      : undefined;
  // Tools before the fork point give back what they gave the source; after it they run.
  const toolResults = source.filter((e): e is ToolResult => before(e) && (e.type === 'tool_call_complete' || e.type === 'tool_call_error'));
  const forkRegistry = new ToolRegistry();
  // The tool versions the source recorded are the fork's too (it keeps the source's inputs), whatever is active now.
  const pinned = Object.entries(recorded.toolVersions ?? {}).flatMap(([name, hash]) => {
    const spec = rest.toolVersions?.spec(recorded.profile, name, hash);
    return spec ? [{ ...spec, name }] : [];
  });
  const shipped = registry.definitions(recorded.profile).filter((tool) => recorded.toolVersions?.[tool.name] === undefined);
  for (const tool of [...pinned, ...shipped]) {
    forkRegistry.register(recorded.profile, tool.name, {
      ...tool,
      handler: (input: unknown, context: Parameters<typeof tool.handler>[1]) => {
        const stepId = context.idempotencyKey.slice(runId.length + 1);
        const result = toolResults.find((e) => e.data.stepId === stepId && e.data.attempt === context.attempt);
        if (!result) return tool.handler(input, context);
        if (result.type === 'tool_call_error') throw errorFromInfo(result.data.error);
        return result.data.output;
      },
    });
  }
  const models = inputs.agent ? forkedModels(modelResults, edited, rest.models, inputs.agent.models) : rest.models;
  // Notes the source recalled before the fork point are the fork's too; what it keeps goes to the live memory.
  const prefix = source.filter(before);
  const recalledBefore = prefix.some((e) => e.type === 'memory_recalled' || (e.type === 'memory_warning' && e.data.operation === 'recall'));
  const memory = rest.memory && recalledBefore ? { recall: recordedMemory(prefix).recall, remember: rest.memory.remember.bind(rest.memory) } : rest.memory;
  const orchestrator = new Orchestrator({ ...rest, registry: forkRegistry, ...(models ? { models } : {}), ...(memory ? { memory } : {}) });
  let outcome = await orchestrator.startRecorded(runId, inputs);
  // Decisions the source recorded before the fork point are taken again; the edited one replaces its own.
  const decisions = source.filter((e): e is JournalEventOf<'approval_received'> => e.type === 'approval_received' && e.seq <= at);
  const stepOf = new Map(source.filter((e) => e.type === 'approval_requested').map((e) => [e.data.approvalId, e.data.stepId]));
  for (let guard = 0; outcome.status === 'paused' && outcome.pendingApproval && guard < decisions.length + 1; guard++) {
    const pending = outcome.pendingApproval;
    const recordedDecision = decisions.find((d) => stepOf.get(d.data.approvalId) === pending.stepId);
    if (!recordedDecision) break;
    decisions.splice(decisions.indexOf(recordedDecision), 1);
    const decision =
      recordedDecision.seq === at && edit.kind === 'approval'
        ? { decision: edit.decision, reason: edit.reason ?? '', by: 'fork', ...(edit.args ? { args: edit.args } : {}) }
        : {
            decision: recordedDecision.data.decision,
            reason: recordedDecision.data.reason,
            by: recordedDecision.data.by,
            ...(recordedDecision.data.args ? { args: recordedDecision.data.args } : {}),
          };
    outcome = await orchestrator.resolveApproval(pending.approvalId, decision);
  }
  return outcome;
}
