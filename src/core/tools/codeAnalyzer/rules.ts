import { findingAt, type Finding, type Severity } from './finding.ts';
import type { collectScopes } from './scope.ts';
import { isNode, isReference, memberName, staticString, type AstNode, type NodePath } from './walk.ts';
import { lookupTable } from '../../lookupTable.ts';

type Scopes = ReturnType<typeof collectScopes>;

/** Modules whose import gives a program the process: children, workers, vm, inspector. */
const PROCESS_MODULES: Readonly<Record<string, Severity>> = lookupTable({
  child_process: 'critical',
  worker_threads: 'critical',
  cluster: 'critical',
  vm: 'critical',
  inspector: 'critical',
  module: 'critical',
  process: 'high',
  os: 'high',
  v8: 'high',
});
const FS_MODULES = new Set(['fs', 'fs/promises']);
const NETWORK_MODULES = new Set(['http', 'https', 'http2', 'net', 'tls', 'dgram', 'dns', 'dns/promises', 'undici', 'axios', 'node-fetch', 'ws']);
const NETWORK_GLOBALS = new Set(['fetch', 'XMLHttpRequest', 'WebSocket', 'EventSource', 'importScripts', 'WebTransport', 'RTCPeerConnection']);
const GLOBAL_OBJECTS = new Set(['globalThis', 'self', 'window', 'global', 'top', 'parent', 'frames']);
const PROCESS_GLOBALS = new Set(['process', 'Deno', 'Bun']);
const STRING_TIMERS = new Set(['setTimeout', 'setInterval', 'setImmediate', 'execScript']);
/** Built-ins whose prototypes every piece of code in a realm shares. */
export const BUILTINS = new Set([
  'Object',
  'Function',
  'Array',
  'String',
  'Number',
  'Boolean',
  'Symbol',
  'BigInt',
  'Date',
  'RegExp',
  'Error',
  'Promise',
  'Map',
  'Set',
  'WeakMap',
  'WeakSet',
  'JSON',
  'Math',
  'Reflect',
  'ArrayBuffer',
  'Uint8Array',
  'Iterator',
]);
const PROTOTYPE_WRITERS = new Set(['setPrototypeOf', 'defineProperty', 'defineProperties', 'assign', '__defineGetter__', '__defineSetter__', 'set']);
const ESCAPE_KEYS = new Set(['constructor', '__proto__', 'prototype']);

/** The module a specifier names, without `node:` and a subpath of a package (`fs/promises` kept). */
function moduleName(specifier: string): string {
  const bare = specifier.replace(/^node:/, '');
  return bare === 'fs/promises' || bare === 'dns/promises' ? bare : (bare.split('/')[0] ?? bare);
}

/** Findings for a module a source loads by a static name. */
function moduleFindings(node: AstNode, specifier: string): Finding[] {
  const name = moduleName(specifier);
  const found = [findingAt(node, 'module_import', 'info', `imports "${specifier}"`)];
  // Own keys only: a module named "constructor" must not find Object.prototype's.
  const processSeverity = Object.hasOwn(PROCESS_MODULES, name) ? PROCESS_MODULES[name] : undefined;
  if (processSeverity) found.push(findingAt(node, 'process_access', processSeverity, `loads "${specifier}", which reaches the process`));
  if (FS_MODULES.has(name)) found.push(findingAt(node, 'filesystem_access', 'high', `loads "${specifier}" (file system)`));
  if (NETWORK_MODULES.has(name)) found.push(findingAt(node, 'network_access', 'high', `loads "${specifier}" (network)`));
  if (/^(?:https?|data|blob|file):/i.test(specifier)) found.push(findingAt(node, 'network_access', 'critical', `loads code from the URL "${specifier}"`));
  return found;
}

/** The identifier at the root of a member chain (`a` of `a.b.c`), if any. */
export function rootName(node: unknown): string | undefined {
  let current = node;
  while (isNode(current) && (current.type === 'MemberExpression' || current.type === 'OptionalMemberExpression')) current = current['object'];
  return isNode(current) && current.type === 'Identifier' ? (current['name'] as string) : undefined;
}

/** Whether a member chain passes through `.prototype` or `.__proto__`. */
function reachesPrototype(node: unknown): boolean {
  let current = node;
  while (isNode(current) && (current.type === 'MemberExpression' || current.type === 'OptionalMemberExpression')) {
    const name = memberName(current);
    if (name === 'prototype' || name === '__proto__') return true;
    current = current['object'];
  }
  return false;
}

/** A built-in, or a chain rooted at one (`Array.prototype`): what a prototype write may not target. */
function isBuiltinTarget(node: unknown): boolean {
  const root = rootName(node);
  return root !== undefined && BUILTINS.has(root);
}

function checkCall(node: AstNode): Finding[] {
  const callee = node['callee'] as AstNode;
  const args = node['arguments'] as AstNode[];
  const first = args[0];
  const found: Finding[] = [];
  if (callee.type === 'Identifier') {
    const name = callee['name'] as string;
    if (STRING_TIMERS.has(name) && first && staticString(first) !== undefined)
      found.push(findingAt(node, 'dynamic_code', 'critical', `${name} with a string compiles it as code`));
    else if (STRING_TIMERS.has(name) && first && (first.type === 'TemplateLiteral' || (first.type === 'BinaryExpression' && staticString(first) === undefined)))
      found.push(findingAt(node, 'dynamic_code', 'high', `${name} with a computed string compiles it as code`));
    if (name === 'require') {
      const specifier = first ? staticString(first) : undefined;
      found.push(
        ...(specifier === undefined ? [findingAt(node, 'dynamic_import', 'critical', 'require of a computed module name')] : moduleFindings(node, specifier)),
      );
    }
  }
  if (callee.type === 'MemberExpression' || callee.type === 'OptionalMemberExpression') {
    const method = memberName(callee);
    const owner = rootName(callee['object']);
    if ((owner === 'Object' || owner === 'Reflect') && method && PROTOTYPE_WRITERS.has(method) && first) {
      if (isBuiltinTarget(first) || reachesPrototype(first))
        found.push(findingAt(node, 'prototype_tampering', 'critical', `${owner}.${method} on a built-in or a prototype changes what all code shares`));
      else if (method === 'setPrototypeOf')
        found.push(findingAt(node, 'prototype_tampering', 'medium', `${owner}.setPrototypeOf changes an object's prototype`));
    }
    if (method === 'sendBeacon') found.push(findingAt(node, 'network_access', 'high', 'navigator.sendBeacon sends a request'));
    if (owner === 'process' && (method === 'binding' || method === 'dlopen' || method === '_linkedBinding'))
      found.push(findingAt(node, 'process_access', 'critical', `process.${method} reaches native bindings`));
  }
  return found;
}

function checkMember(path: NodePath): Finding[] {
  const node = path.node;
  const name = memberName(node);
  const object = node['object'] as AstNode;
  const found: Finding[] = [];
  const spelled = node['computed'] === true && name !== undefined && ESCAPE_KEYS.has(name) && (node['property'] as AstNode).type !== 'StringLiteral';
  if (spelled) found.push(findingAt(node, 'constructor_escape', 'critical', `a computed key that spells "${name}"`));
  if (name === 'constructor' && !spelled) {
    const objectName = isNode(object) && (object.type === 'MemberExpression' || object.type === 'OptionalMemberExpression') ? memberName(object) : undefined;
    if (objectName === 'constructor') found.push(findingAt(node, 'constructor_escape', 'critical', 'constructor.constructor reaches the Function constructor'));
    else found.push(findingAt(node, 'constructor_escape', 'medium', 'reads .constructor, a step towards the Function constructor'));
  }
  if (name === '__proto__') found.push(findingAt(node, 'prototype_tampering', 'high', 'uses __proto__'));
  if (name === 'eval' && GLOBAL_OBJECTS.has(rootName(object) ?? ''))
    found.push(findingAt(node, 'dynamic_code', 'critical', 'calls eval through the global object'));
  if (name !== undefined && NETWORK_GLOBALS.has(name) && GLOBAL_OBJECTS.has(rootName(object) ?? ''))
    found.push(findingAt(node, 'network_access', 'high', `reaches ${name} through the global object`));
  if (node['computed'] && name === undefined && isNode(object) && object.type === 'Identifier' && GLOBAL_OBJECTS.has(object['name'] as string))
    found.push(findingAt(node, 'dynamic_code', 'high', 'reads the global object by a computed name'));
  return found;
}

function checkWrite(node: AstNode, target: unknown): Finding[] {
  if (!isNode(target) || (target.type !== 'MemberExpression' && target.type !== 'OptionalMemberExpression')) return [];
  if (isBuiltinTarget(target)) return [findingAt(node, 'prototype_tampering', 'critical', `changes the built-in ${rootName(target)}`)];
  if (reachesPrototype(target)) return [findingAt(node, 'prototype_tampering', 'low', 'changes a prototype')];
  return [];
}

function checkIdentifier(path: NodePath, scopes: Scopes): Finding[] {
  if (!isReference(path) || scopes.isLocal(path.node['name'] as string, path)) return [];
  const node = path.node;
  const name = node['name'] as string;
  if (name === 'eval') return [findingAt(node, 'dynamic_code', 'critical', 'uses eval')];
  if (name === 'Function') return [findingAt(node, 'dynamic_code', 'critical', 'uses the Function constructor')];
  if (PROCESS_GLOBALS.has(name)) return [findingAt(node, 'process_access', 'high', `uses ${name}`)];
  if (NETWORK_GLOBALS.has(name)) return [findingAt(node, 'network_access', 'high', `uses ${name}`)];
  if (GLOBAL_OBJECTS.has(name)) return [findingAt(node, 'global_object', 'medium', `uses the global object (${name})`)];
  if (name === 'WebAssembly') return [findingAt(node, 'webassembly', 'high', 'uses WebAssembly')];
  if (name === 'SharedArrayBuffer' || name === 'Atomics') return [findingAt(node, 'shared_memory', 'medium', `uses ${name}`)];
  if (name === 'require' && !(path.parent?.type === 'CallExpression' && path.key === 'callee'))
    return [findingAt(node, 'dynamic_import', 'high', 'passes require around as a value')];
  return [];
}

function propertyKey(key: unknown): string | undefined {
  return isNode(key) && key.type === 'Identifier' ? (key['name'] as string) : staticString(key);
}

/** The findings of one node (loops, size and complexity are measured elsewhere). */
export function nodeFindings(path: NodePath, scopes: Scopes): Finding[] {
  const node = path.node;
  switch (node.type) {
    case 'Identifier':
      return checkIdentifier(path, scopes);
    case 'CallExpression':
    case 'OptionalCallExpression':
    case 'NewExpression':
      return checkCall(node);
    case 'MemberExpression':
    case 'OptionalMemberExpression':
      return checkMember(path);
    case 'ImportExpression': {
      const specifier = staticString(node['source']);
      return specifier === undefined ? [findingAt(node, 'dynamic_import', 'critical', 'import() of a computed module name')] : moduleFindings(node, specifier);
    }
    case 'ImportDeclaration':
    case 'ExportAllDeclaration':
    case 'ExportNamedDeclaration': {
      const source = node['source'];
      const specifier = isNode(source) ? staticString(source) : undefined;
      return specifier === undefined ? [] : moduleFindings(node, specifier);
    }
    case 'AssignmentExpression':
      return checkWrite(node, node['left']);
    case 'UpdateExpression':
      return checkWrite(node, node['argument']);
    case 'UnaryExpression':
      return node['operator'] === 'delete' ? checkWrite(node, node['argument']) : [];
    case 'ObjectProperty':
    case 'ObjectMethod':
      return !node['computed'] && propertyKey(node['key']) === '__proto__'
        ? [findingAt(node, 'prototype_tampering', 'high', 'sets __proto__ in an object literal')]
        : [];
    case 'WithStatement':
      return [findingAt(node, 'with_statement', 'medium', 'uses a with statement')];
    default:
      return [];
  }
}
