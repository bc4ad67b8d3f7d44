import * as z from 'zod';
import { canonicalJson } from '../../journal/canonicalJson.ts';
import type { ModelPrompt } from '../../models/model.ts';
import type { RunState } from '../runState.ts';

/** Most characters of the work shown to a review (the latest results are kept). */
const WORK_LIMIT = 20_000;

const VerdictSchema = z.object({ done: z.boolean(), reason: z.string().optional() });

/**
 * The review of an answer: the goal, the tool calls of the current attempt with their results,
 * and the answer, with the question whether the answer reaches the goal, as JSON.
 */
export function reviewPrompt(state: RunState): ModelPrompt {
  const agent = state.agent!;
  const steps = new Map(state.steps.map((step) => [step.stepId, step]));
  const work: string[] = [];
  for (const turn of agent.turns.slice(agent.restartAt)) {
    if (turn.purpose) continue;
    for (const { stepId } of turn.steps) {
      const step = steps.get(stepId);
      if (!step) continue;
      const result = step.status === 'completed' ? canonicalJson(step.output ?? null) : `error ${step.error?.code ?? 'unknown'}: ${step.error?.message ?? ''}`;
      work.push(`${step.tool}(${canonicalJson(step.input)}) → ${result}`);
    }
  }
  const shown = work.join('\n');
  return [
    {
      role: 'system',
      content:
        'You review the work of an agent. Decide whether its answer reaches the goal, judging by the tool results. ' +
        'Reply with one JSON object and nothing else: {"done": true|false, "reason": "what is missing or wrong, or why it is done"}.',
    },
    {
      role: 'user',
      content: [
        {
          type: 'text',
          text: `Goal: ${state.inputs.goal}\n\nTool calls and results:\n${(shown.length > WORK_LIMIT ? `…${shown.slice(-WORK_LIMIT)}` : shown) || '(none)'}\n\nAnswer: ${agent.answer ?? ''}`,
        },
      ],
    },
  ];
}

/** A review's verdict from its text: passed only when it says `done: true`; anything unreadable fails with that as the reason. */
export function reviewVerdict(text: string): { passed: boolean; reason: string } {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  let parsed: unknown;
  try {
    parsed = start >= 0 && end > start ? JSON.parse(text.slice(start, end + 1)) : undefined;
  } catch {
    parsed = undefined;
  }
  const verdict = VerdictSchema.safeParse(parsed);
  if (!verdict.success) return { passed: false, reason: 'the review did not give a verdict as JSON' };
  return { passed: verdict.data.done, reason: (verdict.data.reason ?? '').slice(0, 2000) };
}
