import type { ErrorInfo } from '../schema/error.ts';
import type { CallPurpose, ModelToolCall } from '../schema/agent.ts';
import type { JournalEventOf, RunInputs } from '../schema/journalEvent.ts';

/** One answered model call and what the engine made of it. */
export interface AgentTurn {
  turn: number;
  callId: string;
  model: string;
  text: string;
  toolCalls: ModelToolCall[];
  toolCallMode: 'native' | 'text';
  /** `preplan` or `review`: calls the tool loop's conversation leaves out. */
  purpose?: CallPurpose;
  /** A review's verdict on the answer before it. */
  review?: { passed: boolean; reason: string };
  /** Step ids of the valid calls, in the model's order. */
  steps: Array<{ stepId: string; toolCallId: string }>;
  rejected: Array<{ toolCallId: string; tool: string; error: ErrorInfo }>;
}

/** A model call whose request is durable but whose answer is not (yet). */
export interface PendingModelCall {
  callId: string;
  turn: number;
  model: string;
  attempt: number;
}

/** The agent part of a run's state, folded from its model events. */
export interface AgentState {
  turns: AgentTurn[];
  /** Index into the recorded models of the one the next call uses. */
  modelIndex: number;
  /** Attempt the next call of the current turn uses. */
  nextAttempt: number;
  pending?: PendingModelCall;
  /** Invalid tool calls sent back to the model so far. */
  invalid: number;
  /** The model's final answer, once it answered without calling a tool. */
  answer?: string;
  /** The error that ended the model calls (no retry and no model left). */
  failure?: ErrorInfo;
  /** Reflections of earlier runs, recalled before the first call. */
  notes: string[];
  /** Whether the current answer passed its review. */
  reviewed?: boolean;
  /** Reasons of the failed reviews, in order. */
  failedReviews: string[];
  /** Index of the first turn of the current attempt: three failed reviews start the conversation over from here. */
  restartAt: number;
}

/** Failed reviews after which the conversation starts over, with the failures in context. */
export const REVIEWS_BEFORE_RESTART = 3;

/** The agent state of a run whose inputs ask for one. */
export function initialAgentState(inputs: RunInputs): AgentState | undefined {
  return inputs.agent ? { turns: [], modelIndex: 0, nextAttempt: 1, invalid: 0, notes: [], failedReviews: [], restartAt: 0 } : undefined;
}

type AgentEvent = JournalEventOf<'model_call_start' | 'model_call_complete' | 'model_call_error' | 'agent_turn' | 'memory_recalled'>;

/** Fold one model event into the agent state; returns the random draws it consumed. */
export function applyAgentEvent(agent: AgentState, event: AgentEvent): number {
  switch (event.type) {
    case 'memory_recalled':
      agent.notes = event.data.notes.map((note) => note.text);
      return 0;
    case 'model_call_start': {
      const { callId, turn, model, attempt } = event.data;
      agent.pending = { callId, turn, model, attempt };
      // A call re-issued after a crash counts as the next attempt.
      agent.nextAttempt = attempt + 1;
      return 0;
    }
    case 'model_call_complete': {
      const { callId, turn, model, text, toolCalls, toolCallMode, purpose } = event.data;
      agent.pending = undefined;
      agent.turns.push({ turn, callId, model, text, toolCalls, toolCallMode, steps: [], rejected: [], ...(purpose ? { purpose } : {}) });
      agent.nextAttempt = 1;
      return 0;
    }
    case 'model_call_error': {
      const { next, error, attempt, jitter } = event.data;
      agent.pending = undefined;
      if (next === 'retry') agent.nextAttempt = attempt + 1;
      else if (next === 'fallback') {
        agent.modelIndex++;
        agent.nextAttempt = 1;
      } else agent.failure = error;
      return jitter === undefined ? 0 : 1;
    }
    case 'agent_turn': {
      const turn = agent.turns.find((t) => t.callId === event.data.callId);
      if (turn) {
        turn.steps = event.data.steps.map(({ stepId, toolCallId }) => ({ stepId, toolCallId }));
        turn.rejected = event.data.rejected.map(({ toolCallId, tool, error }) => ({ toolCallId, tool, error }));
      }
      agent.invalid += event.data.rejected.length;
      if (event.data.answer !== undefined) {
        agent.answer = event.data.answer;
        agent.reviewed = false;
      }
      const review = event.data.review;
      if (review) {
        if (turn) turn.review = review;
        if (review.passed) agent.reviewed = true;
        else {
          // A failed check sends the model back to work; every third one starts the conversation over.
          agent.answer = undefined;
          agent.failedReviews.push(review.reason);
          if (agent.failedReviews.length % REVIEWS_BEFORE_RESTART === 0) agent.restartAt = agent.turns.length;
        }
      }
      return 0;
    }
  }
}

/** Answered model calls so far. */
export function answeredCalls(agent: AgentState): number {
  return agent.turns.length;
}
