import ts from 'typescript';

/** One rule broken in one file. */
export interface GuardrailViolation {
  file: string;
  line: number;
  rule: string;
  detail: string;
}

/** Packages the core must never import: hosts, storage adapters, UI. */
const FORBIDDEN_PACKAGES =
  /^(?:node:|dexie$|dexie\/|hono$|hono\/|@hono\/|react$|react\/|react-dom|better-sqlite3|@cloudflare\/|fs$|path$|os$|child_process$|crypto$|http$|https$|net$|url$|buffer$|process$|worker_threads$|stream$)/;
/** Globals that exist only in a DOM page or only in Node. */
const FORBIDDEN_GLOBALS = new Set([
  'window',
  'document',
  'localStorage',
  'sessionStorage',
  'HTMLElement',
  'navigator',
  'location',
  'indexedDB',
  'process',
  'Buffer',
  'require',
  '__dirname',
  '__filename',
  'global',
  'module',
]);
/** The only files that start a worker from a script or load `worker_threads`: the sandbox's host loaders. */
export const SANDBOX_LOADERS: ReadonlySet<string> = new Set(['src/edge/nodeSandbox.ts', 'src/web/sandbox/browserSandbox.ts']);
const HOST_FOLDERS = /(?:^|\/)src\/(?:api|edge|web|cli)(?:\/|$)/;
/**
 * Folders of the core that sit below others: the journal's projections and the routing policies
 * are used by the orchestrator, so they must not import it back.
 */
const CORE_FOLDER_RULES: ReadonlyArray<{ from: RegExp; forbidden: RegExp; detail: string }> = [
  {
    from: /^src\/core\/(?:journal|routing|schema|store)\//,
    forbidden: /^src\/core\/orchestrator\//,
    detail: 'journal/, routing/, schema/ and store/ sit below the orchestrator and must not import it',
  },
];

function lineOf(source: ts.SourceFile, node: ts.Node): number {
  return source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
}

function isReference(node: ts.Identifier): boolean {
  const parent = node.parent;
  if (ts.isPropertyAccessExpression(parent) && parent.name === node) return false;
  if (
    (ts.isPropertyAssignment(parent) ||
      ts.isPropertyDeclaration(parent) ||
      ts.isMethodDeclaration(parent) ||
      ts.isPropertySignature(parent) ||
      ts.isMethodSignature(parent)) &&
    parent.name === node
  )
    return false;
  if (
    (ts.isVariableDeclaration(parent) ||
      ts.isParameter(parent) ||
      ts.isFunctionDeclaration(parent) ||
      ts.isClassDeclaration(parent) ||
      ts.isBindingElement(parent)) &&
    parent.name === node
  )
    return false;
  if (ts.isImportSpecifier(parent) || ts.isExportSpecifier(parent) || ts.isTypeReferenceNode(parent) || ts.isQualifiedName(parent)) return false;
  if (ts.isShorthandPropertyAssignment(parent)) return true;
  return true;
}

/** Whether an import or export brings in types only (`import type`, or every named binding `type`). */
function isTypeOnly(node: ts.Node): boolean {
  if (ts.isExportDeclaration(node)) return node.isTypeOnly;
  if (!ts.isImportDeclaration(node)) return false;
  const clause = node.importClause;
  if (!clause) return false;
  if (clause.isTypeOnly) return true;
  const bindings = clause.namedBindings;
  return !clause.name && bindings !== undefined && ts.isNamedImports(bindings) && bindings.elements.length > 0 && bindings.elements.every((e) => e.isTypeOnly);
}

/**
 * Check one source file. `isCore` adds the core's rules (imports and globals); the
 * `eval` / `new Function` rules apply everywhere.
 */
export function checkSource(file: string, text: string, isCore: boolean): GuardrailViolation[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const violations: GuardrailViolation[] = [];
  const add = (node: ts.Node, rule: string, detail: string) => violations.push({ file, line: lineOf(source, node), rule, detail });

  const checkSpecifier = (node: ts.Node, specifier: string) => {
    if (!isCore) return;
    // The model port is the AI SDK's LanguageModelV2: its types, and nothing that runs.
    if (/^@ai-sdk\/provider$/.test(specifier)) {
      if (!isTypeOnly(node)) add(node, 'core-import', `imports ${specifier} as a value; the core may import only its types`);
      return;
    }
    if (FORBIDDEN_PACKAGES.test(specifier)) add(node, 'core-import', `imports ${specifier}`);
    if (specifier.startsWith('.')) {
      const resolved = new URL(specifier, `file:///${file}`).pathname.slice(1);
      if (HOST_FOLDERS.test(resolved) || !resolved.startsWith('src/core/')) add(node, 'core-import', `imports ${specifier} from outside src/core`);
      for (const rule of CORE_FOLDER_RULES)
        if (rule.from.test(file) && rule.forbidden.test(resolved)) add(node, 'core-folder', `imports ${specifier}: ${rule.detail}`);
    } else if (!/^(?:zod|@noble\/hashes|@noble\/curves|ipaddr\.js|yaml|@orama\/stemmers|chrono-node)(?:\/|$)/.test(specifier)) {
      add(
        node,
        'core-import',
        `imports package ${specifier}; the core depends on zod, @noble/hashes, @noble/curves, ipaddr.js, yaml, @orama/stemmers and chrono-node only`,
      );
    }
  };
  // Code that was not shipped with CUGAr reaches a realm only through the sandbox's loaders.
  const isSandboxLoader = SANDBOX_LOADERS.has(file);
  const checkDynamicCode = (node: ts.Node, specifier: string) => {
    if (/^(?:node:)?vm$/.test(specifier)) add(node, 'no-eval', `imports ${specifier}: code runs in a realm only through the sandbox`);
    if (/^(?:node:)?worker_threads$/.test(specifier) && !isSandboxLoader) add(node, 'no-eval', `imports ${specifier} outside the sandbox loaders`);
  };

  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      checkSpecifier(node, node.moduleSpecifier.text);
      checkDynamicCode(node, node.moduleSpecifier.text);
    }
    // A thread started from a script URL (not the routing pool's `new Worker({ id })`) runs code: only the sandbox loaders start one.
    if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && /^(?:Shared)?Worker$/.test(node.expression.text) && !isSandboxLoader) {
      const first = node.arguments?.[0];
      if (first && !ts.isObjectLiteralExpression(first)) add(node, 'no-eval', `starts a ${node.expression.text} from a script outside the sandbox loaders`);
    }
    if (ts.isIdentifier(node) && node.text === 'loadWithoutAudit' && file !== 'src/core/sandbox/workerSandbox.ts')
      add(node, 'no-eval', 'uses the audit-free sandbox loader, which exists for the escape tests only');
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const first = node.arguments[0];
      if (callee.kind === ts.SyntaxKind.ImportKeyword) {
        if (first && ts.isStringLiteralLike(first)) {
          checkSpecifier(node, first.text);
          checkDynamicCode(node, first.text);
        } else if (isCore) add(node, 'core-import', 'dynamic import of a computed specifier');
      }
      if (ts.isIdentifier(callee) && callee.text === 'eval') add(node, 'no-eval', 'calls eval');
      if (ts.isIdentifier(callee) && callee.text === 'Function') add(node, 'no-eval', 'calls Function()');
      if (ts.isIdentifier(callee) && (callee.text === 'setTimeout' || callee.text === 'setInterval') && first && ts.isStringLiteralLike(first))
        add(node, 'no-eval', `${callee.text} with a string`);
    }
    if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'Function') add(node, 'no-eval', 'new Function');
    if (
      ts.isPropertyAccessExpression(node) &&
      node.name.text === 'eval' &&
      ts.isIdentifier(node.expression) &&
      ['globalThis', 'window', 'self'].includes(node.expression.text)
    ) {
      add(node, 'no-eval', `${node.expression.text}.eval`);
    }
    if (isCore && ts.isIdentifier(node) && FORBIDDEN_GLOBALS.has(node.text) && isReference(node)) {
      add(node, 'core-global', `uses the host-only global ${node.text}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return violations;
}
