import {
  HashingEmbedder,
  MemoryManager,
  Orchestrator,
  Planner,
  RagIndex,
  RagDocuments,
  RagLoader,
  RagRetriever,
  ToolRegistry,
  createRandomIds,
  registerBuiltinTools,
  registerCodeTools,
  registerServiceTools,
  refusingSandbox,
  WORKERD_SANDBOX_REASON,
  registerMemoryTools,
  memoryManagerRunMemory,
  systemClock,
  type ApprovalPolicy,
  type Clock,
  type CodeParserSource,
  type Config,
  type ToolBudgetInput,
  type HeadSigner,
  type HostStore,
  type OrchestratorOptions,
  type PolicyEnforcer,
  type Secrets,
  type VectorBackend,
} from '../core/index.ts';

import { ToolVersions, type CodeParserSource as ToolCodeParser, type Sandbox, type SandboxLimits } from '../core/index.ts';
import type { HostModels } from './models.ts';

import { OtlpLiveExporter, type OtlpSettingsInput } from './otlpExport.ts';

export type { HostStore };

/** Everything the HTTP app serves, built from one store. */
export interface Runtime {
  store: HostStore;
  registry: ToolRegistry;
  orchestrator: Orchestrator;
  planner: Planner;
  memory: MemoryManager;
  loader: RagLoader;
  retriever: RagRetriever;
  /** The profile's ingested documents and kept notes, to list and delete. */
  documents: RagDocuments;
  embedder: HashingEmbedder;
  vectors: VectorBackend;
  config: Config;
  /** The profile policies runs are checked against (replays use them too), when the host set any. */
  policy?: PolicyEnforcer;
  /** The host's head-signing key, when it has one; audits check signatures against its public key. */
  signer?: HeadSigner;
  /** The models this host's agent runs call, when one is configured. */
  models?: HostModels;
  /** The live OpenTelemetry exporter, when `OTEL_EXPORTER_OTLP_ENDPOINT` (or `otlp`) is set. */
  exporter?: OtlpLiveExporter;
  /** Tools written at run time, when the host can run them in a sandbox; absent, proposals are refused (`unsupported_host`). */
  toolVersions?: ToolVersions;
}

/** Options of {@link createRuntime}. */
export interface RuntimeOptions {
  clock?: Clock;
  /**
   * The parser of the code tools (`code_analyzer`; hosts pass `babelParser` of ./codeParser.ts,
   * loaded on first use); absent, the host has no code tools (the widget's single file leaves the
   * parser out).
   */
  codeParser?: CodeParserSource;
  /** Tools to serve instead of the built-in and memory tools. */
  registry?: ToolRegistry;
  /** Shared ceilings per profile. */
  profileBudgets?: Record<string, ToolBudgetInput>;
  /** How long approvals wait and what they become then; hosts sweep expired ones ({@link Orchestrator.sweepApprovals}). */
  approval?: ApprovalPolicy;
  /** The host's key for signing run heads (kept outside the store). */
  signer?: HeadSigner;
  /** Credentials tools read by name at call time; never journaled. */
  secrets?: Secrets;
  /** The models agent runs call (`hostModels` in `models.ts`); absent, every run uses the lexical planner. */
  models?: HostModels;
  /** What each profile may do (network, allowed tools); default nothing beyond the defaults. */
  policy?: PolicyEnforcer;
  /** Export spans live over OTLP/HTTP (`otlpSettingsFromEnv`); absent, nothing is exported. */
  otlp?: OtlpSettingsInput;
  /** Where the exporter reports dropped spans. */
  log?: (line: string) => void;
  /** Take tools written at run time: their code runs in `sandbox`, audited with `parser` first. Absent, the host refuses them. */
  toolVersions?: { sandbox: Sandbox; parser: ToolCodeParser; limits?: SandboxLimits };
  /** The configuration file's retry policy, routing policy and worker pool, and default run budget. */
  orchestrator?: Pick<OrchestratorOptions, 'retry' | 'routing' | 'workers' | 'budget' | 'parallelSteps'>;
}

/** Build a runtime over `store`: the built-in and memory tools in the `demo` profile, one orchestrator. */
export async function createRuntime(store: HostStore, config: Config, options: RuntimeOptions = {}): Promise<Runtime> {
  const embedder = new HashingEmbedder({ dimension: config.embeddingDim, bigrams: config.embeddingBigrams });
  const vectors = store.vectors(config.embeddingDim);
  await vectors.connect();
  const clock = options.clock ?? systemClock;
  const ids = createRandomIds();
  const memory = new MemoryManager({ store, vectors, embedder, clock, ids });
  const index = new RagIndex(vectors, embedder);
  const retriever = new RagRetriever(index);
  const registry = options.registry ?? new ToolRegistry();
  if (!options.registry) {
    registerBuiltinTools(registry, config.defaultProfile);
    registerMemoryTools(registry, { memory, retriever }, config.defaultProfile);
    if (options.codeParser) registerCodeTools(registry, options.codeParser, config.defaultProfile);
    // Hosts without a sandbox (workerd) list the builder too; its calls are refused, saying why.
    if (options.codeParser)
      registerServiceTools(
        registry,
        { sandbox: options.toolVersions?.sandbox ?? refusingSandbox('this host', WORKERD_SANDBOX_REASON), parser: options.codeParser },
        config.defaultProfile,
      );
  }
  const planner = new Planner({ ids, clock, maxSteps: config.plannerMaxSteps, minSimilarity: config.plannerMinSimilarity });
  const toolVersions = options.toolVersions ? new ToolVersions({ memory, registry, clock, ...options.toolVersions }) : undefined;
  await toolVersions?.load(registry.profiles());
  // One planner for dry runs and every run: each tool is embedded once.
  const orchestrator = new Orchestrator({
    ...options.orchestrator,
    registry,
    // Agent runs may propose tools written at run time where the host can run them.
    ...(toolVersions ? { toolVersions, ...(config.proposeTools ? { toolProposals: toolVersions } : {}) } : {}),
    ...(options.signer ? { signer: options.signer } : {}),
    ...(options.secrets ? { secrets: options.secrets } : {}),
    ...(options.policy ? { policy: options.policy } : {}),
    ...(options.models ? { models: options.models.models, agent: options.models.agent, reflectWithModel: config.reflectWithModel } : {}),
    ...(config.memoryInLoop ? { memory: memoryManagerRunMemory(memory) } : {}),
    ...(config.delegationProfiles.length ? { delegation: { profiles: config.delegationProfiles, maxDepth: config.delegationMaxDepth } } : {}),
    store,
    clock,
    ids,
    config,
    planner,
    seed: config.randomSeed,
    ...(options.profileBudgets ? { profileBudgets: options.profileBudgets } : {}),
    ...(options.approval ? { approval: options.approval } : {}),
  });
  // Spans are built from the redacted events the orchestrator publishes, so redaction applies to them too.
  const exporter = options.otlp ? new OtlpLiveExporter(options.otlp, options.log ? { log: options.log } : {}) : undefined;
  if (exporter) orchestrator.subscribe((event) => exporter.observe(event));
  return {
    store,
    registry,
    orchestrator,
    planner,
    memory,
    loader: new RagLoader(index),
    retriever,
    documents: new RagDocuments(index),
    embedder,
    vectors,
    config,
    ...(options.signer ? { signer: options.signer } : {}),
    ...(options.models ? { models: options.models } : {}),
    ...(exporter ? { exporter } : {}),
    ...(options.policy ? { policy: options.policy } : {}),
    ...(toolVersions ? { toolVersions } : {}),
  };
}
