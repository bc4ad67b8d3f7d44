import { canonicalJson } from '../../journal/canonicalJson.ts';
import { sha256Hex } from '../../journal/sha256.ts';
import type { ModelPrompt, ModelTool } from '../../models/model.ts';
import { redact } from '../../policy/redaction.ts';
import type { JournalEventData } from '../../schema/journalEvent.ts';
import type { ToolRegistry } from '../../tools/toolRegistry.ts';
import type { CallPurpose } from '../../schema/agent.ts';
import type { AgentTurn } from '../agentState.ts';
import { reviewPrompt } from './agentReview.ts';
import type { RunState, StepState } from '../runState.ts';

type ToolResultOutput = { type: 'json'; value: never } | { type: 'error-text'; value: string };
type ModelMessage = ModelPrompt[number];

/** The instructions every agent run starts with. */
export function systemPrompt(profile: string): string {
  return [
    `You are the agent of the CUGAr profile "${profile}".`,
    "Reach the user's goal by calling the tools you are given; every result comes back to you.",
    'When the goal is reached, or cannot be reached with these tools, answer in plain text without calling a tool.',
    'If you cannot call tools natively, write each call as a JSON object: {"tool": "<name>", "arguments": {…}}.',
  ].join(' ');
}

// A run's registry is its own sandbox, fixed when the run is taken over: its tools (and their
// hash) are built once.
const toolCache = new WeakMap<ToolRegistry, Map<string, { tools: ModelTool[]; hash: string }>>();

function toolsOf(registry: ToolRegistry, profile: string): { tools: ModelTool[]; hash: string } {
  let byProfile = toolCache.get(registry);
  if (!byProfile) toolCache.set(registry, (byProfile = new Map()));
  let entry = byProfile.get(profile);
  if (!entry) {
    const tools = registry.definitions(profile).map((tool) => ({
      type: 'function' as const,
      name: tool.name,
      description: tool.description,
      inputSchema: structuredClone(tool.inputSchema) as ModelTool['inputSchema'],
    }));
    entry = { tools, hash: sha256Hex(canonicalJson(tools)) };
    byProfile.set(profile, entry);
  }
  return entry;
}

/** The profile's tools as the model sees them: name, description and the JSON Schema of the inputs. */
export function modelTools(registry: ToolRegistry, profile: string): ModelTool[] {
  return toolsOf(registry, profile).tools;
}

// A turn's messages are final once its calls have settled, which they have whenever the next call
// is built: each turn is rendered and hashed once per run being driven.
const turnCache = new WeakMap<AgentTurn, Array<{ message: ModelMessage; hash: string }>>();

const hashed = (message: ModelMessage) => ({ message, hash: sha256Hex(canonicalJson(message)) });

function resultOf(step: StepState | undefined): ToolResultOutput {
  if (step?.status === 'completed') return { type: 'json', value: (step.output ?? null) as never };
  const error = step?.error;
  return { type: 'error-text', value: error ? `${error.code}: ${error.message}` : 'the call did not run' };
}

/** One answered turn and its results, as the model reads them on the next call. */
function turnMessages(turn: AgentTurn, steps: ReadonlyMap<string, StepState>): ModelMessage[] {
  if (turn.toolCalls.length === 0) return [{ role: 'assistant', content: [{ type: 'text', text: turn.text }] }];
  const results = turn.toolCalls.map((call) => {
    const rejected = turn.rejected.find((r) => r.toolCallId === call.toolCallId);
    const stepId = turn.steps.find((s) => s.toolCallId === call.toolCallId)?.stepId;
    const output: ToolResultOutput = rejected
      ? { type: 'error-text', value: `invalid call, not run: ${rejected.error.message}` }
      : resultOf(stepId ? steps.get(stepId) : undefined);
    return { call, output };
  });
  if (turn.toolCallMode === 'text') {
    const lines = results.map(({ call, output }) => `${call.toolName}: ${output.type === 'json' ? canonicalJson(output.value) : `error: ${output.value}`}`);
    return [
      { role: 'assistant', content: [{ type: 'text', text: turn.text }] },
      { role: 'user', content: [{ type: 'text', text: `Tool results:\n${lines.join('\n')}` }] },
    ];
  }
  return [
    {
      role: 'assistant',
      content: [
        ...(turn.text ? [{ type: 'text' as const, text: turn.text }] : []),
        ...turn.toolCalls.map((call) => ({ type: 'tool-call' as const, toolCallId: call.toolCallId, toolName: call.toolName, input: call.input })),
      ],
    },
    {
      role: 'tool',
      content: results.map(({ call, output }) => ({ type: 'tool-result' as const, toolCallId: call.toolCallId, toolName: call.toolName, output })),
    },
  ];
}

/**
 * The whole conversation so far, built from the run's state alone (a resumed or replayed run
 * asks the same), the hash of each message, and where the messages added since the previous call begin.
 */
export function agentPrompt(state: RunState): { prompt: ModelPrompt; hashes: string[]; from: number } {
  const steps = new Map(state.steps.map((step) => [step.stepId, step]));
  const agent = state.agent;
  const notes = agent?.notes ?? [];
  // After three failed reviews the conversation starts over, with what the reviews found.
  const failures = agent && agent.restartAt > 0 ? agent.failedReviews : [];
  let system = systemPrompt(state.inputs.profile);
  if (notes.length) system += `\nNotes from earlier runs of this profile (what worked and what failed):\n${notes.map((note) => `- ${note}`).join('\n')}`;
  if (failures.length)
    system += `\nEarlier attempts at this goal failed review:\n${failures.map((reason) => `- ${reason}`).join('\n')}\nStart again and avoid these.`;
  const entries = [hashed({ role: 'system', content: system }), hashed({ role: 'user', content: [{ type: 'text', text: state.inputs.goal }] })];
  let from = 0;
  for (const turn of agent?.turns.slice(agent.restartAt) ?? []) {
    // Phase 1's classification is not part of the conversation; a failed review sends the model back to work.
    if (turn.purpose === 'review' && turn.review && !turn.review.passed) {
      entries.push(
        hashed({ role: 'user', content: [{ type: 'text', text: `A review found the answer does not reach the goal yet: ${turn.review.reason} Continue.` }] }),
      );
    }
    if (turn.purpose) continue;
    from = entries.length;
    let rendered = turnCache.get(turn);
    if (!rendered) turnCache.set(turn, (rendered = turnMessages(turn, steps).map(hashed)));
    entries.push(...rendered);
  }
  return { prompt: entries.map((e) => e.message), hashes: entries.map((e) => e.hash), from };
}

/** Phase 1's question: is the goal trivial, and if so its answer, as JSON. */
export function prePlanPrompt(state: RunState, tools: readonly ModelTool[]): ModelPrompt {
  return [
    {
      role: 'system',
      content: [
        `You triage goals for the CUGAr profile "${state.inputs.profile}", whose tools are: ${tools.map((tool) => tool.name).join(', ') || 'none'}.`,
        'Answer with one JSON object and nothing else: {"trivial": true|false, "confidence": 0..1, "answer": "…"}.',
        'A goal is trivial when it can be answered correctly without any tool; then give the answer. Otherwise set trivial to false.',
      ].join(' '),
    },
    { role: 'user', content: [{ type: 'text', text: state.inputs.goal }] },
  ];
}

/** A model request ready to send, its hash, and the record the journal keeps of it. */
export interface ModelRequest {
  prompt: ModelPrompt;
  tools: ModelTool[];
  temperature?: number;
  maxOutputTokens?: number;
  requestHash: string;
  record: JournalEventData<'model_call_start'>['request'];
  /** Ask for a JSON answer (phase 1). */
  json?: boolean;
}

/** Build the next request of an agent run for `model`. */
export function modelRequest(state: RunState, registry: ToolRegistry, model: string, purpose?: CallPurpose): ModelRequest {
  const settings = state.inputs.agent!;
  const { tools: offered, hash: toolsHash } = toolsOf(registry, state.inputs.profile);
  const own = (prompt: ModelPrompt) => ({ prompt, hashes: prompt.map((message) => hashed(message).hash), from: 0 });
  const { prompt, hashes, from } =
    purpose === 'preplan' ? own(prePlanPrompt(state, offered)) : purpose === 'review' ? own(reviewPrompt(state)) : agentPrompt(state);
  // Phase 1 names the tools in its question but offers none; a review offers none either.
  const tools = purpose ? [] : offered;
  const tuning = {
    ...(settings.temperature !== undefined ? { temperature: settings.temperature } : {}),
    ...(settings.maxOutputTokens !== undefined ? { maxOutputTokens: settings.maxOutputTokens } : {}),
  };
  // The request's hash, with each message and the tool list standing in by their own hashes
  // (each is hashed once, not once per call).
  const requestHash = sha256Hex(
    canonicalJson({ model, messages: hashes, tools: purpose ? [] : toolsHash, ...(purpose ? { responseFormat: 'json' } : { toolChoice: 'auto' }), ...tuning }),
  );
  // The journal keeps what is new since the previous call (the whole prompt is in the journal
  // once, piece by piece, instead of once per call); the hash covers the whole request.
  const record = {
    messages: redact(prompt.slice(from)) as unknown[],
    ...(from ? { fromMessage: from } : {}),
    tools: tools.map((tool) => tool.name),
    ...tuning,
  };
  return { prompt, tools, ...tuning, requestHash, record, ...(purpose ? { json: true } : {}) };
}
