import { z } from 'zod';
import { InMemoryStore, Orchestrator, ToolRegistry, createSequentialIds } from './src/core/index.ts';
const registry = new ToolRegistry();
registry.register('bench', 'noop', { description: 'does nothing', parameters: z.object({ i: z.number() }), idempotent: true, handler: ({ i }) => i });
const plan = Array.from({ length: 1000 }, (_, i) => ({ tool: 'noop', input: { i } }));
for (let r = 0; r < 6; r++) {
  const o = new Orchestrator({ registry, store: new InMemoryStore(), ids: createSequentialIds(`b${r}`), autonomy: { maxRepeats: 2000 } });
  const t = performance.now(); await o.start('run', 'bench', { plan }); console.log((performance.now() - t).toFixed(1));
}
