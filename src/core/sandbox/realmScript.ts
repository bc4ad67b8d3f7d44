import { realmLibrary, type RealmLibraryName } from './realmLibraries.ts';

/**
 * The text that turns a fresh realm into the sandbox: the same on every host. A Node worker
 * runs it in a `vm` context with code generation from strings off; a browser worker runs it as
 * the first thing in its own global. It is text, never run in the host's realm.
 *
 * In order, it: keeps the JavaScript language's own globals and removes every other global along
 * the global object's prototype chain (fetch, XMLHttpRequest, WebSocket, importScripts, timers,
 * `process`, `postMessage`, …; it fails closed when one cannot be removed); installs stubs for the
 * network globals that throw and mark the call as a network attempt; replaces the constructors of
 * the four function kinds (`Function`, async, generator, async generator) and removes `eval`;
 * runs the library the load asked for, if any (its globals defined read-only); freezes every object
 * reachable from the global (so prototype pollution throws); and only then runs the tool's
 * factory, which returns its handler.
 *
 * The result is `call(inputJson, maxOutputChars) → Promise<string>`: `o<json>` for an output,
 * `e<text>` for a throw, `n<text>` when the call reached for the network, `b<text>` for an
 * output that is not JSON or is too long. Only strings leave the realm.
 */
export const LANGUAGE_GLOBALS: readonly string[] = [
  'Object',
  'Array',
  'Number',
  'parseFloat',
  'parseInt',
  'Infinity',
  'NaN',
  'undefined',
  'Boolean',
  'String',
  'Symbol',
  'Date',
  'Promise',
  'RegExp',
  'Error',
  'AggregateError',
  'EvalError',
  'RangeError',
  'ReferenceError',
  'SyntaxError',
  'TypeError',
  'URIError',
  'globalThis',
  'JSON',
  'Math',
  'Intl',
  'ArrayBuffer',
  'Uint8Array',
  'Int8Array',
  'Uint16Array',
  'Int16Array',
  'Uint32Array',
  'Int32Array',
  'Float32Array',
  'Float64Array',
  'Uint8ClampedArray',
  'BigUint64Array',
  'BigInt64Array',
  'DataView',
  'Map',
  'BigInt',
  'Set',
  'WeakMap',
  'WeakSet',
  'decodeURI',
  'decodeURIComponent',
  'encodeURI',
  'encodeURIComponent',
  'isFinite',
  'isNaN',
  'Iterator',
];

/** Network globals replaced by stubs that throw and mark the call as a network attempt. */
export const NETWORK_GLOBALS: readonly string[] = [
  'fetch',
  'XMLHttpRequest',
  'WebSocket',
  'EventSource',
  'importScripts',
  'WebTransport',
  'RTCPeerConnection',
  'navigator',
  'Request',
  'BroadcastChannel',
];

/** The name the factory returns the handler under; tool sources may not use it. */
export const HANDLER_BINDING = '__cugarHandler';

const PRELUDE = `(function cugarSandboxRealm(factory, allowed, network, library) {
  'use strict';
  var g = globalThis;
  var getProto = Object.getPrototypeOf, ownKeys = Reflect.ownKeys, defineProp = Object.defineProperty, deleteProp = Reflect.deleteProperty;
  var getDesc = Object.getOwnPropertyDescriptor, freeze = Object.freeze, isFrozen = Object.isFrozen;
  var parse = JSON.parse, stringify = JSON.stringify, PromiseCtor = Promise, StringCtor = String;
  var ErrorCtor = Error, TypeErrorCtor = TypeError, WeakSetCtor = WeakSet, objectProto = Object.prototype;
  var keep = {};
  for (var a = 0; a < allowed.length; a++) keep[allowed[a]] = true;
  var attempted = false;
  var denials = new WeakSetCtor();
  function deny(name) {
    return function () {
      attempted = true;
      var error = new ErrorCtor('network access is not available in the sandbox (' + name + ')');
      denials.add(error);
      throw error;
    };
  }
  function refuse() {
    throw new TypeErrorCtor('code generation from strings is not available in the sandbox');
  }
  function strip(o, name) {
    deleteProp(o, name);
    var left = getDesc(o, name);
    if (left === undefined) return;
    if (left.writable) { o[name] = undefined; return; }
    // A constant that cannot be removed (a browser's TEMPORARY = 0) reaches nothing; anything else fails closed.
    if ('value' in left && (left.value === null || (typeof left.value !== 'object' && typeof left.value !== 'function'))) return;
    throw new TypeErrorCtor('the sandbox cannot remove the global ' + StringCtor(name));
  }
  for (var o = g; o !== null && o !== objectProto; o = getProto(o)) {
    var keys = ownKeys(o);
    for (var i = 0; i < keys.length; i++) {
      var key = keys[i];
      if (o === g && typeof key === 'string' && keep[key] === true) continue;
      if (typeof key === 'symbol') continue;
      strip(o, key);
    }
  }
  for (var n = 0; n < network.length; n++) defineProp(g, network[n], { value: deny(network[n]), writable: false, enumerable: false, configurable: false });
  var kinds = [function () {}, async function () {}, function* () {}, async function* () {}];
  for (var k = 0; k < kinds.length; k++) defineProp(getProto(kinds[k]), 'constructor', { value: refuse, writable: false, enumerable: false, configurable: false });
  if (library !== null) {
    var provided = library();
    var providedNames = ownKeys(provided);
    for (var p = 0; p < providedNames.length; p++) defineProp(g, providedNames[p], { value: provided[providedNames[p]], writable: false, enumerable: false, configurable: false });
  }
  var seen = new WeakSetCtor();
  var stack = [g];
  while (stack.length > 0) {
    var next = stack.pop();
    if ((typeof next !== 'object' && typeof next !== 'function') || next === null || seen.has(next)) continue;
    seen.add(next);
    if (next !== g) freeze(next);
    stack.push(getProto(next));
    var names = ownKeys(next);
    for (var j = 0; j < names.length; j++) {
      var d = getDesc(next, names[j]);
      if (d === undefined) continue;
      if ('value' in d) stack.push(d.value);
      else stack.push(d.get, d.set);
    }
  }
  var globalNames = ownKeys(g);
  for (var m = 0; m < globalNames.length; m++) {
    var gd = getDesc(g, globalNames[m]);
    if (gd === undefined || !gd.configurable) continue;
    // The whole descriptor, value included: Node's vm global copies it to its backing object.
    if ('value' in gd) defineProp(g, globalNames[m], { value: gd.value, writable: false, enumerable: gd.enumerable, configurable: false });
    else defineProp(g, globalNames[m], { get: gd.get, set: gd.set, enumerable: gd.enumerable, configurable: false });
  }
  if (!isFrozen(objectProto)) throw new TypeErrorCtor('the sandbox could not freeze the realm');
  var handler = factory();
  if (typeof handler !== 'function') throw new TypeErrorCtor('the source does not export a handler function');
  function describe(error) {
    try {
      var text = error instanceof ErrorCtor ? error.name + ': ' + error.message : StringCtor(error);
      return StringCtor(text).slice(0, 2000);
    } catch (e) {
      return 'a thrown value that cannot be described';
    }
  }
  return function call(inputJson, maxChars) {
    attempted = false;
    return new PromiseCtor(function (resolve) {
      resolve(handler(parse(inputJson)));
    }).then(
      function (value) {
        if (attempted) return 'nthe handler reached for the network';
        var text;
        try {
          text = stringify(value);
        } catch (error) {
          return 'bthe output is not a JSON value: ' + describe(error);
        }
        if (typeof text !== 'string') return 'bthe handler returned no JSON value';
        if (text.length > maxChars) return 'bthe output is ' + text.length + ' characters of JSON, over the limit of ' + maxChars;
        return 'o' + text;
      },
      function (error) {
        if (attempted || (typeof error === 'object' && error !== null && denials.has(error))) return 'n' + describe(error);
        return 'e' + describe(error);
      },
    );
  };
})`;

/**
 * The script a sandbox worker runs in its realm for one tool: the prelude applied to the tool's
 * factory (from {@link auditToolSource}). With a `library` (one CUGAr ships, see
 * `REALM_LIBRARIES`), the realm runs it after its host globals are gone and before the
 * freeze, and its globals replace the network stubs of the same name (its `Request` fetches
 * nothing). Its completion value is the `call` function.
 */
export function realmScript(factorySource: string, library?: RealmLibraryName): string {
  const provided = library === undefined ? undefined : realmLibrary(library);
  const network = NETWORK_GLOBALS.filter((name) => !provided?.globals.includes(name));
  return `${PRELUDE}(${factorySource}, ${JSON.stringify(LANGUAGE_GLOBALS)}, ${JSON.stringify(network)}, ${provided ? provided.script : 'null'})`;
}
