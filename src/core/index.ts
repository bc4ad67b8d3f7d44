/**
 * CUGAr's isomorphic core: the same code in a browser tab, an edge worker and Node.
 * Only Web-standard APIs are used here; hosts hand in storage, clocks and ids as ports.
 *
 * @example
 * import { Controller, ToolRegistry, registerBuiltinTools } from 'cugar';
 * const registry = new ToolRegistry();
 * registerBuiltinTools(registry);
 * const result = await new Controller({ registry }).run('add 10 and 5', 'demo');
 */
export * from './errors.ts';
export * from './ports.ts';
export * from './schema/common.ts';
export * from './schema/config.ts';
export * from './schema/event.ts';
export * from './schema/plan.ts';
export * from './schema/result.ts';
export * from './schema/validate.ts';
export * from './embed/hash32.ts';
export * from './embed/tokenize.ts';
export * from './embed/hashingEmbedder.ts';
export * from './vector/vectorBackend.ts';
export * from './vector/topK.ts';
export * from './vector/flatVectorIndex.ts';
export * from './vector/keywordIndex.ts';
export * from './tools/tool.ts';
export * from './tools/toolRegistry.ts';
export * from './tools/calculator.ts';
export { textStats, type TextStats } from './tools/text.ts';
export { MAX_WAIT_MS } from './tools/wait.ts';
export * from './tools/builtins.ts';
export * from './tools/loaders.ts';
export * from './planning/toolCallDetector.ts';
export * from './planning/slotFilling.ts';
export * from './planning/planner.ts';
export * from './policy/redaction.ts';
export * from './policy/policyEnforcer.ts';
export * from './journal/eventBus.ts';
export * from './orchestrator/executor.ts';
export * from './orchestrator/controller.ts';
export * from './journal/canonicalJson.ts';
export * from './journal/sha256.ts';
export * from './journal/journal.ts';
export * from './store/store.ts';
export * from './store/hostStore.ts';
export * from './journal/replay.ts';
export * from './journal/trace.ts';
export * from './planning/planningAuthority.ts';
export * from './routing/routingAuthority.ts';
export * from './routing/coordinator.ts';
export * from './orchestrator/executionContext.ts';
export * from './orchestrator/retryPolicy.ts';
export * from './orchestrator/partialResult.ts';
export * from './orchestrator/autonomy.ts';
export * from './orchestrator/runState.ts';
export * from './orchestrator/orchestrator.ts';
export * from './memory/memoryStore.ts';
export * from './memory/memoryManager.ts';
export * from './rag/extractText.ts';
export * from './rag/chunker.ts';
export * from './rag/ragIndex.ts';
export * from './rag/ragLoader.ts';
export * from './rag/ragRetriever.ts';
export * from './tools/memoryTools.ts';
export * from './journal/importJournal.ts';
export * from './journal/otlp.ts';
