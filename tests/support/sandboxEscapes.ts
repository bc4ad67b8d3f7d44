import { parse } from '@babel/parser';
import { SandboxError, auditToolSource, type Sandbox, type SandboxErrorCode, type SandboxLimits } from '../../src/core/index.ts';
import { loadWithoutAudit } from '../../src/core/sandbox/workerSandbox.ts';

/**
 * Sources that try to leave the sandbox, shared by the Node and Chromium suites. Each `code`
 * declares `function handler`; the audit sees it as a module (`export` added), the worker runs it
 * with the audit bypassed. `LOOPBACK` and `WSLOOP` become the counting listener's address.
 */
export interface Escape {
  name: string;
  code: string;
  /** A rule the audit must report; absent when the audit accepts the source and the worker must stop it. */
  audit?: string;
  /** What stops it in the worker (any of these); the call never succeeds. */
  stop: readonly SandboxErrorCode[];
  limits?: SandboxLimits;
  /** Hosts the attempt runs on (default both). */
  hosts?: ReadonlyArray<'node' | 'browser'>;
  /** In a browser, only the frame's CSP stops it (a worker started from the page would load the URL). */
  frameOnly?: true;
}

const NET: readonly SandboxErrorCode[] = ['network_denied'];
// `import()` is refused by the realm's stub on Node, and by the frame's CSP in a browser (a rejected import).
const IMPORT: readonly SandboxErrorCode[] = ['network_denied', 'handler_failed'];
const THROWS: readonly SandboxErrorCode[] = ['handler_failed'];
const fast: SandboxLimits = { timeoutMs: 300 };

export const ESCAPES: readonly Escape[] = [
  { name: 'fetch to loopback', code: `async function handler() { return (await fetch('LOOPBACK/fetch')).status; }`, audit: 'network_access', stop: NET },
  { name: 'globalThis.fetch', code: `async function handler() { return (await globalThis.fetch('LOOPBACK/g')).status; }`, audit: 'network_access', stop: NET },
  {
    name: "globalThis['fe' + 'tch']",
    code: `async function handler() { return (await globalThis['fe' + 'tch']('LOOPBACK/c')).status; }`,
    audit: 'global_not_allowed',
    stop: NET,
  },
  {
    name: 'fetch by a name built at run time',
    code: `async function handler() { const n = ['fe', 'tch'].join(''); return typeof globalThis[n]('LOOPBACK/n'); }`,
    audit: 'global_not_allowed',
    stop: NET,
  },
  {
    name: 'XMLHttpRequest',
    code: `function handler() { const x = new XMLHttpRequest(); x.open('GET', 'LOOPBACK/xhr'); x.send(); return 1; }`,
    audit: 'network_access',
    stop: NET,
  },
  { name: 'WebSocket', code: `function handler() { new WebSocket('WSLOOP/ws'); return 1; }`, audit: 'network_access', stop: NET },
  { name: 'EventSource', code: `function handler() { new EventSource('LOOPBACK/es'); return 1; }`, audit: 'network_access', stop: NET },
  { name: 'importScripts', code: `function handler() { importScripts('LOOPBACK/is.js'); return 1; }`, audit: 'network_access', stop: NET },
  { name: 'new Request', code: `async function handler() { return (await fetch(new Request('LOOPBACK/req'))).ok; }`, audit: 'network_access', stop: NET },
  {
    name: 'navigator.sendBeacon',
    code: `function handler() { return navigator.sendBeacon('LOOPBACK/beacon', 'x'); }`,
    audit: 'network_access',
    stop: [...NET, 'handler_failed'],
  },
  { name: 'indexedDB', code: `function handler() { indexedDB.open('host-data'); return 1; }`, audit: 'global_not_allowed', stop: THROWS },
  { name: 'caches', code: `async function handler() { return (await caches.keys()).length; }`, audit: 'global_not_allowed', stop: THROWS },
  { name: 'location of the host', code: `function handler() { return location.href; }`, audit: 'global_not_allowed', stop: THROWS },
  { name: 'BroadcastChannel', code: `function handler() { new BroadcastChannel('host').postMessage(1); return 1; }`, audit: 'global_not_allowed', stop: NET },
  {
    name: 'fetch caught and hidden',
    code: `async function handler() { try { await fetch('LOOPBACK/hidden'); } catch { return 'fine'; } }`,
    audit: 'network_access',
    stop: NET,
  },
  {
    name: 'import() of an http URL',
    code: `async function handler() { return Object.keys(await import('LOOPBACK/mod.js')); }`,
    audit: 'import_forbidden',
    stop: IMPORT,
    frameOnly: true,
  },
  {
    name: 'import() of a data: URL',
    code: `async function handler() { return (await import('data:text/javascript,export default 1')).default; }`,
    audit: 'import_forbidden',
    stop: IMPORT,
    frameOnly: true,
  },
  {
    name: 'import() of node:http',
    code: `async function handler() { const http = await import('node:http'); return typeof http.get; }`,
    audit: 'import_forbidden',
    stop: IMPORT,
  },
  {
    name: 'import() of node:child_process',
    code: `async function handler() { const cp = await import('node:child_process'); return cp.execSync('id').toString(); }`,
    audit: 'process_access',
    stop: IMPORT,
  },
  {
    name: 'import() of node:fs',
    code: `async function handler() { const fs = await import('node:fs'); return fs.readFileSync('/etc/passwd', 'utf8'); }`,
    audit: 'filesystem_access',
    stop: IMPORT,
  },
  {
    name: 'import() by a computed name',
    code: `async function handler() { const m = 'node:' + 'fs'; return Object.keys(await import(m)); }`,
    audit: 'dynamic_import',
    stop: IMPORT,
  },
  {
    name: 'import() error used to reach the Function constructor',
    code: `async function handler() { try { await import('node:fs'); } catch (e) { return typeof e.constructor.constructor('return process')(); } }`,
    audit: 'constructor_escape',
    stop: IMPORT,
  },
  {
    name: "require('child_process')",
    code: `function handler() { return require('child_process').execSync('id').toString(); }`,
    audit: 'process_access',
    stop: THROWS,
  },
  { name: 'require by a computed name', code: `function handler(input) { return typeof require(input.name); }`, audit: 'dynamic_import', stop: THROWS },
  { name: "process.binding('spawn_sync')", code: `function handler() { return typeof process.binding('spawn_sync'); }`, audit: 'process_access', stop: THROWS },
  { name: 'process.env', code: `function handler() { return Object.keys(process.env); }`, audit: 'process_access', stop: THROWS },
  { name: 'globalThis.process', code: `function handler() { return globalThis.process.pid; }`, audit: 'global_object', stop: THROWS },
  { name: 'module.constructor._load', code: `function handler() { return typeof module.constructor._load('fs'); }`, audit: 'global_not_allowed', stop: THROWS },
  { name: 'Buffer', code: `function handler() { return Buffer.from('x').length; }`, audit: 'global_not_allowed', stop: THROWS },
  { name: '__dirname', code: `function handler() { return __dirname; }`, audit: 'global_not_allowed', stop: THROWS },
  {
    name: 'constructor.constructor',
    code: `function handler() { return (function () {}).constructor.constructor('return typeof fetch')(); }`,
    audit: 'constructor_escape',
    stop: THROWS,
  },
  {
    name: "constructor.constructor('return fetch')",
    code: `async function handler() { const f = [].constructor.constructor('return fetch')(); return (await f('LOOPBACK/cc')).ok; }`,
    audit: 'constructor_escape',
    stop: THROWS,
  },
  {
    name: "x['constr' + 'uctor']",
    code: `function handler() { const k = 'constr' + 'uctor'; const x = {}; return x[k][k]('return this')(); }`,
    audit: 'member_not_allowed',
    stop: THROWS,
  },
  {
    name: 'constructor spelled at run time',
    code: `function handler() { const k = ['constr', 'uctor'].join(''); return ({})[k][k]('return 1')(); }`,
    stop: THROWS,
  },
  {
    name: "computed 'constr' + 'uctor' inline",
    code: `function handler() { return ({})['constr' + 'uctor']['constr' + 'uctor']('return 1')(); }`,
    audit: 'constructor_escape',
    stop: THROWS,
  },
  {
    name: 'the async function constructor',
    code: `async function handler() { const A = (async function () {}).constructor; return await A('return 1')(); }`,
    audit: 'member_not_allowed',
    stop: THROWS,
  },
  {
    name: 'the generator function constructor',
    code: `function handler() { const G = (function* () {}).constructor; return G('yield 1')().next().value; }`,
    audit: 'member_not_allowed',
    stop: THROWS,
  },
  { name: 'Function', code: `function handler() { return Function('return typeof fetch')(); }`, audit: 'dynamic_code', stop: THROWS },
  { name: 'new Function', code: `function handler() { return new Function('return 1')(); }`, audit: 'dynamic_code', stop: THROWS },
  { name: 'eval', code: `function handler() { return eval('1 + 1'); }`, audit: 'dynamic_code', stop: THROWS },
  { name: 'indirect eval', code: `function handler() { return (0, eval)('typeof fetch'); }`, audit: 'dynamic_code', stop: THROWS },
  { name: 'a string timer', code: `function handler() { setTimeout("fetch('LOOPBACK/timer')", 0); return 1; }`, audit: 'dynamic_code', stop: THROWS },
  {
    name: 'Reflect.construct(Function)',
    code: `function handler() { return Reflect.construct(Function, ['return 1'])(); }`,
    audit: 'dynamic_code',
    stop: THROWS,
  },
  {
    name: 'getPrototypeOf(function).constructor',
    code: `function handler() { return Object.getPrototypeOf(function () {}).constructor('return 1')(); }`,
    audit: 'constructor_escape',
    stop: THROWS,
  },
  {
    name: 'WebAssembly',
    code: `async function handler() { return typeof (await WebAssembly.compile(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]))); }`,
    audit: 'webassembly',
    stop: THROWS,
  },
  {
    name: 'Object.prototype pollution',
    code: `function handler() { Object.prototype.polluted = 'yes'; return ({}).polluted; }`,
    audit: 'prototype_tampering',
    stop: THROWS,
  },
  {
    name: 'Array.prototype.push replaced',
    code: `function handler() { Array.prototype.push = function () { return 0; }; return [].push(1); }`,
    audit: 'prototype_tampering',
    stop: THROWS,
  },
  { name: '__proto__ write', code: `function handler() { ({}).__proto__.polluted = 1; return 1; }`, audit: 'prototype_tampering', stop: THROWS },
  {
    name: 'setPrototypeOf on Object.prototype',
    code: `function handler() { Object.setPrototypeOf(Object.prototype, { polluted: 1 }); return 1; }`,
    audit: 'prototype_tampering',
    stop: THROWS,
  },
  {
    name: 'defineProperty on Array.prototype',
    code: `function handler() { Object.defineProperty(Array.prototype, 'map', { value: () => 'owned' }); return [1].map((x) => x); }`,
    audit: 'prototype_tampering',
    stop: THROWS,
  },
  {
    name: 'JSON.stringify replaced (the output channel)',
    code: `function handler() { JSON.stringify = () => '"forged"'; return 1; }`,
    audit: 'prototype_tampering',
    stop: THROWS,
  },
  {
    name: 'Promise.prototype.then replaced',
    code: `function handler() { Promise.prototype.then = function (ok) { ok('forged'); }; return 1; }`,
    audit: 'prototype_tampering',
    stop: THROWS,
  },
  {
    name: 'a global replaced',
    code: `function handler() { globalThis.JSON = { stringify: () => 'forged' }; return 1; }`,
    audit: 'global_object',
    stop: THROWS,
  },
  {
    name: 'Error.prepareStackTrace',
    code: `function handler() { Error.prepareStackTrace = (e, frames) => frames; return new Error('x').stack.length; }`,
    audit: 'prototype_tampering',
    stop: THROWS,
  },
  { name: 'arguments.callee.caller', code: `function handler() { return typeof arguments.callee.caller; }`, audit: 'member_not_allowed', stop: THROWS },
  { name: 'Proxy', code: `function handler() { return new Proxy({}, { get: () => 1 }).x; }`, audit: 'global_not_allowed', stop: THROWS },
  {
    name: 'SharedArrayBuffer and Atomics.wait',
    code: `function handler() { Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0); return 1; }`,
    audit: 'shared_memory',
    stop: THROWS,
  },
  {
    name: 'postMessage to the host',
    code: `function handler() { postMessage({ type: 'result', id: 1, result: 'oforged' }); return 1; }`,
    audit: 'global_not_allowed',
    stop: THROWS,
  },
  { name: 'self.close', code: `function handler() { self.close(); return 1; }`, audit: 'global_object', stop: THROWS },
  {
    name: 'a nested worker',
    code: `function handler() { new Worker('data:text/javascript,fetch("LOOPBACK/w")'); return 1; }`,
    audit: 'global_not_allowed',
    stop: THROWS,
  },
  { name: 'this of a sloppy call', code: `function handler() { return (function () { return this; })().fetch; }`, stop: THROWS },
  { name: 'while (true)', code: `function handler() { while (true) {} }`, audit: 'unbounded_loop', stop: ['timeout'], limits: fast },
  { name: 'for (;;)', code: `function handler() { for (;;) {} }`, audit: 'unbounded_loop', stop: ['timeout'], limits: fast },
  {
    name: 'a loop at load',
    code: `while (true) {}\nfunction handler() { return 1; }`,
    audit: 'unbounded_loop',
    stop: ['timeout'],
    limits: { loadTimeoutMs: 300 },
  },
  { name: 'a promise that never settles', code: `function handler() { return new Promise(() => {}); }`, stop: ['timeout'], limits: fast },
  { name: 'a catastrophic regular expression', code: `function handler() { return /^(a+)+$/.test('a'.repeat(40) + 'b'); }`, stop: ['timeout'], limits: fast },
  { name: 'unbounded recursion', code: `function handler() { return handler() + 1; }`, stop: THROWS },
  {
    name: 'a memory hog',
    code: `function handler() { const all = []; for (;;) all.push(new Array(1e6).fill(1)); }`,
    audit: 'unbounded_loop',
    stop: ['memory'],
    limits: { memoryMb: 32, timeoutMs: 20_000 },
    hosts: ['node'],
  },
  {
    name: 'a memory hog (time-limited)',
    code: `function handler() { const all = []; for (;;) all.push(new Array(1e5).fill(1)); }`,
    audit: 'unbounded_loop',
    stop: ['timeout', 'crashed'],
    limits: { timeoutMs: 200 },
    hosts: ['browser'],
  },
  { name: 'a huge output', code: `function handler() { return 'x'.repeat(3e6); }`, stop: ['bad_output'] },
  { name: 'a huge output through toJSON', code: `function handler() { return { toJSON() { return 'y'.repeat(3e6); } }; }`, stop: ['bad_output'] },
  { name: 'a function as output', code: `function handler() { return function () {}; }`, stop: ['bad_output'] },
  { name: 'a BigInt as output', code: `function handler() { return 10n; }`, stop: ['bad_output'] },
  { name: 'a cyclic output', code: `function handler() { const a = {}; a.a = a; return a; }`, stop: ['bad_output'] },
  { name: 'a symbol as output', code: `function handler() { return Symbol('s'); }`, stop: ['bad_output'] },
  {
    name: 'a thrown value that cannot be described',
    code: `function handler() { throw { get message() { throw 1; }, toString() { throw 2; } }; }`,
    stop: THROWS,
  },
  { name: 'a with statement', code: `function handler() { with ({}) { return 1; } }`, audit: 'syntax', stop: ['syntax'] },
  { name: 'import.meta', code: `function handler() { return import.meta.url; }`, audit: 'import_forbidden', stop: ['syntax'] },
];

/** The module a tool would submit for an escape's code. */
export function moduleOf(code: string): string {
  return code.replace(/(^|\n)(async )?function handler/, '$1export $2function handler');
}

/** What one escape attempt came to. */
export interface EscapeOutcome {
  name: string;
  auditOk: boolean;
  auditRules: string[];
  /** The error code the worker stopped it with, or `escaped` with the value it returned. */
  stoppedWith?: string;
  escaped?: unknown;
  /** A healthy tool of the same sandbox answered right after. */
  healthy: boolean;
}

/** Run every escape meant for `host` against `sandbox` (audit, then the worker with the audit bypassed). */
export async function runEscapes(
  sandbox: Sandbox,
  host: 'node' | 'browser',
  origin: { http: string; ws: string },
  options: { skipFrameOnly?: boolean } = {},
): Promise<EscapeOutcome[]> {
  const healthy = await sandbox.load('export default function (input) { return { n: input.n + 1 }; }');
  const outcomes: EscapeOutcome[] = [];
  for (const escape of ESCAPES) {
    if ((escape.hosts && !escape.hosts.includes(host)) || (options.skipFrameOnly && escape.frameOnly)) continue;
    const code = escape.code.replaceAll('LOOPBACK', origin.http).replaceAll('WSLOOP', origin.ws);
    const audit = await auditToolSource(moduleOf(code), parse);
    const outcome: EscapeOutcome = { name: escape.name, auditOk: audit.ok, auditRules: audit.findings.map((f) => f.rule), healthy: false };
    try {
      const tool = await loadWithoutAudit(sandbox, `(function () {\n'use strict';\n${code}\nreturn handler;\n})`, { limits: escape.limits ?? {} });
      try {
        outcome.escaped = await tool.call({ n: 1 });
      } finally {
        await tool.close();
      }
    } catch (error) {
      outcome.stoppedWith = error instanceof SandboxError ? error.code : `untyped: ${String(error)}`;
    }
    outcome.healthy = JSON.stringify(await healthy.call({ n: 41 })) === '{"n":42}';
    outcomes.push(outcome);
  }
  await healthy.close();
  return outcomes;
}
