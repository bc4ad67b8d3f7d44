import { z } from 'zod';
import {
  HashingEmbedder,
  InMemoryVectorBackend,
  MemoryManager,
  Orchestrator,
  ToolRegistry,
  type ModelProvider,
  type RunMemory,
  type Store,
} from '../../src/core/index.ts';
import { InMemoryMemoryStore } from '../../src/core/stores.ts';
import { createSequentialIds, steppingClock } from '../../src/core/testing.ts';

// Fixtures of the memory-in-the-loop tests (tests/conformance/memoryLoop.test.ts and
// tests/node/memoryLoop.test.ts): a profile memory, two forecast tools of which the one the
// planner ranks first is down, and an orchestrator with a fixed clock and ids.

/** A profile memory over in-memory facts and vectors, with its own fixed clock and ids. */
export async function memoryManager(): Promise<MemoryManager> {
  const vectors = new InMemoryVectorBackend(256);
  await vectors.connect();
  return new MemoryManager({
    store: new InMemoryMemoryStore(),
    vectors,
    embedder: new HashingEmbedder({ dimension: 256 }),
    clock: steppingClock(Date.UTC(2026, 0, 1), 1000),
    ids: createSequentialIds('mem'),
  });
}

/** Two forecast tools: the one the planner ranks first is down, the backup works (left out with `withBackup` false). */
export function registry(calls: string[] = [], withBackup = true): ToolRegistry {
  const tools = new ToolRegistry();
  tools.register('demo', 'weather_forecast', {
    description: 'Weather forecast for a city',
    parameters: z.object({ city: z.string().optional() }),
    handler: () => {
      calls.push('weather_forecast');
      throw new Error('the forecast service is down');
    },
  });
  if (!withBackup) return tools;
  tools.register('demo', 'forecast_service', {
    description: 'Forecast of the weather in a city from the backup service',
    parameters: z.object({ city: z.string().optional() }),
    handler: () => {
      calls.push('forecast_service');
      return { forecast: 'sunny, 21°C' };
    },
  });
  return tools;
}

/** An orchestrator with a fixed clock and ids, one attempt per step, and `memory` and `models` when given (the model writes the reflection). */
export function orchestrator(tools: ToolRegistry, store: Store, options: { memory?: RunMemory; models?: ModelProvider; prefix?: string } = {}) {
  return new Orchestrator({
    registry: tools,
    store,
    ids: createSequentialIds(options.prefix ?? 'loop'),
    clock: steppingClock(Date.UTC(2026, 0, 2), 10),
    sleep: async () => undefined,
    retry: { maxAttempts: 1 },
    ...(options.memory ? { memory: options.memory } : {}),
    ...(options.models ? { models: options.models, reflectWithModel: true } : {}),
  });
}

/** Two near-identical goals (6 of their 8 words in common). */
export const FIRST = 'show the weather forecast for Paris this week';
export const NEAR = 'show the weather forecast for Lyon this week';
