/**
 * CUGAr's isomorphic core: the same code in a browser tab, an edge worker and Node.
 * Only Web-standard APIs are used here; hosts hand in storage, clocks and ids as ports.
 * Every export is named; adapter authors import `cugar/stores`, tests `cugar/testing`.
 *
 * @example
 * import { Controller, ToolRegistry, registerBuiltinTools } from 'cugar';
 * const registry = new ToolRegistry();
 * registerBuiltinTools(registry);
 * const result = await new Controller({ registry }).run('add 10 and 5', 'demo');
 */

// Errors
export {
  ApprovalRejectedError,
  ConflictError,
  CugarError,
  FAILURE_MODES,
  MaxStepsError,
  NoRelevantToolError,
  NotFoundError,
  PolicyViolationError,
  RepetitionError,
  ResourceError,
  SystemError,
  ToolExecutionError,
  ValidationError,
  errorFromInfo,
  toCugarError,
  type CugarErrorOptions,
  type FailureMode,
  type Result,
} from './errors.ts';

// Ports
export { createRandomIds, createYielder, pause, systemClock, type Clock, type Ids, type Random } from './ports.ts';

// Schemas and their types
export {
  GoalTextSchema,
  JsonValueSchema,
  MAX_GOAL_BYTES,
  MetadataSchema,
  PROFILE_NAME_PATTERN,
  ProfileNameSchema,
  ToolNameSchema,
  type JsonValue,
  type Metadata,
} from './schema/common.ts';
export { ConfigSchema, DEFAULT_CONFIG, parseConfig, type Config, type ConfigParseResult } from './schema/config.ts';
export {
  AgentSettingsSchema,
  ModelPriceSchema,
  ModelToolCallSchema,
  type AgentSettings,
  type CallPurpose,
  type ModelPrice,
  type ModelToolCall,
  type ModelUsage,
} from './schema/agent.ts';
export { staticModels, type Model, type ModelCallOptions, type ModelPrompt, type ModelProvider, type ModelTool } from './models/model.ts';
export { callModel, type ModelAnswer } from './models/modelCall.ts';
export { MAX_RETRY_AFTER_MS, ModelCallError, classifyModelError, parseRetryAfter, type ModelErrorDetails } from './models/modelErrors.ts';
export { agentSettingsFrom, parseModelSettings, type ModelHostSettings, type ModelSettingsResult } from './models/modelSettings.ts';
export {
  EXECUTION_NAMESPACE,
  GOALS_NAMESPACE,
  PLANS_NAMESPACE,
  REFLECTION_NAMESPACE,
  memoryManagerRunMemory,
  nearIdenticalGoals,
  toolsToAvoid,
  type RecalledNote,
  type RememberedStep,
  type RunMemory,
  type RunNote,
} from './memory/runMemory.ts';
export { ErrorInfoSchema, type ErrorInfo } from './schema/error.ts';
export { BudgetUsageSchema, ToolBudgetSchema, type BudgetUsage, type ToolBudget, type ToolBudgetInput } from './schema/budget.ts';
export { RetryPolicyConfigSchema, type RetryPolicyConfig, type RetryPolicyInput } from './schema/retry.ts';
export {
  GoalRequestSchema,
  PLAN_STAGES,
  PlanCandidateSchema,
  PlanSchema,
  PlanStepSchema,
  PlanStopReasonSchema,
  PlanningPreferencesSchema,
  type GoalRequest,
  type Plan,
  type PlanCandidate,
  type PlanStage,
  type PlanStep,
  type PlanStopReason,
  type PlanningPreferences,
  type PlanningPreferencesInput,
} from './schema/plan.ts';
export { ExecutionResultSchema, type ExecutionResult } from './schema/result.ts';
export {
  JOURNAL_EVENT_DATA,
  JOURNAL_EVENT_TYPES,
  JournalEventSchema,
  RUN_STATUSES,
  RunInputsSchema,
  STAGES,
  eventsOf,
  type ApprovalSettings,
  type AutonomySettings,
  type HealthReport,
  type JournalEvent,
  type JournalEventData,
  type JournalEventOf,
  type JournalEventType,
  type RunInputs,
  type RunStatus,
  type Stage,
} from './schema/journalEvent.ts';

// Embedding, vectors and keyword search
export { HashingEmbedder, cosineSimilarity, type HashingEmbedderOptions } from './embed/hashingEmbedder.ts';
export { ENGLISH_STOP_WORDS, tokenize } from './embed/tokenize.ts';
export { APPROXIMATE_ABOVE, FlatVectorIndex, InMemoryVectorBackend, type InMemoryVectorOptions } from './vector/flatVectorIndex.ts';
export { IVF_FORMAT_VERSION } from './vector/ivfCodec.ts';
export { IvfVectorIndex, type IvfOptions } from './vector/ivfVectorIndex.ts';
export { KeywordIndex, type KeywordHit, type KeywordIndexOptions } from './vector/keywordIndex.ts';
export { VectorSearchOptionsSchema, type VectorBackend, type VectorHit, type VectorRecord, type VectorSearchOptions } from './vector/vectorBackend.ts';

// Tools
export {
  CapabilitySchema,
  ToolMetaSchema,
  defineTool,
  type ToolContext,
  type ToolDefinition,
  type ToolHandler,
  type ToolInfo,
  type ToolMeta,
  type ToolSpec,
  type ToolVerifier,
} from './tools/tool.ts';
export { ToolRegistry } from './tools/toolRegistry.ts';
export { DEMO_PROFILE, registerBuiltinTools, registerCodeTools, registerServiceTools } from './tools/builtins.ts';
export { registerMemoryTools } from './tools/memoryTools.ts';
export { MAX_EXPRESSION_LENGTH, evaluateExpression } from './tools/calculator.ts';
export { textStats, type TextStats } from './tools/text.ts';
export { MAX_WAIT_MS } from './tools/wait.ts';
export { TOOL_NAMESPACE, loadTools, loadableToolModules } from './tools/loaders.ts';

// Web tools and the SSRF guard
export { MAX_URL_LENGTH, NetAllowListSchema, SsrfGuard, type NetAllowList, type NetAllowListInput } from './net/ssrfGuard.ts';
export { FetchFailedError, FetchLimitError, UrlRefusedError, type FetchLimit, type UrlRefusal } from './net/netErrors.ts';
export { fetchTransport, guardedFetch, readLimited, type FetchLimits, type FetchedBody, type HttpTransport } from './net/guardedFetch.ts';
export { registerWebTools } from './tools/webTools/webTools.ts';
export type { WebToolsDeps } from './tools/webTools/webToolsDeps.ts';
export {
  WebToolsSettingsSchema,
  parseWebToolsSettings,
  webSettingsFromEnv,
  type WebToolsSettings,
  type WebToolsSettingsInput,
} from './tools/webTools/webSettings.ts';
export { WebSearchInputSchema, webSearchTool, type WebSearchOutput } from './tools/webTools/webSearchTool.ts';
export { EXTRACT_CONTENT_TYPES, InternetExtractInputSchema, internetExtractTool, type InternetExtractOutput } from './tools/webTools/internetExtractTool.ts';
export { searchSearxng, type WebSearchResult } from './tools/webTools/searxng.ts';
export { extractMainText, type ExtractedPage, type HtmlParser, type TextBlock } from './tools/webTools/htmlExtract.ts';
export { DEFAULT_HTML_LIMITS, preflightHtml, type HtmlLimits } from './tools/webTools/htmlPreflight.ts';
export { splitSentences, summarizeExtractive, type ExtractiveSummary } from './tools/webTools/extractiveSummary.ts';
export { EchoPrefixSchema, createEchoTool, type GeneratedEchoTool } from './tools/webTools/echoTool.ts';

// The DOM tools (the browser agent): contract, allow-list scope, snapshots, the live-document driver
export {
  DomActionSchema,
  DomReadInputSchema,
  DomReadTextInputSchema,
  DomRoleSchema,
  domToolSpecs,
  registerDomTools,
  type DomAction,
  type DomActionOutput,
  type DomDriver,
  type DomReadInput,
  type DomReadTextInput,
  type DomReadTextOutput,
  type DomSnapshotOutput,
  type DomToolsOptions,
} from './tools/dom/domTools.ts';
export {
  AllowOriginsSchema,
  AllowSelectorsSchema,
  DomScope,
  DomSelectorSchema,
  checkTargetOrigin,
  parseAllowOrigins,
  parseAllowSelectors,
} from './tools/dom/domScope.ts';
export {
  DEFAULT_SNAPSHOT_LIMITS,
  readElementsText,
  selectTargets,
  selectorFor,
  snapshotElements,
  type DomSnapshot,
  type DomSnapshotLimits,
  type DomSnapshotNode,
} from './tools/dom/domSnapshot.ts';
export { accessibleName, roleOf } from './tools/dom/domRoles.ts';
export { capturedValue, isSecretField } from './tools/dom/domRedaction.ts';
export type { DomDocumentLike, DomElementLike, DomNodeLike } from './tools/dom/domNodes.ts';
export { documentDomDriver, type DocumentDomDriverOptions, type DomPerform } from './tools/dom/documentDomDriver.ts';

// The code analyzer, the patch auditor and the sandbox port
export { AnalyzeCodeInputSchema, analyzeCode, type CodeAnalysis } from './tools/codeAnalyzer/analyzeCode.ts';
export { CodeLanguageSchema, type CodeLanguage, type CodeParser, type CodeParserOptions, type CodeParserSource } from './tools/codeAnalyzer/parseSource.ts';
export { FindingSchema, type Finding, type Severity } from './tools/codeAnalyzer/finding.ts';
export { codeAnalyzerTool } from './tools/codeAnalyzer/codeAnalyzerTool.ts';
export { TOOL_GLOBALS, assertAudited, auditRefusal, auditToolSource, type AuditLimits, type AuditReport } from './sandbox/patchAuditor.ts';
export { SandboxError, type SandboxErrorCode } from './sandbox/sandboxError.ts';
export {
  SandboxLimitsSchema,
  WORKERD_SANDBOX_REASON,
  refusingSandbox,
  type Sandbox,
  type SandboxCallOptions,
  type SandboxLimits,
  type SandboxLoadOptions,
  type SandboxedTool,
} from './sandbox/sandbox.ts';
export { createWorkerSandbox, type SandboxWorker, type SpawnSandboxWorker, type WorkerFailure } from './sandbox/workerSandbox.ts';
export { sandboxedToolSpec } from './sandbox/sandboxedTool.ts';
export { REALM_LIBRARIES, type RealmLibrary, type RealmLibraryName } from './sandbox/realmLibraries.ts';
// The microservice builder
export { ServiceSpecSchema, parseServiceSpec, type FieldSchema, type ServiceSpec, type ServiceSpecInput } from './tools/serviceBuilder/serviceSpec.ts';
export {
  buildMicroservice,
  type ServiceBuild,
  type ServiceBuilderHost,
  type ServiceFile,
  type ServiceReport,
} from './tools/serviceBuilder/buildMicroservice.ts';
export { type SmokeCheck, type SmokeReport } from './tools/serviceBuilder/smokeTest.ts';
export { MicroserviceBuilderInputSchema, microserviceBuilderTool } from './tools/serviceBuilder/microserviceBuilderTool.ts';
// Tools written at run time: proposed, audited, approved and registered by content hash
export {
  MAX_TOOL_SOURCE_CHARS,
  StoredToolVersionSchema,
  TOOL_VERSION_STATUSES,
  ToolInputJsonSchema,
  ToolVersionHashSchema,
  ToolVersionMetaSchema,
  ToolVersionProposalSchema,
  toolVersionHash,
  toolVersionKey,
  type StoredToolVersion,
  type ToolVersion,
  type ToolVersionMeta,
  type ToolVersionProposal,
  type ToolVersionProposalInput,
  type ToolVersionStatus,
} from './tools/versions/toolVersion.ts';
export {
  TOOL_ACTIVE_NAMESPACE,
  TOOL_EVENTS_NAMESPACE,
  TOOL_VERSIONS_NAMESPACE,
  ToolVersions,
  type ToolVersionsOptions,
} from './tools/versions/toolVersions.ts';
export { type ToolVersionSource } from './tools/versions/toolVersionSource.ts';

// Planning and policy
export { Planner, splitClauses, type PlanRequest, type PlannerOptions } from './planning/planner.ts';
export { checkReservation, parseBudget, transitionPlan, type BudgetCheck } from './planning/planningAuthority.ts';
export { PolicyEnforcer, ProfilePolicySchema, type ProfilePolicy, type ProfilePolicyInput } from './policy/policyEnforcer.ts';
export { MIN_KNOWN_SECRET_LENGTH, REDACTED, isSecretKey, redact, redactText, registerSecretValues } from './policy/redaction.ts';
export { SECRET_ENV_PREFIX, SecretNameSchema, envSecrets, noSecrets, staticSecrets, type Secrets } from './policy/secrets.ts';

// The journal and its projections
export { canonicalJson, toJsonData } from './journal/canonicalJson.ts';
export { sha256Hex, useNativeSha256 } from './journal/sha256.ts';
export { GENESIS_HASH, JournalHeadSchema, exportJournal, parseJournal, verifyJournal, type JournalHead, type VerifyResult } from './journal/journal.ts';
export { toTraceRecords, type TraceRecord } from './journal/trace.ts';
export { DerivedFromSchema, deriveEvent, derivationAt, derivationOf, derivedFromOf, redactJournal, type DerivedFrom } from './journal/redactedJournal.ts';
// Signing code lives in `cugar/signing`: only hosts that hold a key (and verifiers) load Ed25519.
export type { HeadSignature, HeadSigner } from './journal/headSignature.ts';
export { HeadLogSchema, LogHeadSchema, SignedLogHeadSchema, type HeadLog, type HeadLogEntry, type LogHead, type SignedLogHead } from './journal/headLog.ts';
export {
  auditHeadLog,
  type HeadLogAudit,
  type HeadLogFinding,
  type PrunedRun,
  type LogSignatureCheck,
  type LogSignatureState,
  type StoredRunHead,
} from './journal/headLogAudit.ts';
export {
  headSignatureState,
  verifyStoreHeads,
  type HeadSignatureCheck,
  type HeadSignatureState,
  type ListedHead,
  type RunHeadVerification,
  type StoreHeads,
  type StoreHeadsVerification,
} from './journal/verifyHeads.ts';
export {
  pairApprovals,
  pairModelCalls,
  pairToolCalls,
  runInputsOf,
  type ApprovalSpan,
  type EventLike,
  type ModelCallSpan,
  type ToolCallSpan,
} from './journal/projections.ts';
export { OTLP_VALUE_LIMIT, otlpEnvelope, readOtlp, toOtlp, type OtlpTraceExport } from './journal/otlp.ts';
export { JOURNAL_PAGE_SIZE, JournalPager } from './journal/journalPager.ts';
export { otlpSpanPages, traceRecordPages } from './journal/streamedViews.ts';
export { derivedEventLine, derivedEventPieces, type DerivedLink } from './journal/derivedLines.ts';

// Storage (the port; adapter authors use `cugar/stores`)
export { InMemoryStore } from './store/inMemoryStore.ts';
export type { AppendBatch, ApprovalFilter, ApprovalRecord, ApprovalStatus, RunFilter, RunSummary, Store } from './store/store.ts';
export type { HostStore } from './store/hostStore.ts';

// The engine
export { Orchestrator } from './orchestrator/orchestrator.ts';
export {
  ApprovalDecisionSchema,
  MAX_EXPLICIT_STEPS,
  RUN_ID_PATTERN,
  StartOptionsSchema,
  type ApprovalDecision,
  type ApprovalPolicy,
  type ApprovalPredicate,
  type OrchestratorOptions,
  type StartOptions,
} from './orchestrator/options.ts';
export type { RunOutcome } from './orchestrator/runOutcome.ts';
export type { RunState, StepState } from './orchestrator/runState.ts';
export { Controller, type ControllerOptions, type RunOptions } from './orchestrator/controller.ts';
export { ExecutionContext } from './orchestrator/executionContext.ts';
export { createRetryPolicy, isTransient, type RetryPolicy } from './orchestrator/retryPolicy.ts';
export { partialResult, type PartialResult } from './orchestrator/partialResult.ts';
export { replay, sameJournal, type Divergence, type ReplayOptions, type ReplayResult } from './orchestrator/replay.ts';
export { diffJournals, formatDifference, type FieldDifference, type JournalDifference } from './journal/journalDiff.ts';
export { forkRun, type ForkEdit, type ForkOptions } from './orchestrator/fork.ts';
export { DEFAULT_DELEGATION_DEPTH, DELEGATE_TOOL, type DelegateResult, type DelegationOptions } from './orchestrator/delegation.ts';
export { importJournal } from './orchestrator/importJournal.ts';

// Routing
export { Coordinator, Worker, type WorkerOptions } from './routing/coordinator.ts';
export {
  CapabilityBasedPolicy,
  LoadBalancedPolicy,
  RoundRobinPolicy,
  RoutingAuthority,
  createRoutingPolicy,
  type RoutingDecision,
  type RoutingPolicy,
  type RoutingPolicyName,
  type RoutingRequest,
  type WorkerInfo,
} from './routing/routingAuthority.ts';

// Memory and retrieval
export { MemoryManager, type MemoryManagerOptions, type MemoryState } from './memory/memoryManager.ts';
export { FactRecordSchema, NamespaceSchema, type FactQuery, type FactRecord, type MemoryStore } from './memory/memoryStore.ts';
export { chunkText, type Chunk, type ChunkOptions } from './rag/chunker.ts';
export { DOCUMENT_EXTENSIONS, extractText, htmlToText } from './rag/extractText.ts';
export { RagIndex } from './rag/ragIndex.ts';
export { RagLoader, type IngestDocument, type IngestProgress, type IngestReport } from './rag/ragLoader.ts';
export { RagDocuments, type DocumentInfo, type NoteInfo } from './rag/ragDocuments.ts';
export { RagRetriever, type RagHit, type RetrievalMode, type RetrieveOptions } from './rag/ragRetriever.ts';
