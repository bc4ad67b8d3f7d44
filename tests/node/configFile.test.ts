import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { isMap, isScalar, isSeq, parseDocument, stringify, type Node } from 'yaml';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG, RetryPolicyConfigSchema, parseConfig, parseModelSettings } from '../../src/core/index.ts';
import { configFileEnv, orchestratorSettingsFrom, parseLayeredConfig } from '../../src/core/schema/configSettings.ts';
import { ConfigFileError, loadConfigText, parseConfigText, type ConfigIssue } from '../../src/core/schema/configText.ts';
import { otlpSettingsFromEnv } from '../../src/api/otlpExport.ts';
import { parseApprovalPolicy } from '../../src/api/approvalSettings.ts';

const root = join(import.meta.dirname, '..', '..');
const sample = readFileSync(join(root, 'configs/orchestrator.yaml'), 'utf8');

/** Every key path of a YAML text (`retry.max_attempts`, `profiles.demo.budget.cost_ceiling`), with map keys under free-form maps (profiles, prices, headers) generalised to `*`. */
function keyPaths(text: string): Set<string> {
  const paths = new Set<string>();
  const free = new Set(['profiles', 'prices', 'headers', 'secrets']);
  const walk = (node: unknown, path: string[]) => {
    if (isMap(node))
      for (const pair of node.items) {
        const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
        const segment = free.has(path.at(-1) ?? '') ? '*' : key;
        paths.add([...path, segment].join('.'));
        walk(pair.value, [...path, segment]);
      }
    else if (isSeq(node)) for (const item of node.items as Node[]) walk(item, [...path, '[]']);
  };
  walk(parseDocument(text).contents, []);
  return paths;
}

/** Every key set to something other than its default. */
const FULL = `
retry:
  strategy: linear
  max_attempts: 5
  base_delay: 0.25
  max_delay: 2.5
  multiplier: 3
  jitter: 0
approval:
  require_approval: [send_message]
  auto_approve_timeout: 30
  on_timeout: reject
  backend: sqlite
audit:
  backend: sqlite
  db_path: data/audit.db
  retention_days: 90
routing:
  policy: capability_based
  worker_pool_size: 4
budget:
  cost_ceiling: 100.0
  call_ceiling: 50
  token_ceiling: 10000
  warn_threshold: 0.5
planner:
  max_steps: 7
  min_similarity: 0.2
  detect_tool_calls_from_text: false
embedding:
  dim: 64
  bigrams: false
default_profile: ops
random_seed: 42
models:
  url: http://127.0.0.1:11434/v1
  names: [llama3.1, qwen2.5]
  api_key_env: TEST_MODEL_KEY
  stream: true
  timeout: 30
  prices: { llama3.1: { input_per_million: 1, output_per_million: 2 } }
  temperature: 0.5
  max_output_tokens: 512
  max_llm_calls: 12
  pre_plan: true
  review_answers: true
  reflect: false
  propose_tools: false
memory:
  in_loop: false
delegation:
  profiles: [ops, research]
  max_depth: 3
mcp:
  servers:
    - name: files
      profile: ops
      transport: { type: stdio, command: npx, args: [-y, some-server] }
otlp:
  endpoint: http://127.0.0.1:4318
  headers: { x-api-key: "\${env:TEST_OTLP_KEY}" }
  service_name: cugar-test
  max_queue_spans: 100
  max_batch_spans: 10
  batch_delay: 0.5
  timeout: 2
  max_attempts: 2
profiles:
  ops:
    budget: { cost_ceiling: 10, call_ceiling: 5, token_ceiling: 500, warn_threshold: 0.9 }
    mcp: { network: true, commands: [npx] }
tokens:
  - token_env: TEST_ADMIN_TOKEN
    profiles: "*"
    scopes: [journal:raw]
secrets:
  SLACK_TOKEN: { secret_env: TEST_SLACK }
`;
const ENV = { TEST_MODEL_KEY: 'model-key-0123456789', TEST_OTLP_KEY: 'otlp-key-0123456789', TEST_ADMIN_TOKEN: 'a'.repeat(24), TEST_SLACK: 'xslack-123456789' };

function errorsOf(text: string, env = {}): ConfigIssue[] {
  const result = parseConfigText(text, { env });
  expect(result.ok).toBe(false);
  return result.ok ? [] : result.errors;
}

describe('the configuration file', () => {
  it('the sample parses without an error or a warning, and states the defaults: loading it changes nothing', () => {
    const result = parseConfigText(sample, { env: {} });
    expect(result).toMatchObject({ ok: true, warnings: [] });
    if (!result.ok) return;
    expect(parseLayeredConfig(result.file, {})).toEqual({ config: DEFAULT_CONFIG, warnings: [] });
    const settings = orchestratorSettingsFrom(result.file);
    expect(RetryPolicyConfigSchema.parse(settings.retry)).toEqual(RetryPolicyConfigSchema.parse({}));
    expect(settings).not.toHaveProperty('budget');
    expect(settings).not.toHaveProperty('profileBudgets');
    expect(settings).not.toHaveProperty('workerPoolSize');
    expect(settings).not.toHaveProperty('retentionDays');
    expect(settings).not.toHaveProperty('requireApproval');
    expect(configFileEnv(result.file)).not.toHaveProperty('CUGAR_MODEL_URL');
    expect(configFileEnv(result.file)).not.toHaveProperty('CUGAR_APPROVAL_TIMEOUT_MS');
  });

  it('covers every key of the sample, with the seed\u2019s sections, and applies each one', () => {
    const sampleKeys = keyPaths(sample);
    for (const section of ['retry.max_attempts', 'approval.require_approval', 'audit.retention_days', 'routing.worker_pool_size', 'budget.warn_threshold'])
      expect(sampleKeys).toContain(section);
    const fullKeys = keyPaths(FULL);
    // The full file sets every key the sample has (and the examples the sample leaves in comments).
    expect([...sampleKeys].filter((key) => !fullKeys.has(key))).toEqual([]);

    const { file, warnings, secretValues } = loadConfigText(FULL, 'full.yaml', { env: ENV });
    expect(warnings).toEqual([]);
    expect(secretValues).toEqual([ENV.TEST_OTLP_KEY]);
    expect(parseLayeredConfig(file, {}).config).toEqual({
      plannerMaxSteps: 7,
      plannerMinSimilarity: 0.2,
      detectToolCallsFromText: false,
      embeddingDim: 64,
      embeddingBigrams: false,
      defaultProfile: 'ops',
      randomSeed: 42,
      modelTemperature: 0.5,
      modelMaxOutputTokens: 512,
      maxLlmCalls: 12,
      useLlmPrePlan: true,
      reviewAnswers: true,
      reflectWithModel: false,
      memoryInLoop: false,
      delegationProfiles: ['ops', 'research'],
      delegationMaxDepth: 3,
      proposeTools: false,
    });
    expect(orchestratorSettingsFrom(file)).toEqual({
      retry: { strategy: 'linear', maxAttempts: 5, baseDelay: 250, maxDelay: 2500, multiplier: 3, jitter: 0 },
      routing: 'capability',
      workerPoolSize: 4,
      budget: { costCeiling: 100, callCeiling: 50, tokenCeiling: 10000, warnThreshold: 0.5 },
      profileBudgets: { ops: { costCeiling: 10, callCeiling: 5, tokenCeiling: 500, warnThreshold: 0.9 } },
      requireApproval: ['send_message'],
      dbPath: 'data/audit.db',
      retentionDays: 90,
    });
    const env = configFileEnv(file, ENV);
    expect(parseModelSettings(env)).toEqual({
      settings: {
        url: 'http://127.0.0.1:11434/v1',
        models: ['llama3.1', 'qwen2.5'],
        stream: true,
        callTimeoutMs: 30_000,
        prices: { 'llama3.1': { inputPerMillion: 1, outputPerMillion: 2 } },
      },
      key: ENV.TEST_MODEL_KEY,
      warnings: [],
    });
    expect(parseApprovalPolicy(env)).toEqual({ timeoutMs: 30_000, onTimeout: 'reject' });
    expect(otlpSettingsFromEnv(env)).toMatchObject({
      url: 'http://127.0.0.1:4318/v1/traces',
      headers: { 'x-api-key': ENV.TEST_OTLP_KEY },
      serviceName: 'cugar-test',
    });
  });

  it("reads the seed's sections as the seed writes them", () => {
    const seed = [
      'retry: { strategy: exponential, max_attempts: 3, base_delay: 0.1, max_delay: 5.0, multiplier: 2.0 }',
      'approval: { require_approval: true, auto_approve_timeout: 30.0, approval_backend: sqlite }',
      'audit: { backend: sqlite, db_path: data/audit.db, retention_days: 90 }',
      'routing: { policy: round_robin, worker_pool_size: 4 }',
      'budget: { cost_ceiling: 100.0, call_ceiling: 50, token_ceiling: 10000, warn_threshold: 0.8 }',
    ].join('\n');
    const { file } = loadConfigText(seed, 'seed.yaml');
    expect(orchestratorSettingsFrom(file)).toEqual({
      retry: { strategy: 'exponential', maxAttempts: 3, baseDelay: 100, maxDelay: 5000, multiplier: 2 },
      routing: 'round_robin',
      workerPoolSize: 4,
      budget: { costCeiling: 100, callCeiling: 50, tokenCeiling: 10000, warnThreshold: 0.8 },
      requireApproval: true,
      dbPath: 'data/audit.db',
      retentionDays: 90,
    });
    expect(parseApprovalPolicy(configFileEnv(file))).toEqual({ timeoutMs: 30_000, onTimeout: 'approve' });
  });

  it('a syntax error is an error with its line, never a throw', () => {
    const [error] = errorsOf('retry:\n  max_attempts: 3\n  base_delay: [0.1\nrouting:\n  policy: round_robin\n');
    expect(error).toMatchObject({ code: 'yaml_syntax', line: expect.any(Number) });
    expect(error!.line).toBeGreaterThanOrEqual(3);
    expect(errorsOf('retry:\n  max_attempts: 3\n  max_attempts: 4\n')[0]).toMatchObject({ code: 'yaml_syntax', line: 3 });
  });

  it('an unknown key is an error with its line, column and key path, one per key', () => {
    expect(errorsOf('retry:\n  max_attempts: 3\n  max_attemps: 4\nrouteing: {}\n')).toEqual([
      { path: 'retry.max_attemps', line: 3, column: 3, message: 'unknown key', code: 'unknown_key' },
      { path: 'routeing', line: 4, column: 1, message: 'unknown key', code: 'unknown_key' },
    ]);
    expect(errorsOf('profiles:\n  demo:\n    budget:\n      cost: 3\n')).toEqual([
      { path: 'profiles.demo.budget.cost', line: 4, column: 7, message: 'unknown key', code: 'unknown_key' },
    ]);
  });

  it('a wrong type or an out-of-range value is an error at the value', () => {
    expect(errorsOf('retry:\n  max_attempts: "3"\n')[0]).toMatchObject({ path: 'retry.max_attempts', line: 2, column: 17, code: 'invalid_type' });
    expect(errorsOf('routing:\n  worker_pool_size: 0\n')[0]).toMatchObject({ path: 'routing.worker_pool_size', line: 2, code: 'too_small' });
    expect(errorsOf('routing:\n  policy: random\n')[0]).toMatchObject({ path: 'routing.policy', line: 2, code: 'invalid_value' });
    expect(errorsOf('tokens:\n  - profiles: "*"\n')[0]).toMatchObject({ path: 'tokens[0].token_env', line: 2 });
    expect(errorsOf('audit:\n  backend: json\n')[0]!.message).toContain('sqlite');
    // The seed's own sample spells the approval backend `approval_backend`; both are read.
    expect(parseConfigText('approval:\n  approval_backend: sqlite\n').ok).toBe(true);
    expect(errorsOf('approval:\n  approval_backend: redis\n')[0]).toMatchObject({ path: 'approval.approval_backend', line: 2 });
    expect(errorsOf('- 1\n- 2\n')[0]).toMatchObject({ path: '(root)', code: 'invalid_type' });
  });

  it('refuses a secret written inline, wherever its key is, and accepts references', () => {
    const inline = errorsOf(
      [
        'models:',
        '  api_key: sk-proj-0123456789abcdef0123',
        'otlp:',
        '  headers: { Authorization: "Bearer abcdefghijklmnop" }',
        'mcp:',
        '  servers:',
        '    - { name: gh, profile: demo, transport: { type: stdio, command: npx, env: { GITHUB_TOKEN: ghp_literal } } }',
        'secrets:',
        '  WEBHOOK_KEY: plain-value',
      ].join('\n'),
    );
    expect(inline.map((issue) => [issue.path, issue.line, issue.code])).toEqual([
      ['models.api_key', 2, 'inline_secret'],
      ['otlp.headers.Authorization', 4, 'inline_secret'],
      ['mcp.servers[0].transport.env.GITHUB_TOKEN', 7, 'inline_secret'],
      ['secrets.WEBHOOK_KEY', 9, 'inline_secret'],
    ]);
    // Under `secrets`, a plain string is a value, not a reference: it must be "${env:NAME}" or { secret_env }.
    const secretsOnly = parseConfigText('secrets:\n  WEBHOOK_KEY: plain-value\n', { env: {} });
    expect(secretsOnly.ok).toBe(false);
    const references = parseConfigText(
      'models:\n  api_key: "${env:K}"\notlp:\n  headers: { Authorization: "Bearer ${env:K}" }\nsecrets:\n  WEBHOOK_KEY: { secret_env: K }\n',
      { env: { K: 'value-of-k-123' } },
    );
    expect(references).toMatchObject({
      ok: true,
      file: { models: { api_key: 'value-of-k-123' }, otlp: { headers: { Authorization: 'Bearer value-of-k-123' } } },
    });
    // A value that only counts things is not a secret (token_ceiling, max_tokens).
    expect(parseConfigText('budget:\n  token_ceiling: 100\n').ok).toBe(true);
  });

  it('a reference to an unset variable is a warning with its line, and the key is left unset', () => {
    const result = parseConfigText('models:\n  url: http://127.0.0.1:1/v1\n  api_key: "${env:NOT_SET_ANYWHERE}"\n', { env: {} });
    expect(result).toMatchObject({ ok: true, file: { models: { url: 'http://127.0.0.1:1/v1' } } });
    if (!result.ok) return;
    expect(result.file.models).not.toHaveProperty('api_key');
    expect(result.warnings).toEqual([
      { path: 'models.api_key', line: 3, column: 12, message: '${env:NOT_SET_ANYWHERE} is not set; the key is left unset', code: 'missing_env' },
    ]);
  });

  it('throws one typed error listing every problem, and bounds what it reads', () => {
    let caught: unknown;
    try {
      loadConfigText('retry:\n  strategy: sometimes\nextra: 1\n', 'bad.yaml');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigFileError);
    const error = caught as ConfigFileError;
    expect(error).toMatchObject({ code: 'invalid_config_file', failureMode: 'USER' });
    expect(error.issues.map((issue) => issue.path)).toEqual(['retry.strategy', 'extra']);
    expect(error.message).toContain('line 3, column 1: extra — unknown key');
    // Aliases that would expand a small file into a huge value are refused.
    const bomb = [
      'a: &a [x, x, x, x, x, x, x, x, x]',
      ...Array.from(
        { length: 8 },
        (_, i) =>
          `${'bcdefghi'[i]}: &${'bcdefghi'[i]} [${Array(9)
            .fill(`*${i === 0 ? 'a' : 'bcdefghi'[i - 1]}`)
            .join(', ')}]`,
      ),
    ].join('\n');
    expect(parseConfigText(bomb).ok).toBe(false);
    expect(errorsOf(`# ${'x'.repeat(1_000_001)}\n`)[0]).toMatchObject({ code: 'too_big' });
  });

  it('a set environment variable overrides its key; a bad one warns and keeps the file\u2019s value', () => {
    const { file } = loadConfigText('planner:\n  max_steps: 7\nembedding:\n  bigrams: false\ndefault_profile: ops\n', 'f.yaml');
    expect(parseLayeredConfig(file, { PLANNER_MAX_STEPS: '3' }).config.plannerMaxSteps).toBe(3);
    expect(parseLayeredConfig(file, { PLANNER_MAX_STEPS: '' }).config.plannerMaxSteps).toBe(7);
    const bad = parseLayeredConfig(file, { PLANNER_MAX_STEPS: 'many', EMBEDDING_BIGRAMS: 'perhaps', CUGAR_PROFILE: 'bad name!' });
    expect(bad.config).toMatchObject({ plannerMaxSteps: 7, embeddingBigrams: false, defaultProfile: 'ops' });
    expect(bad.warnings).toEqual([
      'PLANNER_MAX_STEPS="many" is not an integer; using the configured 7',
      'EMBEDDING_BIGRAMS="perhaps" is not a boolean; using the configured false',
      'CUGAR_PROFILE="bad name!" is not a valid profile name; using the configured ops',
    ]);
    // Out of range in the environment: clamped, as without a file.
    expect(parseLayeredConfig(file, { PLANNER_MAX_STEPS: '99' })).toEqual(parseConfig({ PLANNER_MAX_STEPS: '99' }, { ...DEFAULT_CONFIG, ...bad.config }));
    // The model's variables win over the file's models keys.
    const models = loadConfigText('models:\n  url: http://127.0.0.1:1/v1\n  names: [a]\n', 'm.yaml').file;
    const env = { ...configFileEnv(models), CUGAR_MODEL: 'b,c' };
    expect(parseModelSettings(env).settings?.models).toEqual(['b', 'c']);
  });

  it('never throws, whatever the text: any string, any YAML value', () => {
    const outcome = (text: string) => {
      const result = parseConfigText(text, { env: {} });
      // Every error says where it is, or that it is about the whole document.
      if (!result.ok) for (const error of result.errors) expect(error.line !== undefined || error.path === '(root)').toBe(true);
      return result.ok;
    };
    fc.assert(
      fc.property(fc.string({ maxLength: 400 }), (text) => void outcome(text)),
      { numRuns: 300 },
    );
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (value) => void outcome(stringify(value))),
      { numRuns: 300 },
    );
    // A secret-named key with any literal string value is refused, under any section.
    fc.assert(
      fc.property(
        fc.constantFrom('models', 'otlp', 'retry'),
        fc.constantFrom('api_key', 'password', 'client_secret', 'token'),
        fc.string({ minLength: 1, maxLength: 40 }).filter((v) => !v.includes('${')),
        (section, key, value) => {
          const result = parseConfigText(stringify({ [section]: { [key]: value } }), { env: {} });
          expect(result.ok).toBe(false);
          if (!result.ok) expect(result.errors.map((e) => e.code)).toContain('inline_secret');
        },
      ),
      { numRuns: 200 },
    );
  });
});
