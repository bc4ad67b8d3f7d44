import { ValidationError } from '../errors.ts';
import type { ModelProvider } from '../models/model.ts';
import { detectToolCalls } from '../planning/toolCallDetector.ts';
import type { AgentSettings } from '../schema/agent.ts';
import type { ToolDefinition } from '../tools/tool.ts';

/** Whether a goal writes out calls of the profile's tools (`add(a=1, b=2)`, `{"tool": …}`). */
export function writesToolCalls(goal: string, tools: readonly ToolDefinition[]): boolean {
  const callable = new Map(tools.map((tool) => [tool.name, Object.keys((tool.inputSchema['properties'] as object | undefined) ?? {})]));
  return detectToolCalls(goal, callable).length > 0;
}

/**
 * The agent settings a new run records, or undefined when it is not an agent run: a run asks
 * for `agent` or `lexical`, or else is an agent run when models are configured, it brings no
 * plan of its own, and (phase 0, `detectToolCallsFromText`) its goal does not write out its calls.
 */
export function agentSettingsFor(request: {
  mode: 'agent' | 'lexical' | undefined;
  explicitPlan: boolean;
  goal: string;
  tools: readonly ToolDefinition[];
  models: ModelProvider | undefined;
  settings: Omit<AgentSettings, 'models'>;
  detectToolCallsFromText: boolean;
}): AgentSettings | undefined {
  const { mode, explicitPlan, models } = request;
  if (mode === 'lexical' || (mode === undefined && (explicitPlan || !models))) return undefined;
  if (mode === undefined && request.detectToolCallsFromText && writesToolCalls(request.goal, request.tools)) return undefined;
  if (explicitPlan) throw new ValidationError('an agent run plans with its model; it takes no plan', { code: 'invalid_mode' });
  if (!models || models.models.length === 0) throw new ValidationError('an agent run needs a model, and none is configured', { code: 'model_not_configured' });
  return { models: [...models.models], ...request.settings };
}
