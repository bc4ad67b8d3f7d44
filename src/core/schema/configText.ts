import { LineCounter, isMap, isScalar, isSeq, parseDocument, type Document } from 'yaml';
import type * as z from 'zod';
import { ValidationError } from '../errors.ts';
import { isSecretKey } from '../policy/redaction.ts';
import { ConfigFileSchema, type ConfigFile } from './configFile.ts';
import type { EnvRecord } from './config.ts';

// From the text of a configuration file (YAML) to a validated `ConfigFile`, every problem with
// its line, column and key path. Pure (no file system): hosts read the file and hand over its
// text and their environment. Not exported from the core's entry: hosts import this module by
// path, so a bundle of the library does not carry the YAML parser.

/** One problem of a configuration file, where it is. Lines and columns count from 1. */
export interface ConfigIssue {
  /** The key path, `retry.max_attempts`, `tokens[0].token_env`; `(root)` for the document. */
  path: string;
  line?: number;
  column?: number;
  message: string;
  /** `yaml_syntax`, `unknown_key`, `invalid_type`, `too_big`, `inline_secret`, `missing_env`, … */
  code: string;
}

/** Where a key path is in the text, when it is there. */
export type ConfigLocator = (path: ReadonlyArray<PropertyKey>) => { line: number; column: number } | undefined;

/** What {@link parseConfigText} found: the validated file, or every error; warnings either way. */
export type ConfigTextResult =
  | {
      ok: true;
      file: ConfigFile;
      warnings: ConfigIssue[];
      locate: ConfigLocator;
      /** Values `${env:NAME}` filled in where credentials go (headers, keys, secrets): the host registers them for redaction. */
      secretValues: string[];
    }
  | { ok: false; errors: ConfigIssue[]; warnings: ConfigIssue[]; locate: ConfigLocator };

/** A configuration file that cannot be used; `issues` lists every error with its line and key path. */
export class ConfigFileError extends ValidationError {
  readonly issues: readonly ConfigIssue[];
  constructor(source: string, issues: readonly ConfigIssue[]) {
    super(`${source} is not a valid configuration:\n${issues.map((issue) => `  ${formatConfigIssue(issue)}`).join('\n')}`, {
      code: 'invalid_config_file',
      details: { source, issues },
    });
    this.issues = issues;
  }
}

/** Largest configuration text read, in characters. */
export const MAX_CONFIG_TEXT = 1_000_000;

/**
 * `line 4, column 3: retry.max_attempts — …`, the way errors are printed. (A dash, not a colon,
 * after the path: the redaction every CLI line passes through would take `api_key: a secret…`
 * for a secret pair and blank its first word.)
 */
export function formatConfigIssue(issue: ConfigIssue): string {
  const where = issue.line === undefined ? '' : `line ${issue.line}${issue.column === undefined ? '' : `, column ${issue.column}`}: `;
  return `${where}${issue.path} — ${issue.message}`;
}

/** `retry.max_attempts`, `tokens[0].token_env`. */
export function formatConfigPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const segment of path) out += typeof segment === 'number' ? `[${segment}]` : `${out ? '.' : ''}${String(segment)}`;
  return out || '(root)';
}

/** The text position of `path` in `doc`: the value's, or with `atKey` the key's; the nearest ancestor when the path goes further than the text. */
function locator(doc: Document, lines: LineCounter): (path: ReadonlyArray<PropertyKey>, atKey?: boolean) => { line: number; column: number } | undefined {
  return (path, atKey = false) => {
    let node: unknown = doc.contents;
    let offset = (doc.contents as { range?: [number, number, number] } | null)?.range?.[0];
    for (const [i, segment] of path.entries()) {
      const last = i === path.length - 1;
      if (isMap(node)) {
        const pair = node.items.find((item) => (isScalar(item.key) ? String(item.key.value) : String(item.key)) === String(segment));
        if (!pair) break;
        const keyRange = (pair.key as { range?: [number, number, number] } | null)?.range;
        const valueRange = (pair.value as { range?: [number, number, number] } | null)?.range;
        offset = (last && atKey) || !valueRange ? (keyRange?.[0] ?? offset) : valueRange[0];
        node = pair.value;
      } else if (isSeq(node) && typeof segment === 'number') {
        const item = node.items[segment] as { range?: [number, number, number] } | undefined;
        if (!item?.range) break;
        offset = item.range[0];
        node = item;
      } else break;
    }
    if (offset === undefined) return undefined;
    const { line, col } = lines.linePos(offset);
    return { line, column: col };
  };
}

/** A key whose value names an environment variable (`token_env`, `api_key_env`, `secret_env`), not a secret. */
function isReferenceKey(key: string): boolean {
  return /(?:^|_)env$/i.test(key);
}

const ENV_REFERENCE = /\$\{env:([^}]*)\}/g;

/**
 * Secret-named keys (`password`, `api_key`, `Authorization`, the redaction policy's list) whose
 * value is written inline rather than referenced (`${env:NAME}`, or a `${NAME}` the host's
 * secrets port fills): each is an error, so a secret never sits in a file that is committed.
 */
function inlineSecrets(value: unknown, path: PropertyKey[], out: Array<{ path: PropertyKey[] }>): void {
  if (Array.isArray(value)) value.forEach((item, i) => inlineSecrets(item, [...path, i], out));
  else if (value !== null && typeof value === 'object')
    for (const [key, item] of Object.entries(value)) {
      const literal = (typeof item === 'string' && item !== '' && !item.includes('${')) || typeof item === 'number';
      // Every entry of the top-level `secrets` map is a secret, whatever its name.
      const secretKey = (path.length === 1 && path[0] === 'secrets') || (isSecretKey(key) && !isReferenceKey(key));
      if (literal && secretKey) out.push({ path: [...path, key] });
      else inlineSecrets(item, [...path, key], out);
    }
}

/** Keys under which a referenced value is a credential: secret-named keys, request headers, a child's environment, the secrets map. */
function holdsSecret(path: readonly PropertyKey[]): boolean {
  return path.some((segment) => typeof segment === 'string' && (isSecretKey(segment) || ['headers', 'env', 'secrets'].includes(segment)));
}

interface Resolution {
  warnings: Array<{ path: PropertyKey[]; message: string }>;
  /** Values filled in under keys that hold credentials ({@link holdsSecret}). */
  secretValues: string[];
}

/** Replace `${env:NAME}` in every string; a string naming an unset variable is dropped, with a warning. */
function resolveEnv(value: unknown, path: PropertyKey[], env: EnvRecord, resolution: Resolution): unknown {
  if (typeof value === 'string') {
    const missing = [...value.matchAll(ENV_REFERENCE)].map((m) => m[1]!).filter((name) => !env[name]);
    if (missing.length) {
      resolution.warnings.push({
        path,
        message: `${missing.map((n) => `\${env:${n}}`).join(', ')} ${missing.length > 1 ? 'are' : 'is'} not set; the key is left unset`,
      });
      return undefined;
    }
    return value.replace(ENV_REFERENCE, (_m, name: string) => {
      if (holdsSecret(path)) resolution.secretValues.push(env[name]!);
      return env[name]!;
    });
  }
  if (Array.isArray(value)) return value.map((item, i) => resolveEnv(item, [...path, i], env, resolution)).filter((item) => item !== undefined);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const resolved = resolveEnv(item, [...path, key], env, resolution);
    if (resolved !== undefined) out[key] = resolved;
  }
  return out;
}

/** Zod's issues as configuration issues: an unknown key is one issue per key, at the key. */
function schemaIssues(error: z.ZodError, at: ReturnType<typeof locator>): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const path = [...issue.path, key];
        issues.push({ path: formatConfigPath(path), ...at(path, true), message: 'unknown key', code: 'unknown_key' });
      }
      continue;
    }
    issues.push({ path: formatConfigPath(issue.path), ...at(issue.path), message: issue.message, code: issue.code });
  }
  return issues;
}

/** Options of {@link parseConfigText}. */
export interface ConfigTextOptions {
  /** Fills `${env:NAME}` references (the host's environment); default none, so every reference is unset. */
  env?: EnvRecord;
}

/**
 * Parse and validate the text of a configuration file (YAML). Never throws: a syntax error, an
 * unknown key, a value of the wrong type or out of range, and a secret written inline are
 * errors, each with its line, column and key path; a `${env:NAME}` reference to an unset
 * variable is a warning, and its key is left unset. An empty text is an empty configuration.
 *
 * @example
 * const result = parseConfigText('retry:\n  max_attempts: 5\n', { env: process.env });
 * if (result.ok) result.file.retry?.max_attempts; // 5
 */
export function parseConfigText(text: string, options: ConfigTextOptions = {}): ConfigTextResult {
  const lines = new LineCounter();
  if (text.length > MAX_CONFIG_TEXT) {
    const errors = [{ path: '(root)', message: `the file is larger than ${MAX_CONFIG_TEXT} characters`, code: 'too_big' }];
    return { ok: false, errors, warnings: [], locate: () => undefined };
  }
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const at = locator(doc, lines);
  const locate: ConfigLocator = (path) => at(path);
  const position = (offset: number) => {
    const { line, col } = lines.linePos(offset);
    return { line, column: col };
  };
  const warnings: ConfigIssue[] = doc.warnings.map((w) => ({ path: '(root)', ...position(w.pos[0]), message: w.message, code: 'yaml_warning' }));
  if (doc.errors.length)
    return {
      ok: false,
      errors: doc.errors.map((e) => ({ path: '(root)', ...position(e.pos[0]), message: e.message.split('\n')[0]!, code: 'yaml_syntax' })),
      warnings,
      locate,
    };
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 100 }) ?? {};
  } catch (error) {
    // Aliases that expand past the limit (a "billion laughs" file) are refused, not expanded.
    return { ok: false, errors: [{ path: '(root)', message: (error as Error).message, code: 'yaml_syntax' }], warnings, locate };
  }
  const secrets: Array<{ path: PropertyKey[] }> = [];
  inlineSecrets(value, [], secrets);
  const secretErrors = secrets.map(({ path }) => ({
    path: formatConfigPath(path),
    ...at(path),
    message: 'a secret written inline: reference it instead, as "${env:NAME}" (or a *_env key naming the variable)',
    code: 'inline_secret',
  }));
  // References are filled before validation, so `url: ${env:MODEL_URL}` is checked as the URL it names.
  const resolution: Resolution = { warnings: [], secretValues: [] };
  const resolved = resolveEnv(value, [], options.env ?? {}, resolution);
  for (const { path, message } of resolution.warnings) warnings.push({ path: formatConfigPath(path), ...at(path), message, code: 'missing_env' });
  const parsed = ConfigFileSchema.safeParse(resolved);
  if (!parsed.success || secretErrors.length) {
    const errors = [...secretErrors, ...(parsed.success ? [] : schemaIssues(parsed.error, at))].sort(
      (a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0),
    );
    return { ok: false, errors, warnings, locate };
  }
  return { ok: true, file: parsed.data, warnings, locate, secretValues: resolution.secretValues };
}

/** {@link parseConfigText}, throwing a {@link ConfigFileError} (every error, with lines) when the file cannot be used. */
export function loadConfigText(text: string, source: string, options: ConfigTextOptions = {}): Extract<ConfigTextResult, { ok: true }> {
  const result = parseConfigText(text, options);
  if (!result.ok) throw new ConfigFileError(source, result.errors);
  return result;
}
